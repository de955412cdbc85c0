"""The exact solver's API (:class:`solver_svc.solver.Solver`) on boards past
64 bits, over :class:`solver_svc.wide_solver.WideSolver`.

Same calls, same rules: ``solve`` gives a :class:`SolveResult`, ``analyze``
the score of every column, ``best_move`` the fastest win (else a draw, else
the slowest loss, centre first on ties); a search that runs out of its node
budget or sees its stop flag raises :class:`BudgetExceeded` and gives no value.
One more call, :meth:`WideBoardSolver.analyze_partial`: the columns it
proves within the budget, the others marked unproved (the gateway's analysis
of a large board: some columns proved, never a guessed one).
"""

from __future__ import annotations

import time

from connect4 import Geometry, InvalidPosition, Position
from solver_svc.solver import BudgetExceeded, SolveResult

from .wide_solver import DEFAULT_TABLE_LOG2, Unproved, WideSolver

UNLIMITED = 1 << 62  # node_budget 0: no node limit
FIRST_PASS_NODES = 50_000  # per column in analyze_partial's first pass: easy columns before a hard one eats the time


class WideBoardSolver:
    """:class:`Solver`'s calls on any board (made for ``g.wide``); one per thread."""

    def __init__(self, geometry: Geometry, tt_log2: int | None = None):
        # A slot holds W uint32 key words and an int16 (66 bytes on 16 columns, against the 64-bit
        # table's 8): tt_log2 (the 64-bit table's size) becomes 2^(tt_log2-3) slots, at most 2^22.
        self.geometry = geometry
        log2 = DEFAULT_TABLE_LOG2 if tt_log2 is None else min(22, max(10, tt_log2 - 3))
        self.core = WideSolver(geometry, log2)
        self.last_nodes = 0

    def reset(self) -> None:
        self.core.reset()

    def _check(self, pos: Position) -> None:
        if pos.geometry != self.geometry:
            raise InvalidPosition(f"position is {pos.geometry.name}, this solver solves {self.geometry.name}")
        if pos.is_over:
            what = "a draw, the board is full" if pos.is_draw else "won"
            raise InvalidPosition(f"the game is over ({what}): there is nothing to solve")

    def _solve(self, pos: Position, weak: bool, nodes_left: int, stop) -> tuple[int, int]:
        """(score, nodes) of a position in play; BudgetExceeded (with the nodes) past the budget."""
        try:
            score, nodes = self.core.solve(pos, weak=weak, budget=max(1, nodes_left), stop=stop)
        except Unproved as exc:
            raise BudgetExceeded(exc.nodes, "stop flag" if stop is not None and stop[0] else "node budget") from None
        return ((score > 0) - (score < 0) if weak else score), nodes

    def solve(self, pos: Position, *, weak: bool = False, node_budget: int = 0, stop=None) -> SolveResult:
        self._check(pos)
        t0 = time.perf_counter()
        try:
            score, nodes = self._solve(pos, weak, node_budget or UNLIMITED, stop)
        except BudgetExceeded as exc:
            self.last_nodes = exc.nodes
            raise
        self.last_nodes = nodes
        return SolveResult(score, nodes, time.perf_counter() - t0)

    def _column(self, pos: Position, c: int, weak: bool, nodes_left: int, stop) -> tuple[int, int]:
        """(score of playing 0-based ``c``, nodes)."""
        g = self.geometry
        if pos.is_winning_move(c):
            s = (g.cells + 1 - pos.ply) // 2
            return (1 if weak else s), 0
        child = pos.played(c)
        if child.ply == g.cells:
            return 0, 0
        score, nodes = self._solve(child, weak, nodes_left, stop)
        return -score, nodes

    def analyze(self, pos: Position, *, node_budget: int = 0, stop=None, weak: bool = False) -> list[int | None]:
        """Score of each 0-based column (None: full); the budget covers all columns."""
        self._check(pos)
        out: list[int | None] = [None] * self.geometry.width
        total, left = 0, node_budget or UNLIMITED
        for c in self.geometry.center_order():
            if not pos.can_play(c):
                continue
            if left <= 0:
                self.last_nodes = total
                raise BudgetExceeded(total, "node budget")
            try:
                out[c], nodes = self._column(pos, c, weak, left, stop)
            except BudgetExceeded as exc:
                self.last_nodes = total + exc.nodes
                raise BudgetExceeded(self.last_nodes, exc.reason) from None
            total += nodes
            left -= nodes
        self.last_nodes = total
        return out

    def analyze_partial(self, pos: Position, *, node_budget: int = 0, stop=None) -> tuple[list[int | None], set[int]]:
        """(score of each 0-based column or None, the open columns not proved).

        Two passes, centre first: every column with at most FIRST_PASS_NODES
        (and its share of the node budget), then the unproved ones with what
        is left of the budget, until the stop flag. The table is kept between
        them, so the second pass resumes."""
        self._check(pos)
        out: list[int | None] = [None] * self.geometry.width
        todo = [c for c in self.geometry.center_order() if pos.can_play(c)]
        total, left = 0, node_budget or UNLIMITED
        for first in (True, False):
            cap = min(FIRST_PASS_NODES, max(1, left // max(1, len(todo)))) if first else None
            unproved = []
            for c in todo:
                if left <= 0 or (stop is not None and stop[0]):
                    unproved.append(c)
                    continue
                try:
                    out[c], nodes = self._column(pos, c, False, min(left, cap or left), stop)
                except BudgetExceeded as exc:
                    nodes = exc.nodes
                    unproved.append(c)
                total += nodes
                left -= nodes
            todo = unproved
            if not todo:
                break
        self.last_nodes = total
        return out, set(todo)

    def best_move(self, pos: Position, *, node_budget: int = 0, stop=None) -> tuple[int, int]:
        scores = self.analyze(pos, node_budget=node_budget, stop=stop)
        rank = {c: i for i, c in enumerate(self.geometry.center_order())}
        playable = {c: s for c, s in enumerate(scores) if s is not None}
        col = max(playable, key=lambda c: (playable[c], -rank[c]))
        return col, playable[col]


def exact_solver(geometry: Geometry, tt_log2: int | None = None):
    """The exact solver of any board: the 64-bit :class:`Solver` where a board
    fits one word (its fast path, untouched), :class:`WideBoardSolver` past it."""
    if geometry.wide:
        return WideBoardSolver(geometry, tt_log2)
    from solver_svc.solver import Solver

    return Solver(geometry, tt_log2)


