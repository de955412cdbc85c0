"""The casual-game minimax on boards past 64 bits: :mod:`engine_svc.minimax`
(the same window evaluation, weights, alpha-beta, centre-first order and stop
flag) over one word per column (:mod:`connect4.wide`), playing and taking back
stones in place. Windows are the lines of :mod:`engine_svc.wide_evaluation`."""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

import numpy as np
from numba import int64, uint64

from connect4.bits import popcount
from connect4.geometry import Geometry
from connect4.jit import kernel
from connect4.wide import wide_kernels_for

from .minimax import WIN_VALUE
from .wide_evaluation import wide_line_tables


@cache
def wide_minimax_kernels(g: Geometry) -> SimpleNamespace:
    tag = f"wide{g.width}x{g.height}k{g.k}"
    K, W, H = g.k, g.width, g.height
    COL = uint64((1 << H) - 1)
    T = wide_line_tables(g)
    N_LINES = T.n_lines
    L_COLS, L_ROWS = T.cols, T.rows
    ORDER = np.array(g.center_order(), dtype=np.int64)
    CENTRE = np.zeros(W, dtype=np.uint64)
    for c in {(W - 1) // 2, W // 2}:  # one centre column, or both middle ones on even widths
        CENTRE[c] = (1 << H) - 1
    wk = wide_kernels_for(g)
    win_cells = wk.winning_cells

    @kernel(tag)
    def window_eval(me, opp, w):
        s = int64(0)
        for c in range(W):
            s += int64(popcount(me[c] & CENTRE[c])) * w[4]
        for i in range(N_LINES):
            m = 0
            o = 0
            for j in range(K):
                c = L_COLS[i, j]
                r = uint64(L_ROWS[i, j])
                m += int64((me[c] >> r) & uint64(1))
                o += int64((opp[c] >> r) & uint64(1))
            if o == 0:
                if m == K:
                    s += w[0]
                elif m == K - 1:
                    s += w[1]
                elif m == K - 2 and K > 2:
                    s += w[2]
            elif m == 0:
                if o == K - 1:
                    s += w[3]
                elif o == K - 2 and K > 2:
                    s += w[5]
        return s

    @kernel(tag)
    def full(mask):
        for c in range(W):  # noqa: SIM110 (numba compiles no generator expressions)
            if mask[c] != COL:
                return False
        return True

    @kernel(tag)
    def wins_now(side, mask, buf):
        """Does ``side`` have a winning cell on top of a column?"""
        win_cells(side, mask, buf)
        for c in range(W):  # noqa: SIM110 (numba compiles no generator expressions)
            if buf[c] & (mask[c] + uint64(1)) & COL:
                return True
        return False

    @kernel(tag)
    def minimax(ai, hu, mask, depth, alpha, beta, maximizing, w, nodes, bufs):
        """As the single-word minimax (AI's view), playing in place; ``bufs[depth]`` is scratch."""
        nodes[0] += 1
        if full(mask):
            return int64(0)
        if depth == 0:
            return window_eval(ai, hu, w)
        if nodes[1] != 0:
            return int64(0)
        mover = ai if maximizing != 0 else hu
        if wins_now(mover, mask, bufs[depth]):
            return int64(WIN_VALUE + depth) if maximizing != 0 else -int64(WIN_VALUE + depth)
        v = -int64(1 << 40) if maximizing != 0 else int64(1 << 40)
        for k in range(W):
            c = ORDER[k]
            b = (mask[c] + uint64(1)) & COL
            if b == 0:
                continue
            mover[c] |= b
            mask[c] |= b
            s = minimax(ai, hu, mask, depth - 1, alpha, beta, maximizing ^ 1, w, nodes, bufs)
            mover[c] ^= b
            mask[c] ^= b
            if maximizing != 0:
                if s > v:
                    v = s
                if v > alpha:
                    alpha = v
            else:
                if s < v:
                    v = s
                if v < beta:
                    beta = v
            if alpha >= beta:
                break
        return v

    @kernel(tag)
    def root_values(cur, mask0, depth, w, out, nodes):
        """Exact minimax value of every column (``out``; full columns untouched)."""
        if nodes.shape[0] < 2:
            raise ValueError("nodes must hold [node count, stop flag]")
        ai = cur.copy()
        mask = mask0.copy()
        hu = np.empty(W, dtype=np.uint64)
        for c in range(W):
            hu[c] = cur[c] ^ mask[c]
        bufs = np.zeros((depth + 1, W), dtype=np.uint64)
        wins = np.zeros(W, dtype=np.uint64)
        win_cells(ai, mask, wins)
        opponent_moves = int64(0)
        for c in range(W):
            b = (mask[c] + uint64(1)) & COL
            if b == 0:
                continue
            if wins[c] & b:
                out[c] = WIN_VALUE + depth
            else:
                ai[c] |= b
                mask[c] |= b
                out[c] = minimax(ai, hu, mask, depth - 1, -int64(1 << 40), int64(1 << 40), opponent_moves, w,
                                 nodes, bufs)
                ai[c] ^= b
                mask[c] ^= b

    return SimpleNamespace(window_eval=window_eval, minimax=minimax, root_values=root_values)
