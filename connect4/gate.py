"""The gate: four exact one- and two-ply checks on a proposed move, and its choice.

Each check looks at one column for the side to move and answers a
:class:`Check`: pass or fail, and a reason a person can read, with columns
and cells in the notation's letters (``f``, ``f4``: column f, row 4 from
the bottom). A ``Check`` is true when it passes, so ``all(check(pos, c) for
check in CHECKS)`` reads as it should.

* ``takes_win``: when a win is on the board, the move takes it;
* ``blocks_threat``: when the opponent can win next move, the move blocks
  (or wins now);
* ``not_under_threat``: the move does not land right under an opponent's
  winning cell (unless it wins now);
* ``no_loss_in_two``: no opponent reply then wins at once or leaves us with
  no move that stops its next win.

A move that wins now passes every check. **The gate's choice** for a
proposal that fails a check (:func:`guard`): the proposal stands when no
column passes more checks than it does; otherwise the column nearest the
centre among those passing the most checks (all four when any column
does). It needs nothing but this module, so every interface computes it
the same way. Its guarantee: the chosen column never lets the opponent win
next move unless every column does (``tests/connect4/test_gate.py`` checks
it on every position to 7 plies and on random ones).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .notation import LETTERS
from .position import Position


@dataclass(frozen=True)
class Check:
    """One check of one column: its name, pass or fail, and why."""

    name: str
    passed: bool
    reason: str

    def __bool__(self) -> bool:
        return self.passed


def column_name(col: int) -> str:
    return LETTERS[col]


def cell_name(col: int, row: int) -> str:
    """``f4``: column letter and 1-based row from the bottom (row is 0-based here)."""
    return f"{LETTERS[col]}{row + 1}"


def _cells(pos: Position, bb: int) -> list[str]:
    """The names of the cells of a bitboard, column by column, bottom first."""
    g = pos.geometry
    return [cell_name(c, r) for c in range(g.width) for r in range(g.height) if bb & g.cell_bit(c, r)]


def _joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _winning_columns(pos: Position) -> list[int]:
    """The columns where the side to move wins now (one kernel call, not one a column)."""
    if pos.is_over:
        return []
    wins = pos.winning_cells() & pos.possible()
    g = pos.geometry
    return [c for c in range(g.width) if wins & g.column_mask(c)]


def _playable_threats(pos: Position) -> int:
    """The opponent's winning cells it could fill on its next move."""
    return pos.winning_cells(1 - pos.to_move) & pos.possible()


def takes_win(pos: Position, col: int) -> Check:
    """When a win is on the board, the move must take it."""
    name, c = "takes_win", column_name(col)
    wins = _winning_columns(pos)
    if not wins:
        return Check(name, True, "no move wins now")
    if col in wins:
        return Check(name, True, f"{c} wins at once")
    return Check(name, False, f"{c} misses the win: {_joined([column_name(w) for w in wins])} wins at once")


def blocks_threat(pos: Position, col: int) -> Check:
    """When the opponent threatens to win next move, the move must block (or win)."""
    name, c = "blocks_threat", column_name(col)
    if pos.is_winning_move(col):
        return Check(name, True, f"{c} wins at once")
    forced = _playable_threats(pos)
    if not forced:
        return Check(name, True, "the opponent has no win to play next move")
    cells = _joined(_cells(pos, forced))
    if forced & pos.geometry.column_mask(col):
        if forced & (forced - 1):
            return Check(name, True, f"{c} blocks one of the opponent's wins at {cells}")
        return Check(name, True, f"{c} blocks the opponent's win at {cells}")
    return Check(name, False, f"{c} leaves the opponent's win at {cells} open")


def not_under_threat(pos: Position, col: int) -> Check:
    """The move must not land right under an opponent's winning cell (unless it wins)."""
    name, c = "not_under_threat", column_name(col)
    if pos.is_winning_move(col):
        return Check(name, True, f"{c} wins at once")
    row = pos.height(col)
    g = pos.geometry
    if row + 1 < g.height and pos.winning_cells(1 - pos.to_move) & g.cell_bit(col, row + 1):
        return Check(name, False, f"{c} lands directly under the opponent's winning cell {cell_name(col, row + 1)}")
    return Check(name, True, f"{c} does not land under a winning cell of the opponent")


def _lost_after(q: Position) -> str:
    """Why the side to move in ``q`` (no win of its own) cannot stop the opponent's next win, or ""."""
    if q.is_over or q.can_win_next() or q.non_losing_moves():
        return ""
    forced = _playable_threats(q)
    if forced & (forced - 1):
        return f"two wins at {_joined(_cells(q, forced))}, and one move blocks only one"
    if forced:
        return f"a win at {_joined(_cells(q, forced))} to block, right under another of its winning cells"
    return "every column then lands under one of its winning cells"


def no_loss_in_two(pos: Position, col: int) -> Check:
    """After the move, no opponent reply leaves us lost at once (it wins, or we
    face an unstoppable threat: no win and no safe move)."""
    name, c = "no_loss_in_two", column_name(col)
    if pos.is_winning_move(col):
        return Check(name, True, f"{c} wins at once")
    p = pos.played(col)
    if p.is_over:
        return Check(name, True, f"{c} fills the board: a draw")
    wins = _winning_columns(p)
    if wins:
        return Check(name, False, f"after {c}, the opponent wins at once with {_joined([column_name(w) for w in wins])}")
    for reply in p.legal_moves():
        why = _lost_after(p.played(reply))
        if why:
            return Check(name, False, f"after {c}, the opponent's reply {column_name(reply)} leaves {why}")
    return Check(name, True, f"after {c}, no reply of the opponent wins within two moves")


CHECKS: tuple[Callable[[Position, int], Check], ...] = (takes_win, blocks_threat, not_under_threat, no_loss_in_two)


def check_move(pos: Position, col: int) -> tuple[Check, ...]:
    """The four checks of a legal column for the side to move, in order."""
    return tuple(check(pos, col) for check in CHECKS)


def best_columns(pos: Position) -> list[int]:
    """The legal columns passing the most checks, the most central first."""
    passed = {c: sum(map(bool, check_move(pos, c))) for c in pos.legal_moves()}
    top = max(passed.values())
    rank = {c: i for i, c in enumerate(pos.geometry.center_order())}
    return sorted((c for c, n in passed.items() if n == top), key=rank.__getitem__)


@dataclass(frozen=True)
class Guarded:
    """The gate's verdict on a proposal: what is played, and the checks of both columns."""

    proposed: int
    played: int
    checks: tuple[Check, ...]  # of the proposal
    played_checks: tuple[Check, ...]  # of the column played (the same when the proposal stands)

    @property
    def overridden(self) -> bool:
        return self.played != self.proposed

    @property
    def failed(self) -> tuple[Check, ...]:
        """The checks the proposal failed."""
        return tuple(ch for ch in self.checks if not ch)

    def summary(self) -> str:
        """One line: what happened and why."""
        p, q = column_name(self.proposed), column_name(self.played)
        if not self.failed:
            return f"{p} passes the four checks"
        reasons = "; ".join(ch.reason for ch in self.failed)
        if not self.overridden:
            return f"{p} stands: no column passes more checks ({reasons})"
        n = sum(map(bool, self.played_checks))
        return f"the gate plays {q}, not {p} ({reasons}); {q} passes {n} of {len(CHECKS)} checks"


def guard(pos: Position, col: int) -> Guarded:
    """The gate on a proposal of the side to move (a legal column of a game not over)."""
    pos.check_move(col)
    checks = check_move(pos, col)
    if all(checks):
        return Guarded(col, col, checks, checks)
    best = best_columns(pos)
    played = col if col in best else best[0]
    return Guarded(col, played, checks, checks if played == col else check_move(pos, played))
