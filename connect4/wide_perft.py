"""perft on boards past 64 bits: the multi-word twin of :mod:`connect4.perft`.

The same walk (a finished game or a full board has no children), on one word
per column (:mod:`connect4.wide`), with the family's ``alignment`` as the line
test, so perft against a cell-by-cell count is an oracle for the kernels too.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
from numba import int64, uint64

from .geometry import Geometry
from .jit import kernel
from .wide import wide_kernels_for


@cache
def wide_perft_kernel(g: Geometry) -> Any:
    W = g.width
    TOP = uint64(1 << (g.height - 1))  # a column word's top cell
    alignment = wide_kernels_for(g).alignment

    @kernel(f"wide{g.name}")
    def perft(current: Any, mask: Any, depth: int) -> Any:
        if depth == 0:
            return int64(1)
        cur = np.empty((depth, W), dtype=np.uint64)  # the side to move's stones, ply by ply
        msk = np.empty((depth, W), dtype=np.uint64)
        col = np.empty(depth, dtype=np.int64)
        child_cur = np.empty(W, dtype=np.uint64)
        cur[0, :] = current
        msk[0, :] = mask
        col[0] = -1
        count = int64(0)
        ply = 0
        while ply >= 0:
            col[ply] += 1
            c = col[ply]
            if c >= W:
                ply -= 1
                continue
            if msk[ply, c] & TOP:
                continue
            if ply + 1 == depth:
                count += 1
                continue
            # The mover's stones after its stone in c: the opponent of the child.
            for x in range(W):
                child_cur[x] = cur[ply, x] ^ msk[ply, x]
            landing = (msk[ply, c] + uint64(1)) & ~msk[ply, c]
            mover = cur[ply].copy()
            mover[c] |= landing
            if alignment(mover):
                continue  # the mover has completed a line: the game is over
            ply += 1
            for x in range(W):
                cur[ply, x] = child_cur[x]
                msk[ply, x] = msk[ply - 1, x]
            msk[ply, c] |= landing
            col[ply] = -1
        return count

    return perft
