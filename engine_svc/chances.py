"""Which drawing move to play once the engine has proved a draw.

A proof makes every drawing move score 0, and the search plays the first one
it proved. Against a player who can still go wrong they are not alike: one
keeps the engine's threats on the board, another trades them away and leaves
a dead position. So when the root is a proven draw, the engine ranks the
columns by a short heuristic search (which cannot see the end of the game and
so still tells them apart) and plays the best-ranked column that an exact
search proves to draw as well. The proof stays intact: the move played draws.

Measured in the arena (docs/engine.md): engine:1000 against minimax:6 drew
21 of 800 games playing the first drawing column proved, 18 of the same 800
with this choice (inside the noise of a timed engine).
"""

from __future__ import annotations

from typing import Callable

# The heuristic look-ahead: deep enough to see threats being built, shallow
# enough that it stops short of the end (where every drawing move scores 0)
# and costs a few milliseconds a column.
CHANCE_DEPTH = 10
# Too close to the end, a short search already sees everything: nothing to rank.
MIN_EMPTIES = CHANCE_DEPTH + 2


def drawing_move_with_chances(
    columns: list[int],
    proven: int,
    heuristic: Callable[[int], int],
    draws: Callable[[int], bool | None],
) -> tuple[int, dict[int, int]]:
    """The column to play in a proven draw.

    ``columns`` are the legal columns, ``proven`` the one the proof found;
    ``heuristic(c)`` is the heuristic value of playing ``c`` (side to move's
    view), ``draws(c)`` proves whether ``c`` draws too (``None``: stopped
    before it knew). Returns the column and the heuristic values it ranked.
    Ties keep the order of ``columns`` (centre first), so the result does not
    depend on a clock, only ``draws`` giving up early can change it.
    """
    values = {c: heuristic(c) for c in columns}
    ranked = sorted(columns, key=lambda c: -values[c])  # stable: centre first on ties
    for c in ranked:
        if values[c] <= values[proven] or c == proven:
            return proven, values  # nothing ranks above the proven column
        verdict = draws(c)
        if verdict is None:
            return proven, values  # out of time: the proven column
        if verdict:
            return c, values
    return proven, values
