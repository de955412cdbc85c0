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

Entry points (each one numba call; Python only checks and converts):

* ``solve_pos`` — exact (or weak) score of one position;
* ``analyze_pos`` — the score of every column;
* ``test_pos`` — one null-window search: is the score above a bound?
* ``run_batch`` — many positions given as move lists: replays and checks
  every move (off the board, full column, a move that wins at once, as
  Pons' c4solver rules), optionally starts each from a fresh table (a new
  epoch), and solves or analyzes it;
* ``preload`` — write exact scores into the table.

The kernels share an int64 workspace ``ws`` (see :mod:`.table`): nodes
searched, node budget, abort flag, epoch and table shifts, then the move
lists. A search that runs out of budget, or finds ``stop[0] != 0``, sets the
abort flag and unwinds without storing anything.

All kernels are compiled without numba's reference counting (``_nrt=False``):
they never allocate, and the recursive ``negamax`` otherwise paid an
increment and a decrement of every array argument on every node (-25% time).
"""

from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import numpy as np
from numba import int64, uint64

from connect4.geometry import Geometry
from connect4.jit import kernel as _kernel  # per-geometry names and self-recursion handled there
from connect4.kernels import kernels_for

from .table import (ABORT, BUDGET, EPOCH, EPOCH_BITS, EPOCH_MAX, HASH_MUL, IDX_SHIFT, NO_BUDGET, NODES,
                    STATE_SIZE, TAG_MASK, key_bits, move_bits)

ETC_MIN_EMPTY = 8  # probe the children in the table first when this many cells are empty
STOP_CHECK = 1023

# run_batch: flags and the error codes of a move list
WEAK, ANALYZE, FRESH = 1, 2, 4
OK, OFF_BOARD, FULL_COLUMN, WINS, ABORTED = 0, 1, 2, 3, 4
NO_SCORE = -1000  # a full column in an analysis (c4solver's value)

KERNEL_VERSION = "3"  # part of every kernel's cache name: bump to drop old cache files


def kernel(tag: str):
    """The project's cached kernel, without reference counting."""
    return _kernel(f"{tag}v{KERNEL_VERSION}", _nrt=False)


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


@lru_cache(maxsize=None)
def search_kernels(g: Geometry) -> SimpleNamespace:
    tag = f"{g.width}x{g.height}k{g.k}"
    W, H1, CELLS = g.width, g.h1, g.cells
    BOTTOM = uint64(g.bottom_mask)
    BOARD = uint64(g.board_mask)
    COL = np.array([g.column_mask(c) for c in range(W)], dtype=np.uint64)
    TOP = np.array([g.top_mask(c) for c in range(W)], dtype=np.uint64)
    COL1 = uint64((1 << H1) - 1)  # one column of the key, marker bit included
    ORDER = np.array(g.center_order(), dtype=np.int64)
    LEFT_HALF = uint64(sum(g.column_mask(c) for c in range(W) if c <= W - 1 - c))
    KB = key_bits(g)
    KMASK = uint64((1 << KB) - 1)
    MUL = uint64(HASH_MUL)
    PAY = uint64(12 + move_bits(W))  # payload bits of a table word
    ZERO, ONE = uint64(0), uint64(1)
    M6 = uint64(63)
    NEG_INF, POS_INF = -32, 31
    MV = STATE_SIZE  # ws offset of the move lists, one row of W a ply
    SC = STATE_SIZE + (CELLS + 1) * W  # ... and of their ordering scores

    win_cells = winning_cells_k4(g) if g.k == 4 else None
    if win_cells is None:  # any K: the game library's shift-table kernel
        win_cells = kernels_for(g).winning_cells

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
    def slot(ckey, ws):
        """(index, expected high bits) of a canonical key in this epoch."""
        h = (ckey * MUL) & KMASK
        idx = int64(h >> uint64(ws[IDX_SHIFT]))
        hi = ((h & uint64(ws[TAG_MASK])) << uint64(ws[EPOCH_BITS])) | uint64(ws[EPOCH])
        return idx, hi

    @kernel(tag)
    def probe_upper(tt, ws, cur, mask):
        """The stored upper bound of a position, NO_UPPER when absent."""
        key = cur + mask + BOTTOM
        mkey = mirror(key)
        idx, hi = slot(mkey if mkey < key else key, ws)
        word = tt[idx]
        if (word >> PAY) == hi:
            return int64((word >> uint64(6)) & M6) - 32
        return POS_INF

    @kernel(tag)
    def store(tt, idx, hi, lower, upper, col, flip):
        m = 0
        if col >= 0:
            m = (W - 1 - col if flip else col) + 1
        tt[idx] = (hi << PAY) | uint64((lower + 32) | ((upper + 32) << 6) | (m << 12))

    @kernel(tag)
    def negamax(cur, mask, ply, alpha, beta, tt, ws, stop):
        """Score of (cur, mask) within [alpha, beta] (fail-hard bounds).

        Precondition: the side to move cannot win at once and the board is not
        full. Returns r with: r <= alpha -> score <= r; r >= beta -> score >= r;
        else score == r.
        """
        n = ws[NODES] + 1
        ws[NODES] = n
        if n > ws[BUDGET] or ((n & STOP_CHECK) == 0 and stop[0] != 0):
            ws[ABORT] = 1
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
        idx, want = slot(mkey if flip else key, ws)
        word = tt[idx]
        tlo, thi, tmove = NEG_INF, POS_INF, -1
        if (word >> PAY) == want:
            tlo = int64(word & M6) - 32
            thi = int64((word >> uint64(6)) & M6) - 32
            m = int64((word & ((ONE << PAY) - ONE)) >> uint64(12))
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
                    u = -probe_upper(tt, ws, cur ^ mask, mask | m)
                    if u >= beta:
                        return u
                    if u > alpha:
                        alpha = u
                j = cnt
                while j > 0 and ws[SC + base + j - 1] < s:  # insertion sort, stable
                    ws[SC + base + j] = ws[SC + base + j - 1]
                    ws[MV + base + j] = ws[MV + base + j - 1]
                    j -= 1
                ws[SC + base + j] = s
                ws[MV + base + j] = c
                cnt += 1

        a0 = alpha
        best = tmove
        for i in range(cnt):
            c = ws[MV + base + i]
            # child: the opponent moves; its stones are our old opp, our stone joins the mask
            score = -negamax(cur ^ mask, mask | (moves & COL[c]), ply + 1, -beta, -alpha, tt, ws, stop)
            if ws[ABORT]:
                return 0
            if score >= beta:
                store(tt, idx, want, max(score, tlo), thi, c, flip)
                return score
            if score > alpha:
                alpha = score
                best = c
        if alpha > a0:
            store(tt, idx, want, alpha, alpha, best, flip)
        else:
            store(tt, idx, want, tlo, min(alpha, thi), best, flip)
        return alpha

    @kernel(tag)
    def half(x):
        # C's x / 2 (truncates toward zero), as in Pons' solver
        return x // 2 if x >= 0 else -((-x) // 2)

    @kernel(tag)
    def can_win_next(cur, mask):
        return (win_cells(cur, mask) & (mask + BOTTOM) & BOARD) != ZERO

    @kernel(tag)
    def begin(ws, budget):
        ws[NODES] = 0
        ws[ABORT] = 0
        ws[BUDGET] = budget if budget > 0 else NO_BUDGET

    @kernel(tag)
    def new_epoch(tt, ws):
        if ws[EPOCH] >= ws[EPOCH_MAX]:
            tt[:] = ZERO
            ws[EPOCH] = 1
        else:
            ws[EPOCH] += 1

    @kernel(tag)
    def score_of(cur, mask, ply, weak, tt, ws, stop):
        """Exact score (weak: its sign) of a position that is not over;
        null-window searches narrow [lo, hi]. Check ws[ABORT] after."""
        if can_win_next(cur, mask):
            return 1 if weak else (CELLS + 1 - ply) // 2
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
            r = negamax(cur, mask, ply, med, med + 1, tt, ws, stop)
            if ws[ABORT]:
                return 0
            if r <= med:
                hi = r
            else:
                lo = r
        if weak:
            return (lo > 0) - (lo < 0)
        return lo

    @kernel(tag)
    def analyze_into(cur, mask, ply, weak, tt, ws, stop, out, at):
        """out[at + c] = score of playing column c (NO_SCORE when full), from
        the side to move of a position that is not over."""
        wins = win_cells(cur, mask)
        win_now = 1 if weak else (CELLS + 1 - ply) // 2
        for c in range(W):
            if mask & TOP[c]:
                out[at + c] = NO_SCORE
                continue
            landing = (mask + BOTTOM) & COL[c]
            if wins & landing:
                out[at + c] = win_now
                continue
            child = mask | landing
            if child == BOARD:
                out[at + c] = 0  # the last cell, no line: a draw
                continue
            s = score_of(cur ^ mask, child, ply + 1, weak, tt, ws, stop)
            if ws[ABORT]:
                return
            out[at + c] = -s

    @kernel(tag)
    def solve_pos(cur, mask, ply, weak, budget, tt, ws, stop):
        begin(ws, budget)
        return score_of(uint64(cur), uint64(mask), ply, weak, tt, ws, stop)

    @kernel(tag)
    def analyze_pos(cur, mask, ply, weak, budget, tt, ws, stop, out):
        begin(ws, budget)
        analyze_into(uint64(cur), uint64(mask), ply, weak, tt, ws, stop, out, 0)

    @kernel(tag)
    def test_pos(cur, mask, ply, bound, budget, tt, ws, stop):
        """Is the score of a position that is not over larger than ``bound``?
        One null-window search (check ws[ABORT] after)."""
        begin(ws, budget)
        c, m = uint64(cur), uint64(mask)
        if can_win_next(c, m):
            return (CELLS + 1 - ply) // 2 > bound
        return negamax(c, m, ply, bound, bound + 1, tt, ws, stop) > bound

    @kernel(tag)
    def run_batch(moves, starts, flags, budget, tt, ws, stop, scores, nodes, errors):
        """Replay, check and solve (or analyze) every move list
        ``moves[starts[i]:starts[i+1]]`` (0-based columns). Writes scores
        (``W`` a position when analyzing), nodes and ``errors[2i], [2i+1]`` =
        (code, 1-based move). Returns the number of positions done: fewer
        than asked only when a search was stopped (its code is ABORTED)."""
        weak = (flags & WEAK) != 0
        analyze = (flags & ANALYZE) != 0
        fresh = (flags & FRESH) != 0
        n = starts.shape[0] - 1
        for i in range(n):
            cur = ZERO
            mask = ZERO
            code = OK
            at = 0
            for j in range(starts[i], starts[i + 1]):
                c = int64(moves[j])
                at += 1
                if c >= W:
                    code = OFF_BOARD
                    break
                if mask & TOP[c]:
                    code = FULL_COLUMN
                    break
                landing = (mask + BOTTOM) & COL[c]
                if win_cells(cur, mask) & landing:
                    code = WINS
                    break
                cur ^= mask
                mask |= landing
            nodes[i] = 0
            errors[2 * i] = code
            errors[2 * i + 1] = at if code != OK else 0
            if code != OK:
                continue
            ply = at
            if mask == BOARD:  # a full board without a line: a draw, nothing to play
                if analyze:
                    for c in range(W):
                        scores[i * W + c] = NO_SCORE
                else:
                    scores[i] = 0
                continue
            if stop[0] != 0:
                errors[2 * i] = ABORTED
                return i
            if fresh:
                new_epoch(tt, ws)
            begin(ws, budget)
            if analyze:
                analyze_into(cur, mask, ply, weak, tt, ws, stop, scores, i * W)
            else:
                scores[i] = score_of(cur, mask, ply, weak, tt, ws, stop)
            nodes[i] = ws[NODES]
            if ws[ABORT]:
                errors[2 * i] = ABORTED
                return i
        return n

    @kernel(tag)
    def preload(keys, values, tt, ws):
        """Store exact scores (lower = upper, no move) of positions given by
        their keys (either orientation)."""
        for i in range(keys.shape[0]):
            key = keys[i]
            mkey = mirror(key)
            idx, want = slot(mkey if mkey < key else key, ws)
            store(tt, idx, want, values[i], values[i], -1, False)

    return SimpleNamespace(
        geometry=g,
        loaded=set(),  # entry points already made ready (see quickload)
        solve_pos=solve_pos,
        analyze_pos=analyze_pos,
        test_pos=test_pos,
        run_batch=run_batch,
        preload=preload,
        negamax=negamax,
        can_win_next=can_win_next,
        win_cells=win_cells,
        mirror=mirror,
        popcount=popcount,
    )
