"""Solving in-process for bookgen: the numba solver plus what is already known.

:class:`BookSolver` wraps :class:`solver_svc.solver.Solver` (one per worker
process) and adds two things the bookgen needs:

* **known scores**: exact scores found earlier (by any worker, read from the
  Redis store) go into the solver's transposition table through
  ``Solver.preload`` before a search, so a search that reaches a known
  position stops there. This is how deeper results make shallower searches
  cheap. The search may overwrite such an entry like any other, which only
  costs speed, never exactness.
* **best move with refutation**: the perfect player's move (highest score,
  centre-first on ties) needs the exact score of the best column only; every
  other column just has to be shown not better, which a single null-window
  search does. Much cheaper than solving every column exactly.

Scores are Pascal Pons' (positive: the side to move wins, sooner is larger).
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable, Mapping

from connect4 import Geometry, Position

Known = Callable[[int], "int | None"]  # canonical key -> exact score or None


@dataclass
class BestMove:
    column: int  # 0-based, for the position as given
    score: int
    nodes: int
    ties: tuple[int, ...] | None = None  # with ties=True: every column of that score, centre first


def _no_known(_key: int) -> None:
    return None


class BookSolver:
    """The numba solver of one geometry, fed with already-known exact scores."""

    def __init__(self, geometry: Geometry, tt_log2: int | None = None):
        from solver_svc.solver import Solver

        self.g = geometry
        self.solver = Solver(geometry, tt_log2=tt_log2)
        self.nodes = 0  # nodes searched by this object, all calls together
        self.node_budget = 0  # per search (0: none); over it, BudgetExceeded

    # -- known scores into the table ----------------------------------------------
    def preload(self, known: Mapping[int, int]) -> int:
        """Store exact scores (canonical key -> score) in the solver's table;
        returns the number stored."""
        return self.solver.preload(known)

    # -- scores ---------------------------------------------------------------------
    def win_now(self, pos: Position) -> int:
        return (self.g.cells + 1 - pos.ply) // 2

    def solve(self, pos: Position, known: Known = _no_known) -> int:
        """Exact score of a position that is not over."""
        k = known(pos.canonical_key())
        if k is not None:
            return k
        try:
            r = self.solver.solve(pos, node_budget=self.node_budget)
        except Exception:
            self.nodes += self.solver.last_nodes
            raise
        self.nodes += r.nodes
        return r.score

    def child_score(self, pos: Position, col: int, known: Known = _no_known) -> int:
        """Exact score of playing ``col`` in ``pos``, from ``pos``'s side to move."""
        if pos.is_winning_move(col):
            return self.win_now(pos)
        child = pos.played(col)
        if child.is_over:
            return 0  # the last cell, no line
        return -self.solve(child, known)

    def analyze(self, pos: Position, known: Known = _no_known) -> list[int | None]:
        """Exact score of every column (None when full)."""
        return [self.child_score(pos, c, known) if pos.can_play(c) else None for c in range(self.g.width)]

    def _better(self, child: Position, best: int) -> bool:
        """Is the child's score, seen from its parent, larger than ``best``?

        From the parent that is ``-s > best`` with ``s`` the child's score,
        i.e. ``s <= -best - 1``: one null-window search at that bound.
        """
        s_max = -best - 1
        try:
            above = self.solver.test(child, s_max, node_budget=self.node_budget)
        finally:
            self.nodes += self.solver.last_nodes
        return not above  # the child's score is at most s_max

    def _at_least(self, child: Position, best: int) -> bool:
        """Is the child's score, seen from its parent, at least ``best``?
        (``s <= -best``: one null-window search at that bound.)"""
        try:
            above = self.solver.test(child, -best, node_budget=self.node_budget)
        finally:
            self.nodes += self.solver.last_nodes
        return not above

    def weak(self, pos: Position, known: Known = _no_known) -> int:
        """-1, 0 or 1: the sign of the position's score."""
        k = known(pos.canonical_key())
        if k is not None:
            return (k > 0) - (k < 0)
        r = self.solver.solve(pos, weak=True, node_budget=self.node_budget)
        self.nodes += r.nodes
        return r.score

    def move_outcome(self, pos: Position, col: int, known: Known = _no_known) -> int:
        """-1, 0 or 1: the sign of playing ``col``, from ``pos``'s side to move."""
        if pos.is_winning_move(col):
            return 1
        child = pos.played(col)
        if child.is_over:
            return 0
        return -self.weak(child, known)

    def best_move(self, pos: Position, known: Known = _no_known, ties: bool = False) -> BestMove:
        """The perfect player's move: highest score, centre-first on ties.

        The centre-most candidate is solved exactly; every other column is
        only tested for being strictly better (a null window), and solved
        exactly when it is. Columns that hand the opponent an immediate win
        are scored without search. ``ties``: also every other column of the
        best score (``BestMove.ties``): each column is then tested for being
        at least as good, and only those that are for being better, so a
        column that is worse still costs one null window.
        """
        g = self.g
        n0 = self.nodes
        order = [c for c in g.center_order() if pos.can_play(c)]
        wins = [c for c in order if pos.is_winning_move(c)]
        if wins:
            return BestMove(wins[0], self.win_now(pos), 0, tuple(wins) if ties else None)
        best_col, best = None, None
        tied: list[int] = []

        def take(c: int, s: int) -> None:
            nonlocal best_col, best, tied
            if best is None or s > best:
                best_col, best, tied = c, s, [c]
            elif s == best:
                tied.append(c)

        for c in order:
            child = pos.played(c)
            if child.is_over:  # the last cell: a draw
                take(c, 0)
                continue
            if child.can_win_next():  # hands over a win: known score, no search
                take(c, -((g.cells + 1 - child.ply) // 2))
                continue
            if best is None:
                take(c, self.child_score(pos, c, known))
                continue
            kv = known(child.canonical_key())
            if kv is not None:
                take(c, -kv)
                continue
            if not ties:
                if best >= (g.cells - 1 - pos.ply) // 2:
                    break  # nothing beats a win with our next stone (no immediate win exists)
                if self._better(child, best):
                    best_col, best = c, self.child_score(pos, c, known)
                continue
            if self._at_least(child, best):
                take(c, self.child_score(pos, c, known) if self._better(child, best) else best)
        assert best_col is not None and best is not None  # the game goes on: some column is playable
        return BestMove(best_col, best, self.nodes - n0, tuple(tied) if ties else None)
