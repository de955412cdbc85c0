"""Solving in-process for bookgen: the numba solver plus what is already known.

:class:`BookSolver` wraps :class:`solver_svc.solver.Solver` (one per worker
process) and adds two things the bookgen needs:

* **known scores**: exact scores found earlier (by any worker, read from the
  Redis store) are written into the solver's transposition table as exact
  bounds before a search, so a search that reaches a known position stops
  there. This is how deeper results make shallower searches cheap. The solver
  has no public "preload" call, so this writes table entries in the table's
  own format (see ``solver_svc/solver/table.py``); entries can be overwritten
  by the search like any other, which only costs speed, never exactness.
* **best move with refutation**: the perfect player's move (highest score,
  centre-first on ties) needs the exact score of the best column only; every
  other column just has to be shown not better, which a single null-window
  search does. Much cheaper than solving every column exactly.

Scores are Pascal Pons' (positive: the side to move wins, sooner is larger).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from connect4 import Geometry, Position

Known = Callable[[int], "int | None"]  # canonical key -> exact score or None


@dataclass
class BestMove:
    column: int  # 0-based, for the position as given
    score: int
    nodes: int


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
        self._fast = all(hasattr(self.solver, a) for a in ("_k", "table", "_begin", "_no_stop", "_mv", "_sc"))

    # -- known scores into the table ----------------------------------------------
    def preload(self, known: Mapping[int, int]) -> int:
        """Write exact scores (canonical key -> score) into the solver's table.

        Returns the number of entries written (0 when the solver's table is
        not in the expected format: then searches just do not profit).
        """
        if not known or not self._fast:
            return 0
        from solver_svc.solver.table import HASH_MUL, LOG_N, LOG_OVERFLOW, SHIFT

        t = self.solver.table
        keys = np.fromiter(known.keys(), dtype=np.uint64, count=len(known))
        scores = np.fromiter(known.values(), dtype=np.int64, count=len(known))
        shift = int(t.state[SHIFT])
        log2 = 64 - shift
        with np.errstate(over="ignore"):
            h = keys * np.uint64(HASH_MUL)  # wraps mod 2**64 like the kernel's uint64 product
        idx = (h >> np.uint64(shift)).astype(np.int64)  # the top bits pick the slot
        tag = h << np.uint64(log2)  # the rest identifies the key exactly
        payload = (((scores + 32) << 12) | ((scores + 32) << 6)).astype(np.uint64)  # lower = upper = score, no move
        fresh = idx[t.words[idx] == 0]
        n = int(t.state[LOG_N])
        if n + len(fresh) <= len(t.log):  # keep the table's cheap reset exact
            t.log[n:n + len(fresh)] = fresh
            t.state[LOG_N] = n + len(fresh)
        else:
            t.state[LOG_OVERFLOW] = 1
        t.words[idx] = tag | payload
        return len(keys)

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
        if self._fast and not child.can_win_next():
            from solver_svc.solver.table import NODES

            sv = self.solver
            from solver_svc.solver import BudgetExceeded
            from solver_svc.solver.table import ABORT

            sv._begin(self.node_budget)
            t = sv.table
            r = int(sv._k.negamax(np.uint64(child.current), np.uint64(child.mask), child.ply, s_max, s_max + 1,
                                  t.words, t.log, t.state, sv._no_stop, sv._mv, sv._sc))
            self.nodes += int(t.state[NODES])
            if t.state[ABORT]:
                raise BudgetExceeded(int(t.state[NODES]), "node budget")
            return r <= s_max  # fail-low: the child's score is at most s_max
        return self.solve(child) <= s_max

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

    def best_move(self, pos: Position, known: Known = _no_known) -> BestMove:
        """The perfect player's move: highest score, centre-first on ties.

        The centre-most candidate is solved exactly; every other column is
        only tested for being strictly better (a null window), and solved
        exactly when it is. Columns that hand the opponent an immediate win
        are scored without search.
        """
        g = self.g
        n0 = self.nodes
        order = [c for c in g.center_order() if pos.can_play(c)]
        wins = [c for c in order if pos.is_winning_move(c)]
        if wins:
            return BestMove(wins[0], self.win_now(pos), 0)
        best_col, best = None, None
        for c in order:
            child = pos.played(c)
            if child.is_over:  # the last cell: a draw
                s = 0
                if best is None or s > best:
                    best_col, best = c, s
                continue
            if child.can_win_next():  # hands over a win: known score, no search
                s = -((g.cells + 1 - child.ply) // 2)
                if best is None or s > best:
                    best_col, best = c, s
                continue
            if best is None:
                best_col, best = c, self.child_score(pos, c, known)
                continue
            kv = known(child.canonical_key())
            if kv is not None:
                if -kv > best:
                    best_col, best = c, -kv
                continue
            if best >= (g.cells - 1 - pos.ply) // 2:
                break  # nothing beats a win with our next stone (no immediate win exists)
            if self._better(child, best):
                best_col, best = c, self.child_score(pos, c, known)
        return BestMove(best_col, best, self.nodes - n0)
