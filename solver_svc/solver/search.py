"""The search kernels of one board geometry (numba).

``search_kernels(geometry)`` compiles, or loads from numba's cache, a
negamax that closes over the board size as constants. The search is Pascal
Pons' (alpha-beta negamax, null windows, a table of bounds, threat ordering,
no move that loses at once, score bounds from the empty cells) with:

* lower and upper bounds kept together in one table entry, and the best move
  (the move that cut, or the best of an exact node) tried first on a revisit;
* one entry for a position and its mirror image (the key is the smaller of
  the two) and, for a symmetric position, only the left half of the moves;
* a ``[lo, hi]`` window from the table and the cell count before any move is
  generated;
* enhanced transposition cutoffs: far from the end, every child is looked up
  in the table before any is searched, and a child whose stored upper bound
  already refutes it cuts the node (about -20% nodes on Test_L1_R2).

The kernels share an int64 ``state`` array (see :mod:`.table`): nodes
searched, node budget, abort flag, table shift, write-log fill. A search that
runs out of budget, or finds ``stop[0] != 0``, sets the abort flag and
unwinds without storing anything.
"""

from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import numpy as np
from numba import int64, uint64

from connect4.geometry import Geometry
from connect4.jit import kernel  # per-geometry names and self-recursion handled there
from connect4.kernels import line_terms

from .table import ABORT, BUDGET, HASH_MUL, LOG_N, LOG_OVERFLOW, NODES, SHIFT

ETC_MIN_EMPTY = 8  # probe the children in the table first when this many cells are empty
STOP_CHECK = 1023


def winning_cells_k4(g: Geometry):
    """Pons' compute_winning_position for lines of 4, any board with
    3 * (height + 2) < 64; returns None when shifts would leave the word."""
    H1 = g.h1
    if 3 * (H1 + 1) >= 64:
        return None
    BOARD = uint64(g.board_mask)
    V1, V2, V3 = uint64(1), uint64(2), uint64(3)
    tag = f"{g.width}x{g.height}k{g.k}"

    @kernel(tag)
    def winning_cells(pos, mask):
        """Empty cells where ``pos`` would complete 4 in a row."""
        # vertical: three stones right below the cell
        r = (pos << V1) & (pos << V2) & (pos << V3)
        for d in (H1, H1 - 1, H1 + 1):  # horizontal, diagonal \, diagonal /
            d1, d2, d3 = uint64(d), uint64(2 * d), uint64(3 * d)
            p = (pos << d1) & (pos << d2)  # two stones at -1, -2 steps
            r |= p & (pos << d3)  # ... and -3: cell at the right end
            r |= p & (pos >> d1)  # ... and +1: cell third of four
            p = (pos >> d1) & (pos >> d2)  # two stones at +1, +2 steps
            r |= p & (pos << d1)  # ... and -1: cell second of four
            r |= p & (pos >> d3)  # ... and +3: cell at the left end
        return r & (BOARD ^ mask)  # only empty cells of the board (no sentinels)

    return winning_cells


def winning_cells_generic(g: Geometry):
    """Any K: the shift table of connect4.kernels.line_terms, compiled here
    so its cache files are per geometry too."""
    K = g.k
    BOARD = uint64(g.board_mask)
    TERMS = line_terms(g)
    N_TERMS = TERMS.shape[0]
    tag = f"{g.width}x{g.height}k{g.k}"

    @kernel(tag)
    def winning_cells(pos, mask):
        """Empty cells where ``pos`` would complete a line of K."""
        r = uint64(0)
        for t in range(N_TERMS):
            m = BOARD
            for i in range(K - 1):
                o = TERMS[t, i]  # the stone at x + o must be set: move it onto x
                m &= (pos >> uint64(o)) if o > 0 else (pos << uint64(-o))
            r |= m
        return r & (BOARD ^ mask)

    return winning_cells


@lru_cache(maxsize=None)
def search_kernels(g: Geometry) -> SimpleNamespace:
    tag = f"{g.width}x{g.height}k{g.k}"
    W, H1, CELLS = g.width, g.h1, g.cells
    BOTTOM = uint64(g.bottom_mask)
    BOARD = uint64(g.board_mask)
    COL = np.array([g.column_mask(c) for c in range(W)], dtype=np.uint64)
    COL1 = uint64((1 << H1) - 1)  # one column of the key, marker bit included
    ORDER = np.array(g.center_order(), dtype=np.int64)
    LEFT_HALF = uint64(sum(g.column_mask(c) for c in range(W) if c <= W - 1 - c))
    MUL = uint64(HASH_MUL)
    ZERO, ONE = uint64(0), uint64(1)
    M6 = uint64(63)
    NEG_INF, POS_INF = -32, 31

    win_cells = winning_cells_k4(g) if g.k == 4 else None
    if win_cells is None:
        win_cells = winning_cells_generic(g)

    @kernel(tag)
    def popcount(x):
        # SWAR popcount; LLVM turns it into one popcnt instruction
        x = x - ((x >> uint64(1)) & uint64(0x5555555555555555))
        x = (x & uint64(0x3333333333333333)) + ((x >> uint64(2)) & uint64(0x3333333333333333))
        x = (x + (x >> uint64(4))) & uint64(0x0F0F0F0F0F0F0F0F)
        return int64((x * uint64(0x0101010101010101)) >> uint64(56))

    @kernel(tag)
    def mirror(key):
        """Column c <-> column W-1-c of a key or bitboard."""
        r = ZERO
        for c in range(W):
            r |= ((key >> uint64(c * H1)) & COL1) << uint64((W - 1 - c) * H1)
        return r

    @kernel(tag)
    def probe_upper(tt, st, cur, mask):
        """The stored upper bound of a position, NO_UPPER when absent."""
        key = cur + mask + BOTTOM
        mkey = mirror(key)
        h = (mkey if mkey < key else key) * MUL
        shift = uint64(st[SHIFT])
        low_bits = uint64(64) - shift
        word = tt[int64(h >> shift)]
        if (word >> low_bits) << low_bits == h << low_bits:
            return int64((word >> uint64(6)) & M6) - 32
        return POS_INF

    @kernel(tag)
    def store(tt, log, st, idx, tag_, lower, upper, col, flip):
        if tt[idx] == ZERO:  # a fresh slot: remember it for a cheap reset
            n = st[LOG_N]
            if n < log.shape[0]:
                log[n] = idx
                st[LOG_N] = n + 1
            else:
                st[LOG_OVERFLOW] = 1
        m = 0
        if col >= 0:
            m = (W - 1 - col if flip else col) + 1
        tt[idx] = tag_ | uint64(((lower + 32) << 12) | ((upper + 32) << 6) | m)

    @kernel(tag)
    def negamax(cur, mask, ply, alpha, beta, tt, log, st, stop, mv, sc):
        """Score of (cur, mask) within [alpha, beta] (fail-hard bounds).

        Precondition: the side to move cannot win at once and the board is not
        full. Returns r with: r <= alpha -> score <= r; r >= beta -> score >= r;
        else score == r.
        """
        n = st[NODES] + 1
        st[NODES] = n
        if n > st[BUDGET] or ((n & STOP_CHECK) == 0 and stop[0] != 0):
            st[ABORT] = 1
            return 0

        opp = cur ^ mask
        possible = (mask + BOTTOM) & BOARD  # the carry lands on each column's lowest empty cell
        opp_win = win_cells(opp, mask)
        forced = possible & opp_win
        if forced:
            if forced & (forced - ONE):  # more than one bit: two threats, cannot block both
                return -((CELLS - ply) // 2)
            possible = forced  # must block the one threat
        moves = possible & ~(opp_win >> ONE)  # never play right under an opponent's winning cell
        if moves == ZERO:
            return -((CELLS - ply) // 2)  # every move lets the opponent win next
        if ply >= CELLS - 2:
            return 0  # nobody can win in the last two moves

        # Bounds from the empty cells: we cannot win now, nor lose next move.
        lo = -((CELLS - 2 - ply) // 2)
        hi = (CELLS - 1 - ply) // 2

        # Transposition table, keyed by the smaller of the key and its mirror.
        key = cur + mask + BOTTOM
        mkey = mirror(key)
        flip = mkey < key
        ck = mkey if flip else key
        h = ck * MUL
        shift = uint64(st[SHIFT])
        low_bits = uint64(64) - shift
        idx = int64(h >> shift)  # top L bits pick the slot
        tag_ = h << low_bits  # the other 64-L bits identify the key exactly
        word = tt[idx]
        tlo, thi, tmove = NEG_INF, POS_INF, -1
        if (word >> low_bits) << low_bits == tag_:
            tlo = int64((word >> uint64(12)) & M6) - 32
            thi = int64((word >> uint64(6)) & M6) - 32
            m = int64(word & M6)
            if m:
                tmove = m - 1
                if flip:
                    tmove = W - 1 - tmove
            if tlo > lo:
                lo = tlo
            if thi < hi:
                hi = thi
        if alpha < lo:
            alpha = lo
            if alpha >= beta:
                return alpha
        if beta > hi:
            beta = hi
            if alpha >= beta:
                return beta

        if key == mkey:
            moves &= LEFT_HALF  # symmetric position: the right half mirrors the left

        # Order: table move first, then by winning cells created, centre first on ties.
        base = ply * W
        cnt = 0
        for i in range(W):
            c = ORDER[i]
            m = moves & COL[c]
            if m:
                s = popcount(win_cells(cur | m, mask))
                if c == tmove:
                    s = 1000
                if CELLS - ply >= ETC_MIN_EMPTY:
                    # Enhanced transposition cutoff: a child's stored upper bound
                    # is a lower bound for us, maybe enough to cut at once.
                    u = -probe_upper(tt, st, cur ^ mask, mask | m)
                    if u >= beta:
                        return u
                    if u > alpha:
                        alpha = u
                j = cnt
                while j > 0 and sc[base + j - 1] < s:  # insertion sort, stable
                    sc[base + j] = sc[base + j - 1]
                    mv[base + j] = mv[base + j - 1]
                    j -= 1
                sc[base + j] = s
                mv[base + j] = c
                cnt += 1

        a0 = alpha
        best = tmove
        for i in range(cnt):
            c = mv[base + i]
            # child: the opponent moves; its stones are our old opp, our stone joins the mask
            score = -negamax(cur ^ mask, mask | (moves & COL[c]), ply + 1, -beta, -alpha, tt, log, st, stop, mv, sc)
            if st[ABORT]:
                return 0
            if score >= beta:
                store(tt, log, st, idx, tag_, max(score, tlo), thi, c, flip)
                return score
            if score > alpha:
                alpha = score
                best = c
        if alpha > a0:
            store(tt, log, st, idx, tag_, alpha, alpha, best, flip)
        else:
            store(tt, log, st, idx, tag_, tlo, min(alpha, thi), best, flip)
        return alpha

    @kernel(tag)
    def half(x):
        # C's x / 2 (truncates toward zero), as in Pons' solver
        return x // 2 if x >= 0 else -((-x) // 2)

    @kernel(tag)
    def solve(cur, mask, ply, weak, tt, log, st, stop, mv, sc):
        """Exact score (weak: clamped to -1..1) of a position where the side
        to move cannot win at once; null-window searches narrow [lo, hi]."""
        lo = -((CELLS - ply) // 2)
        hi = (CELLS + 1 - ply) // 2
        if weak:
            lo, hi = -1, 1
        while lo < hi:
            med = lo + (hi - lo) // 2
            # probe near 0 first: most positions are close to a draw
            if med <= 0 and half(lo) < med:
                med = half(lo)
            elif med >= 0 and half(hi) > med:
                med = half(hi)
            r = negamax(cur, mask, ply, med, med + 1, tt, log, st, stop, mv, sc)
            if st[ABORT]:
                return 0
            if r <= med:
                hi = r
            else:
                lo = r
        return lo

    @kernel(tag)
    def can_win_next(cur, mask):
        return (win_cells(cur, mask) & (mask + BOTTOM) & BOARD) != ZERO

    return SimpleNamespace(
        geometry=g,
        solve=solve,
        negamax=negamax,
        can_win_next=can_win_next,
        win_cells=win_cells,
        mirror=mirror,
        popcount=popcount,
    )
