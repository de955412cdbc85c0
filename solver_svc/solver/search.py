"""The search of the solver (numba): Pons' negamax and his null-window driver.

``search_kernels_of(geometry)`` makes, for one board size, a negamax that
closes over the size as constants: two of them, one for the main table
(buckets of two words; each entry keeps its work, the bit length of the
nodes its search took, for the replacement) and one for the small table of
a fresh search's start (one word a slot, :mod:`.table`). The search is
Pascal Pons' (alpha-beta negamax, null windows, a table of bounds, threat ordering, no move that
loses at once, score bounds from the empty cells) with:

* lower and upper bounds kept together in one table entry, and the best move
  (the move that cut, or the best of an exact node) tried first on a revisit
  (:mod:`.table`, :mod:`.ordering`);
* one entry for a position and its mirror image (the key is the smaller of
  the two) and, for a symmetric position, only the left half of the moves;
* a ``[lo, hi]`` window from the table and the cell count before any move is
  generated;
* enhanced transposition cutoffs (:mod:`.ordering`);
* Allis' claimeven as a static bound, before the table is read: when every
  column has an even number of empty cells, the other side can answer every
  move on top of it and so own the rows of the other parity; if that leaves
  the side to move no line, its score is at most 0 (at most -1 when it gives
  the other side a line).

The kernels share an int64 workspace ``ws`` (see :mod:`.table`): nodes
searched, node budget, abort flag, epoch and table shifts, then the move
lists. A search that runs out of budget, or finds ``stop[0] != 0``, sets the
abort flag and unwinds without storing anything.
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

from numba import int64, uint64

from connect4.bits import bit_length
from connect4.geometry import Geometry
from connect4.kernels import kernels_for

from .jit import kernel, table_tag, tag_of
from .masks import board_masks
from .pointer import pointer
from .ordering import NO_CUT, move_list_offsets, ordering_kernels
from .layout import MAIN_PAIRS, MAX_WORK, NO_SCORE, SMALL_PAIRS
from .table import ABORT, BUDGET, IN_SMALL, NO_BUDGET, NODES, REAL_BUDGET, table_kernels

STOP_CHECK = 1023  # the stop flag is read every 1024 nodes


@cache
def search_kernels_of(g: Geometry) -> SimpleNamespace:
    tag = tag_of(g)
    b = board_masks(g)
    W, CELLS, BOTTOM, BOARD, COL, MCOL, TOP = b.W, b.CELLS, b.BOTTOM, b.BOARD, b.COL, b.MCOL, b.TOP
    LEFT_HALF = uint64(sum(g.column_mask(c) for c in range(W) if c <= W - 1 - c))
    ZERO, ONE = uint64(0), uint64(1)
    MV, _ = move_list_offsets(g)
    bits = kernels_for(g)
    win_cells, mirror, alignment = bits.winning_cells, bits.mirror, bits.alignment
    # Claimeven rows: with an even number of empty cells in every column, the side to move gets the
    # rows of the height's parity and the other side the rest, by answering on top of every move.
    MOVER_ROWS = uint64(sum(g.bottom_mask << r for r in range(g.height) if r % 2 == g.height % 2))
    FOLLOWER_ROWS = BOARD ^ MOVER_ROWS
    main_table = table_kernels(g, MAIN_PAIRS)
    migrate, swap_layout = main_table.migrate, main_table.swap_layout

    def negamax_for(pairs: bool):
        """The negamax of a search in the main table (``pairs``: buckets of two words) or in the small one."""
        ktag = table_tag(g, pairs)
        table = table_kernels(g, pairs)
        canonical_slot, read, store = table.canonical_slot, table.read, table.store
        order_moves = ordering_kernels(g, pairs).order_moves

        @kernel(ktag)
        def work(ws, n):
            """The work of the node that began at node count ``n`` (the small table keeps none): the
            bit length of the nodes it spent, at most MAX_WORK."""
            if not pairs:
                return 0
            return min(int64(bit_length(uint64(ws[NODES] - n))), MAX_WORK)

        @kernel(ktag)
        def negamax_at(cur, mask, mcur, mmask, ply, alpha, beta, tt, ws, stop):
            """Score of (cur, mask) within [alpha, beta] (fail-hard bounds);
            (mcur, mmask) is its mirror image, carried along so that a node never
            mirrors a board (the mirror key of the table and of the children's).

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
            if ((mask + BOTTOM) & FOLLOWER_ROWS) == ZERO:  # every column has an even number of empty cells
                free = BOARD & ~mask
                if not alignment(cur | (free & MOVER_ROWS)):
                    hi = 0  # claimeven: the opponent answers on top of every move; we never get a line
                    if alignment(opp | (free & FOLLOWER_ROWS)):
                        hi = -1
                    if beta > hi:
                        beta = hi
                        if alpha >= beta:
                            return beta

            # Transposition table, keyed by the smaller of the key and its mirror.
            idx, want, flip, symmetric = canonical_slot(cur + mask + BOTTOM, mcur + mmask + BOTTOM, ws)
            tlo, thi, tmove = read(tt, idx, want, flip)
            first = tt[idx]  # the bucket's first word (in the cache since the read): for the store
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

            if symmetric:
                moves &= LEFT_HALF  # a symmetric position: the right half mirrors the left

            cnt, alpha, cut = order_moves(cur, mask, mcur, mmask, moves, ply, tmove, alpha, beta, tt, ws)
            if cut != NO_CUT:
                return cut

            a0 = alpha
            best = tmove
            mplay = mmask + BOTTOM  # carries onto each mirrored column's lowest empty cell
            base = uint64(MV + ply * W)
            for i in range(cnt):
                c = ws[base + uint64(i)]  # unsigned indices: no wraparound code
                uc = uint64(c)
                # child: the opponent moves; its stones are our old opp, our stone joins the mask
                # (in the mirror image: the same height of column W-1-c)
                score = -negamax_at(cur ^ mask, mask | (moves & COL[uc]), mcur ^ mmask, mmask | (mplay & MCOL[uc]),
                                 ply + 1, -beta, -alpha, tt, ws, stop)
                if ws[ABORT]:
                    return 0
                if score >= beta:
                    store(tt, idx, want, max(score, tlo), thi, c, flip, work(ws, n), first, ws)
                    return score
                if score > alpha:
                    alpha = score
                    best = c
            if alpha > a0:
                store(tt, idx, want, alpha, alpha, best, flip, work(ws, n), first, ws)
            else:
                store(tt, idx, want, tlo, min(alpha, thi), best, flip, work(ws, n), first, ws)
            return alpha

        @kernel(ktag)
        def negamax(cur, mask, mcur, mmask, ply, alpha, beta, tt, ws, stop):
            """``negamax_at`` on arrays: the recursion passes their data pointers (:mod:`.pointer`)."""
            return negamax_at(cur, mask, mcur, mmask, ply, alpha, beta, pointer(tt), pointer(ws), pointer(stop))

        return negamax

    negamax = negamax_for(MAIN_PAIRS)
    negamax_small = negamax_for(SMALL_PAIRS)

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
    def grow(small, tt, ws, stop):
        """After an abort in the small table: True when it came from GROW_AT
        (not the budget, not the stop flag); then the search moves to the
        main table ``tt`` with every entry found so far."""
        if ws[IN_SMALL] == 0 or stop[0] != 0 or ws[NODES] > ws[REAL_BUDGET]:
            return False
        migrate(small, tt, ws)
        swap_layout(ws)
        ws[BUDGET] = ws[REAL_BUDGET]
        ws[IN_SMALL] = 0
        ws[ABORT] = 0
        return True

    @kernel(tag)
    def score_of(cur, mask, ply, weak, tt, small, ws, stop):
        """Exact score (weak: its sign) of a position that is not over;
        null-window searches narrow [lo, hi]. Check ws[ABORT] after. The
        search uses ``small`` while ``ws[IN_SMALL]`` (see :mod:`.table`),
        else ``tt``."""
        if can_win_next(cur, mask):
            return 1 if weak else (CELLS + 1 - ply) // 2
        lo = -((CELLS - ply) // 2)
        hi = (CELLS + 1 - ply) // 2
        if weak:
            lo, hi = -1, 1
        mcur, mmask = mirror(cur), mirror(mask)
        while lo < hi:
            med = lo + (hi - lo) // 2
            # probe near 0 first: most positions are close to a draw
            if med <= 0 and half(lo) < med:
                med = half(lo)
            elif med >= 0 and half(hi) > med:
                med = half(hi)
            if ws[IN_SMALL]:
                r = negamax_small(cur, mask, mcur, mmask, ply, med, med + 1, small, ws, stop)
            else:
                r = negamax(cur, mask, mcur, mmask, ply, med, med + 1, tt, ws, stop)
            if ws[ABORT]:
                if grow(small, tt, ws, stop):
                    continue  # the same window again, in the main table
                return 0
            if r <= med:
                hi = r
            else:
                lo = r
        if weak:
            return (lo > 0) - (lo < 0)
        return lo

    @kernel(tag)
    def analyze_into(cur, mask, ply, weak, tt, small, ws, stop, out, at):
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
            s = score_of(cur ^ mask, child, ply + 1, weak, tt, small, ws, stop)
            if ws[ABORT]:
                return
            out[at + c] = -s

    return SimpleNamespace(negamax=negamax, can_win_next=can_win_next, begin=begin, score_of=score_of,
                           analyze_into=analyze_into, win_cells=win_cells)
