"""The Solver: a transposition table, a geometry's kernels, the public calls."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from connect4 import STANDARD, Geometry, InvalidPosition, Position

from .errors import BudgetExceeded
from .search import search_kernels
from .table import ABORT, BUDGET, NO_BUDGET, NODES, TranspositionTable

DEFAULT_TT_LOG2 = 23  # 8M entries, 64 MiB


@dataclass(frozen=True)
class SolveResult:
    """``score`` in Pons' convention from the side to move (weak: -1, 0 or 1),
    ``nodes`` searched and ``elapsed_s`` wall time of the call."""

    score: int
    nodes: int
    elapsed_s: float


class Solver:
    """Exact solver for one board geometry. Not thread-safe: one per thread
    (the kernels release the GIL, so several Solvers run in parallel)."""

    def __init__(self, geometry: Geometry = STANDARD, tt_log2: int | None = None):
        self.geometry = geometry
        self.table = TranspositionTable(DEFAULT_TT_LOG2 if tt_log2 is None else tt_log2)
        self._k = search_kernels(geometry)
        g = geometry
        self._mv = np.zeros((g.cells + 1) * g.width, dtype=np.int64)  # move lists, one row a ply
        self._sc = np.zeros((g.cells + 1) * g.width, dtype=np.int64)  # their ordering scores
        self._no_stop = np.zeros(1, dtype=np.uint8)
        self.last_nodes = 0  # nodes of the last search (solve, analyze or best_move)

    # -- public ------------------------------------------------------------
    def reset(self) -> None:
        """Forget every stored bound (cheap: clears only what was written)."""
        self.table.reset()

    def solve(self, pos: Position, *, weak: bool = False, node_budget: int = 0, stop=None) -> SolveResult:
        """Exact score of ``pos`` for the side to move; ``weak``: its sign only."""
        self._check(pos)
        t0 = time.perf_counter()
        self._begin(node_budget)
        score = self._solve(pos.current, pos.mask, pos.ply, weak, stop)
        self.last_nodes = nodes = int(self.table.state[NODES])
        return SolveResult(score, nodes, time.perf_counter() - t0)

    def analyze(self, pos: Position, *, node_budget: int = 0, stop=None, weak: bool = False) -> list[int | None]:
        """Score of playing each 0-based column, from ``pos``'s side to move
        (an immediate win is ``(W*H+1-ply)//2``); None for a full column.
        ``weak`` gives signs only. The budget counts the nodes of all columns."""
        self._check(pos)
        g = self.geometry
        self._begin(node_budget)
        scores: list[int | None] = []
        win_now = (g.cells + 1 - pos.ply) // 2
        for c in range(g.width):
            if not pos.can_play(c):
                scores.append(None)
                continue
            if pos.is_winning_move(c):
                scores.append(1 if weak else win_now)
                continue
            cur = pos.current ^ pos.mask  # the opponent moves next
            mask = pos.mask | (pos.mask + g.bottom_cell(c))  # the carry lands on the column's lowest empty cell
            if mask == g.board_mask:
                scores.append(0)  # the last cell, no line: a draw
                continue
            scores.append(-self._solve(cur, mask, pos.ply + 1, weak, stop))
        self.last_nodes = int(self.table.state[NODES])
        return scores

    def best_move(self, pos: Position, *, node_budget: int = 0, stop=None) -> tuple[int, int]:
        """(0-based column, score): the fastest win, else a draw, else the
        slowest loss; ties go to the column nearest the centre."""
        scores = self.analyze(pos, node_budget=node_budget, stop=stop)
        rank = {c: i for i, c in enumerate(self.geometry.center_order())}
        col = max((c for c, s in enumerate(scores) if s is not None), key=lambda c: (scores[c], -rank[c]))
        return col, scores[col]

    # -- internals -----------------------------------------------------------
    def _check(self, pos: Position) -> None:
        if pos.geometry != self.geometry:
            raise InvalidPosition(f"position is {pos.geometry.name}, this solver solves {self.geometry.name}")
        if pos.is_over:
            what = "a draw (the board is full)" if pos.is_draw else "won"
            raise InvalidPosition(f"the game is over ({what}): there is nothing to solve")

    def _begin(self, node_budget: int) -> None:
        st = self.table.state
        st[NODES] = 0
        st[ABORT] = 0
        st[BUDGET] = node_budget if node_budget and node_budget > 0 else NO_BUDGET

    def _solve(self, cur: int, mask: int, ply: int, weak: bool, stop) -> int:
        """Score of a position that is not over, from its side to move."""
        k, t = self._k, self.table
        g = self.geometry
        c, m = np.uint64(cur), np.uint64(mask)
        if k.can_win_next(c, m):
            return 1 if weak else (g.cells + 1 - ply) // 2
        flag = self._no_stop if stop is None else stop
        score = int(k.solve(c, m, ply, weak, t.words, t.log, t.state, flag, self._mv, self._sc))
        if t.state[ABORT]:
            nodes = int(t.state[NODES])
            self.last_nodes = nodes
            raise BudgetExceeded(nodes, "stop flag" if stop is not None and stop[0] else "node budget")
        if weak:
            score = (score > 0) - (score < 0)
        return score
