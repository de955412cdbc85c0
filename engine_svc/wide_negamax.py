"""The search kernels on boards past 64 bits: the negamax of
:mod:`engine_svc.negamax` (the same tactics, PVS, late-move reductions,
table rules and drivers) over one word per column (:mod:`connect4.wide`).

The entry points keep the single-word signatures with the position as two
word arrays (``cur``: the side to move's stones, ``mask``), so
:class:`engine_svc.search.Engine` drives either family. Inside, a search
works on one uint64 array ``bb`` made per call: the rows ``FIRST`` and
``SECOND`` (each player's stones) and ``MASK``, updated in place by play and
undo, then per ply the side to move's winning cells (``MW + ply``, handed
down by the parent as in the single-word search) and the opponent's
(``OW + ply``). A column has at most one landing cell, so the safe moves of a
node are a bit set of columns. The table key is the family's ``key64``.
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

import numpy as np
from numba import int64, uint64

from connect4.geometry import Geometry
from connect4.jit import kernel
from connect4.wide import wide_kernels_for

from .negamax import CHECK_EVERY, ST_BEST, ST_FIXED, ST_NODES, ST_STOP, UNDECIDED
from .ordering import REDUCE_AFTER, move_order
from .scores import INF, MATE
from .tt import EXACT, LOWER, NO_MOVE, UPPER, tt_bound, tt_depth, tt_gen, tt_lookup, tt_move, tt_pack, tt_score, tt_slot
from .wide_evaluation import wide_eval_kernels, wide_line_tables

FIRST_ROW, SECOND_ROW, MASK_ROW, MW = 0, 1, 2, 3


@cache
def wide_search_kernels(g: Geometry) -> SimpleNamespace:
    tag = f"wide{g.width}x{g.height}k{g.k}"
    ek = wide_eval_kernels(g)
    wk = wide_kernels_for(g)
    win_cells = wk.winning_cells
    key64 = wk.key64
    threat_term = ek.threat_term
    play_lines = ek.play_lines
    line_delta = ek.line_delta
    undo_lines = ek.undo_lines
    W, H1, CELLS = g.width, g.h1, g.cells
    COL = uint64((1 << g.height) - 1)
    ORDER = move_order(g)
    MASK_CHECK = uint64(CHECK_EVERY - 1)
    OW = MW + CELLS + 2
    ROWS = OW + CELLS + 2
    ST_HEIGHTS = ST_FIXED
    ST_LINES = ST_FIXED + W

    @kernel(tag)
    def threats(bb, ply, alpha, beta):
        """The tactics below the root (see the single-word ``threats``): the
        safe columns as a bit set, the narrowed window, or a decided value."""
        nforced = 0
        forced = 0
        safe = 0
        for c in range(W):
            p = (bb[MASK_ROW, c] + uint64(1)) & COL
            if p == 0:
                continue
            ow = bb[OW + ply, c]
            if p & ow:
                nforced += 1
                forced |= 1 << c
            if p & ~(ow >> uint64(1)):  # not right under an opponent's winning cell
                safe |= 1 << c
        lost = -int64(MATE + CELLS - ply - 1)
        if nforced >= 2:
            return 0, alpha, beta, lost
        if nforced == 1:
            safe &= forced
        if safe == 0:
            return 0, alpha, beta, lost
        hi = int64(MATE + CELLS - ply - 2)
        if beta > hi:
            beta = hi
            if alpha >= beta:
                return safe, alpha, beta, beta
        lo = -int64(MATE + CELLS - ply - 3)
        if alpha < lo:
            alpha = lo
            if alpha >= beta:
                return safe, alpha, beta, alpha
        return safe, alpha, beta, int64(UNDECIDED)

    @kernel(tag)
    def can_win_now(bb, ply):
        """The first column where the side to move completes a line now, else -1."""
        for c in range(W):
            if (bb[MASK_ROW, c] + uint64(1)) & COL & bb[MW + ply, c]:
                return c
        return -1

    @kernel(tag)
    def leaf(bb, ply, alpha, beta, ls):
        if ply == CELLS:
            return int64(0)
        if can_win_now(bb, ply) >= 0:
            return int64(MATE + CELLS - ply)
        side = ply & 1
        win_cells(bb[1 - side], bb[MASK_ROW], bb[OW + ply])
        moves, alpha, beta, value = threats(bb, ply, alpha, beta)
        if value != UNDECIDED:
            return value
        if side == 0:
            return ls + threat_term(bb[MW + ply], bb[OW + ply])
        return -(ls + threat_term(bb[OW + ply], bb[MW + ply]))

    @kernel(tag)
    def hand_down(bb, ply, c, bit):
        """The child's winning cells of its side to move: ours' opponent's, less the cell just filled."""
        for x in range(W):
            bb[MW + ply + 1, x] = bb[OW + ply, x]
        bb[MW + ply + 1, c] &= ~bit

    @kernel(tag)
    def negamax(bb, ply, depth, alpha, beta, ls, st, tt, tshift, gen, at_root):
        st[ST_NODES] += 1
        if (uint64(st[ST_NODES]) & MASK_CHECK) == 0 and st[ST_STOP]:
            return int64(0)
        if depth <= 0:
            return leaf(bb, ply, alpha, beta, ls)
        if ply == CELLS:
            return int64(0)
        side = ply & 1
        win = can_win_now(bb, ply)
        if win >= 0:
            if at_root:
                st[ST_BEST] = win
            return int64(MATE + CELLS - ply)
        win_cells(bb[1 - side], bb[MASK_ROW], bb[OW + ply])
        if at_root:
            moves = 0
            for c in range(W):
                if (bb[MASK_ROW, c] + uint64(1)) & COL:
                    moves |= 1 << c
        else:
            moves, alpha, beta, value = threats(bb, ply, alpha, beta)
            if value != UNDECIDED:
                return value

        key = key64(bb[side], bb[MASK_ROW])
        slot = tt_slot(key, tshift) * uint64(2)
        ttmove = -1
        use_tt = depth >= 2 or at_root
        if use_tt and tt[slot] == key:
            d = tt[slot + uint64(1)]
            if tt_gen(d) == gen:
                ts = tt_score(d)
                tdepth = tt_depth(d)
                tb = tt_bound(d)
                tm = tt_move(d)
                if tm != NO_MOVE:
                    ttmove = tm
                if not at_root:
                    if tdepth >= depth:
                        if tb == EXACT:
                            return ts
                        if tb == LOWER and ts >= beta:
                            return ts
                        if tb == UPPER and ts <= alpha:
                            return ts
                    elif ts > MATE and tb != UPPER and ts >= beta:  # noqa: SIM114 (as in the single-word search)
                        return ts
                    elif ts < -MATE and tb != LOWER and ts <= alpha:
                        return ts

        alpha0 = alpha
        best = -int64(INF)
        bestmove = -1
        first = True
        searched = 0
        not_root = int64(0)
        for k in range(-1, W):
            if k < 0:
                c = ttmove
                if c < 0:
                    continue
            else:
                c = ORDER[k]
                if c == ttmove:
                    continue
            if not (moves >> c) & 1:
                continue
            h = st[ST_HEIGHTS + c]
            bit = uint64(1) << uint64(h)
            cell = c * H1 + h
            hand_down(bb, ply, c, bit)
            bb[side, c] |= bit
            bb[MASK_ROW, c] |= bit
            if depth == 1:
                st[ST_NODES] += 1
                v = -leaf(bb, ply + 1, -beta, -alpha, ls + line_delta(st, ST_LINES, cell, side))
                bb[side, c] ^= bit
                bb[MASK_ROW, c] ^= bit
                if v > best:
                    best = v
                    bestmove = c
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
                continue
            st[ST_HEIGHTS + c] += 1
            nls = ls + play_lines(st, ST_LINES, cell, side)
            if first:
                v = -negamax(bb, ply + 1, depth - 1, -beta, -alpha, nls, st, tt, tshift, gen, not_root)
            else:
                d1 = depth - 1
                if searched >= REDUCE_AFTER and depth >= 3 and ply + depth < CELLS and not at_root:
                    d1 = depth - 2
                v = -negamax(bb, ply + 1, d1, -alpha - 1, -alpha, nls, st, tt, tshift, gen, not_root)
                if v > alpha and d1 < depth - 1:
                    v = -negamax(bb, ply + 1, depth - 1, -alpha - 1, -alpha, nls, st, tt, tshift, gen, not_root)
                if alpha < v < beta:
                    v = -negamax(bb, ply + 1, depth - 1, -beta, -alpha, nls, st, tt, tshift, gen, not_root)
            undo_lines(st, ST_LINES, cell, side)
            st[ST_HEIGHTS + c] -= 1
            bb[side, c] ^= bit
            bb[MASK_ROW, c] ^= bit
            if st[ST_STOP]:
                return int64(0)
            first = False
            searched += 1
            if v > best:
                best = v
                bestmove = c
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        if use_tt:
            bound = UPPER if best <= alpha0 else (LOWER if best >= beta else EXACT)
            tt[slot] = key
            tt[slot + uint64(1)] = tt_pack(best, depth, bound, bestmove, gen)
        if at_root:
            st[ST_BEST] = bestmove
        return best

    @kernel(tag)
    def boards(cur, mask, ply):
        """The work array of a search from the side to move's stones and the mask."""
        bb = np.zeros((ROWS, W), dtype=np.uint64)
        side = ply & 1
        for c in range(W):
            bb[side, c] = cur[c]
            bb[1 - side, c] = cur[c] ^ mask[c]
            bb[MASK_ROW, c] = mask[c]
        win_cells(bb[side], bb[MASK_ROW], bb[MW + ply])
        return bb

    @kernel(tag)
    def root(cur, mask, ply, depth, alpha, beta, ls, st, tt, tshift, gen):
        st[ST_BEST] = -1
        bb = boards(cur, mask, ply)
        score = negamax(bb, ply, depth, alpha, beta, ls, st, tt, tshift, gen, int64(1))
        if st[ST_STOP]:
            return int64(0), -1
        return score, st[ST_BEST]

    @kernel(tag)
    def mtdf(cur, mask, ply, depth, guess, ls, st, tt, tshift, gen):
        lower = -int64(INF)
        upper = int64(INF)
        g = guess
        move = -1
        passes = 0
        while lower < upper:
            if passes >= 6 and lower > -INF and upper < INF:
                beta = (lower + upper + 1) // 2
            else:
                beta = g + 1 if g == lower else g
            s, m = root(cur, mask, ply, depth, beta - 1, beta, ls, st, tt, tshift, gen)
            if st[ST_STOP]:
                return int64(0), -1
            g = s
            if g < beta:
                upper = g
            else:
                lower = g
                move = m
            passes += 1
        return g, move

    @kernel(tag)
    def alphabeta(cur, mask, ply, depth, ls, st, tt, tshift, gen):
        return root(cur, mask, ply, depth, -int64(INF), int64(INF), ls, st, tt, tshift, gen)

    st_size = ST_LINES + wide_line_tables(g).n_lines
    st = np.zeros(st_size, dtype=np.int64)
    tt = np.zeros(2048, dtype=np.uint64)
    zero = np.zeros(W, dtype=np.uint64)
    ek.init_lines(st, ST_LINES, zero, zero)
    tt_lookup(tt, np.uint64(54), np.uint64(1), np.uint64(0))
    mtdf(zero, zero, 0, 1, int64(0), int64(0), st, tt, np.uint64(54), 1)
    alphabeta(zero, zero, 0, 1, int64(0), st, tt, np.uint64(54), 1)
    return SimpleNamespace(negamax=negamax, root=root, mtdf=mtdf, alphabeta=alphabeta, geometry=g,
                           st_size=st_size)
