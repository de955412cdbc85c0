"""Which move to play once the engine has proved it cannot win.

A proof gives every drawing move the same score 0, and every longest defence
of a lost position the same loss; the search plays the first such move it
proved. Against a player who can still go wrong they are not alike: one keeps
the engine's threats on the board, another trades them away and leaves a
dead position. So when the root is a proven draw or loss, the engine ranks
the columns by a short heuristic search (which stops short of the end and so
still tells them apart) and plays the best-ranked column that an exact search
proves to keep the proven value. The proof stays intact: the move played
draws, or loses no sooner than the proof's own move.

In the arena (docs/results/engine-strength.md) engine:1000 against minimax:6 won 719 of 800
games before, 723 with drawing columns ranked and 728 with losses ranked too:
inside the noise of a timed engine, so this is kept as the right choice, not
as a measured gain. Equal defences are common: in the engine's lost games,
174 of 300 lost positions from ply 14 on had two or more.
"""

from __future__ import annotations

from collections.abc import Callable

# The heuristic look-ahead: deep enough to see threats being built, shallow
# enough that it stops short of the end (where every drawing move scores 0)
# and costs a few milliseconds a column.
CHANCE_DEPTH = 10
# Too close to the end, a short search already sees everything: nothing to rank.
MIN_EMPTIES = CHANCE_DEPTH + 2


def move_with_chances(
    columns: list[int],
    proven: int,
    heuristic: Callable[[int], int],
    holds: Callable[[int], bool | None],
) -> tuple[int, dict[int, int]]:
    """The column to play in a proven draw or loss.

    ``columns`` are the legal columns, ``proven`` the one the proof found;
    ``heuristic(c)`` is the heuristic value of playing ``c`` (side to move's
    view), ``holds(c)`` proves whether ``c`` keeps the proven value too
    (``None``: stopped before it knew). Returns the column and the heuristic
    values it ranked. Ties keep the order of ``columns`` (centre first), so
    only ``holds`` giving up early (a clock) can change the answer.
    """
    values = {c: heuristic(c) for c in columns}
    ranked = sorted(columns, key=lambda c: -values[c])  # stable: centre first on ties
    for c in ranked:
        if values[c] <= values[proven] or c == proven:
            return proven, values  # nothing ranks above the proven column
        verdict = holds(c)
        if verdict is None:
            return proven, values  # out of time: the proven column
        if verdict:
            return c, values
    return proven, values
