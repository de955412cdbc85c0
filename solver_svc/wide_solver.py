"""The exact solver on boards past 64 bits (it runs on any board): Pascal
Pons' algorithm on one word per column (:mod:`connect4.wide`).

Negamax with alpha-beta over the non-losing moves only (a forced block, never
right under an opponent's winning cell; two threats lose), moves sorted by the
number of winning cells they leave us (centre first on ties), a table of
upper bounds, and the null-window bisection of ``solve`` over Pons' score
range. Scores are Pons' (:mod:`connect4.scores`): positive when the side to
move wins, larger sooner.

Exact or nothing: the table stores every column's key word (``cur + mask +
1``, 17 bits at most) beside the bound and compares them all, so a hash
collision can never pass a wrong bound; and a search that reaches its node
budget (or its stop flag) raises :class:`Unproved` instead of answering. This module is the
large-board counterpart of :mod:`solver_svc.solver` (whose 64-bit kernels it
does not touch); positions come as :class:`connect4.Position`.
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

import numpy as np
from numba import int64, uint64

from connect4 import Geometry, InvalidPosition, Position
from connect4.bits import popcount
from connect4.jit import kernel
from connect4.wide import to_words, wide_kernels_for

ST_NODES, ST_BUDGET, ST_ABORTED = 0, 1, 2
DEFAULT_TABLE_LOG2 = 20


class Unproved(Exception):
    """The node budget ran out before a proof: no score is given."""

    def __init__(self, message: str, nodes: int):
        super().__init__(message)
        self.nodes = nodes


@cache
def wide_solver_kernels(g: Geometry) -> SimpleNamespace:
    tag = f"widesolver{g.width}x{g.height}k{g.k}"
    W, H, CELLS = g.width, g.height, g.cells
    COL = uint64((1 << H) - 1)
    ORDER = np.array(g.center_order(), dtype=np.int64)
    OFFSET = CELLS + 1  # a bound is stored as bound + OFFSET (always >= 1; 0: an empty slot)
    wk = wide_kernels_for(g)
    win_cells = wk.winning_cells
    key64 = wk.key64

    @kernel(tag)
    def tt_get(keys, vals, shift, cur, mask):
        slot = key64(cur, mask) >> uint64(shift)
        for c in range(W):
            if keys[slot, c] != np.uint32(cur[c] + mask[c] + uint64(1)):
                return 0
        return int64(vals[slot])

    @kernel(tag)
    def tt_put(keys, vals, shift, cur, mask, v):
        slot = key64(cur, mask) >> uint64(shift)
        for c in range(W):
            keys[slot, c] = np.uint32(cur[c] + mask[c] + uint64(1))
        vals[slot] = v

    @kernel(tag)
    def negamax(cur, msk, wbuf, ply, alpha, beta, keys, vals, shift, st, stop):
        """Pons' negamax; the side to move (``cur[ply]``) cannot win at once."""
        st[ST_NODES] += 1
        if st[ST_NODES] > st[ST_BUDGET] or ((st[ST_NODES] & 1023) == 0 and stop[0]):
            st[ST_ABORTED] = 1
            return int64(0)
        me = cur[ply]
        mask = msk[ply]
        ow = wbuf[2 * ply]
        opp = wbuf[2 * ply + 1]  # scratch: the opponent's stones, then ours after a move
        for c in range(W):
            opp[c] = me[c] ^ mask[c]
        win_cells(opp, mask, ow)
        nforced = 0
        moves = 0
        forced = 0
        for c in range(W):
            p = (mask[c] + uint64(1)) & COL
            if p == 0:
                continue
            if p & ow[c]:
                nforced += 1
                forced |= 1 << c
            if p & ~(ow[c] >> uint64(1)):
                moves |= 1 << c
        if nforced >= 2:
            return -int64((CELLS - ply) // 2)
        if nforced == 1:
            moves &= forced
        if moves == 0:
            return -int64((CELLS - ply) // 2)
        if ply >= CELLS - 2:
            return int64(0)
        lo = -int64((CELLS - 2 - ply) // 2)
        if alpha < lo:
            alpha = lo
            if alpha >= beta:
                return alpha
        hi = int64((CELLS - 1 - ply) // 2)
        v = tt_get(keys, vals, shift, me, mask)
        if v:
            hi = v - OFFSET
        if beta > hi:
            beta = hi
            if alpha >= beta:
                return beta
        # Sort the moves by the winning cells they leave us (insertion sort, centre first on ties).
        order = np.empty(W, dtype=np.int64)
        score = np.empty(W, dtype=np.int64)
        n = 0
        for k in range(W):
            c = ORDER[k]
            if not (moves >> c) & 1:
                continue
            bit = (mask[c] + uint64(1)) & COL
            me[c] |= bit
            mask[c] |= bit
            win_cells(me, mask, opp)
            s = int64(0)
            for x in range(W):
                s += int64(popcount(opp[x]))
            me[c] ^= bit
            mask[c] ^= bit
            i = n
            while i > 0 and score[i - 1] < s:
                order[i] = order[i - 1]
                score[i] = score[i - 1]
                i -= 1
            order[i] = c
            score[i] = s
            n += 1
        for i in range(n):
            c = order[i]
            bit = (mask[c] + uint64(1)) & COL
            child_cur = cur[ply + 1]
            child_mask = msk[ply + 1]
            for x in range(W):
                child_cur[x] = me[x] ^ mask[x]  # the opponent is to move
                child_mask[x] = mask[x]
            child_mask[c] |= bit
            s = -negamax(cur, msk, wbuf, ply + 1, -beta, -alpha, keys, vals, shift, st, stop)
            if st[ST_ABORTED]:
                return int64(0)
            if s >= beta:
                return s
            if s > alpha:
                alpha = s
        tt_put(keys, vals, shift, me, mask, alpha + OFFSET)
        return alpha

    @kernel(tag)
    def solve(cur0, mask0, ply, weak, keys, vals, shift, st, stop):
        """Pons' solve: the exact score (weak: its sign) of a position whose side to move cannot win at once."""
        cur = np.zeros((CELLS + 2, W), dtype=np.uint64)
        msk = np.zeros((CELLS + 2, W), dtype=np.uint64)
        wbuf = np.zeros((2 * CELLS + 4, W), dtype=np.uint64)
        for c in range(W):
            cur[ply, c] = cur0[c]
            msk[ply, c] = mask0[c]
        lo = -int64((CELLS - ply) // 2)
        hi = int64((CELLS + 1 - ply) // 2)
        if weak:
            lo = -1
            hi = 1
        while lo < hi:
            med = lo + (hi - lo) // 2
            if med <= 0 and lo // 2 < med:
                med = lo // 2
            elif med >= 0 and hi // 2 > med:
                med = hi // 2
            r = negamax(cur, msk, wbuf, ply, med, med + 1, keys, vals, shift, st, stop)
            if st[ST_ABORTED]:
                return int64(0)
            if r <= med:
                hi = r
            else:
                lo = r
        return lo

    return SimpleNamespace(solve=solve, negamax=negamax)


class WideSolver:
    """Exact scores on any board (made for boards past 64 bits), within a node budget."""

    def __init__(self, geometry: Geometry, table_log2: int = DEFAULT_TABLE_LOG2):
        if not 10 <= table_log2 <= 26:
            raise ValueError(f"table_log2 {table_log2} must be in 10..26")
        self.geometry = geometry
        self.kernels = wide_solver_kernels(geometry)
        self.keys = np.zeros((1 << table_log2, geometry.width), dtype=np.uint32)
        self.vals = np.zeros(1 << table_log2, dtype=np.int16)
        self.shift = 64 - table_log2
        self._no_stop = np.zeros(1, dtype=np.uint8)

    def reset(self) -> None:
        self.keys[:] = 0
        self.vals[:] = 0

    def solve(self, pos: Position, weak: bool = False, budget: int = 10_000_000,
              stop: np.ndarray | None = None) -> tuple[int, int]:
        """(Pons' score of ``pos``, nodes searched); :class:`Unproved` past ``budget`` nodes or
        once ``stop`` (a uint8[1] another thread may set to 1, polled every 1024 nodes) is set."""
        g = self.geometry
        if pos.geometry != g:
            raise InvalidPosition(f"position is {pos.geometry.name}, solver is {g.name}")
        if pos.is_over:
            raise InvalidPosition("the game is over: there is nothing to solve")
        if pos.can_win_next():
            return (g.cells + 1 - pos.ply) // 2, 1
        st = np.array([0, budget, 0], dtype=np.int64)
        flag = self._no_stop if stop is None else stop
        score = int(self.kernels.solve(to_words(pos.current, g), to_words(pos.mask, g), pos.ply, weak,
                                       self.keys, self.vals, self.shift, st, flag))
        if st[ST_ABORTED]:
            why = "stopped" if flag[0] else f"not proved within {budget} nodes"
            raise Unproved(f"{why} after {int(st[ST_NODES])} nodes", int(st[ST_NODES]))
        return (max(-1, min(1, score)) if weak else score), int(st[ST_NODES])
