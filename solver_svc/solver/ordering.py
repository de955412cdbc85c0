"""Move ordering of the solver (Pons' MoveSorter), with enhanced transposition cutoffs.

``order_moves`` writes the moves of one ply into the workspace, best first:
the table's move, then by the number of winning cells the move creates for
the side to move, the centre first on ties (an insertion sort, stable over
the centre-first column order). Far from the end (``ETC_MIN_EMPTY`` empty
cells or more) it also looks every child up in the table before any is
searched: a child's stored upper bound is a lower bound for us, which may
raise alpha or cut the node at once.

In the main table it first asks the CPU to prefetch every child's bucket
(:func:`.pointer.prefetch`): the loads of a node's children then overlap,
where each child used to wait for its own cache miss (-27 % CPU on Test_L1_R3;
the small table is in the cache anyway). With the children's loads cheap,
ETC pays only far from the end: from 16 empty cells it took less CPU than
from 8 or 12, for more nodes (docs/results/solver.md, 8 Dec 2026).
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

import numpy as np
from numba import int64, uint64

from connect4.geometry import Geometry
from connect4.kernels import kernels_for

from .jit import kernel, table_tag
from .masks import board_masks
from .table import STATE_SIZE, table_kernels

ETC_MIN_EMPTY = 16  # probe the children in the table first when this many cells are empty
NO_CUT = -1000  # order_moves found no child that cuts
TABLE_MOVE = 1000  # the ordering score of the table's move: always first


def move_list_offsets(g: Geometry) -> tuple[int, int]:
    """ws offsets of the move lists (one row of ``width`` a ply) and of their ordering scores."""
    return STATE_SIZE, STATE_SIZE + (g.cells + 1) * g.width


@cache
def ordering_kernels(g: Geometry, pairs: bool) -> SimpleNamespace:
    """The ordering of a search in a table of buckets of two (``pairs``) or of one word."""
    tag = table_tag(g, pairs)
    b = board_masks(g)
    W, CELLS, COL, MCOL, BOTTOM = b.W, b.CELLS, b.COL, b.MCOL, b.BOTTOM
    ORDER = np.array(g.center_order(), dtype=np.int64)
    MV, SC = (uint64(v) for v in move_list_offsets(g))
    ONE = uint64(1)
    bits = kernels_for(g)
    win_cells, popcount = bits.winning_cells, bits.popcount
    table = table_kernels(g, pairs)
    probe_upper, prefetch_slot = table.probe_upper, table.prefetch_slot
    PREFETCH = pairs  # the main table only

    # Inlined into negamax in numba's IR: as a call returning a tuple it cost
    # 6 % more instructions a node (docs/results/split-speed.md).
    @kernel(tag, inline="always")
    def order_moves(cur, mask, mcur, mmask, moves, ply, tmove, alpha, beta, tt, ws):
        """Sort ``moves`` (one bit a column) into ``ws[MV + ply*W ...]``;
        ``mcur``, ``mmask``: the mirror image of ``cur``, ``mask``.
        Returns (count, alpha raised by the children's stored bounds, the
        score that cuts the node or NO_CUT)."""
        base = ply * W
        ubase = uint64(base)
        cnt = 0
        etc = CELLS - ply >= ETC_MIN_EMPTY
        # the children's keys (opponent to move, our stone added) and their mirror images':
        # key = cur + mask + bottom, so child key = (cur ^ mask) + (mask | m) + bottom = that + m
        ckey = (cur ^ mask) + mask + BOTTOM
        cmkey = (mcur ^ mmask) + mmask + BOTTOM
        mplay = (mmask + BOTTOM)  # carries onto each mirrored column's lowest empty cell
        if PREFETCH:  # every child's bucket on its way into the cache before the first is probed
            for i in range(W):
                uc = uint64(ORDER[i])
                m = moves & COL[uc]
                if m:
                    prefetch_slot(tt, ws, ckey + m, cmkey + (mplay & MCOL[uc]))
        for i in range(W):
            c = ORDER[i]
            uc = uint64(c)
            m = moves & COL[uc]
            if m:
                s = int64(popcount(win_cells(cur | m, mask)))
                if c == tmove:
                    s = TABLE_MOVE
                if etc:
                    u = -probe_upper(tt, ws, ckey + m, cmkey + (mplay & MCOL[uc]))
                    if u >= beta:
                        return cnt, alpha, u
                    if u > alpha:
                        alpha = u
                # insertion sort, stable; unsigned indices: no wraparound code for negative ones
                j = uint64(base + cnt)
                while j > ubase and ws[SC + j - ONE] < s:
                    ws[SC + j] = ws[SC + j - ONE]
                    ws[MV + j] = ws[MV + j - ONE]
                    j -= ONE
                ws[SC + j] = s
                ws[MV + j] = c
                cnt += 1
        return cnt, alpha, NO_CUT

    return SimpleNamespace(order_moves=order_moves)
