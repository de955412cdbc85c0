"""perft: count the move sequences of a given length (an exact oracle).

A finished game (a line of K completed) has no children; a full board none
either. Counts for 7x6: 7, 49, 343, 2401, 16807, 117649, 823536, 5673234.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import int64

from .geometry import Geometry
from .jit import kernel
from .kernels import kernels_for

if TYPE_CHECKING:
    from .position import Position


@cache
def perft_kernel(g: Geometry) -> Any:
    W = g.width
    BOTTOM_CELL = np.array([g.bottom_cell(c) for c in range(W)], dtype=np.uint64)
    TOP = np.array([g.top_mask(c) for c in range(W)], dtype=np.uint64)
    alignment = kernels_for(g).alignment

    @kernel(g.name)
    def perft(current: Any, mask: Any, depth: int) -> Any:
        if depth == 0:
            return int64(1)
        cur = np.empty(depth, dtype=np.uint64)
        msk = np.empty(depth, dtype=np.uint64)
        col = np.empty(depth, dtype=np.int64)
        cur[0], msk[0], col[0] = current, mask, -1
        count = int64(0)
        ply = 0
        while ply >= 0:
            col[ply] += 1
            c = col[ply]
            if c >= W:
                ply -= 1
                continue
            m = msk[ply]
            if m & TOP[c]:
                continue
            child_mask = m | (m + BOTTOM_CELL[c])
            child_current = cur[ply] ^ m  # the opponent becomes the side to move
            if ply + 1 == depth:
                count += 1
                continue
            if alignment(child_current ^ child_mask):
                continue  # the mover has completed a line: the game is over
            ply += 1
            cur[ply], msk[ply], col[ply] = child_current, child_mask, -1
        return count

    return perft


def perft(pos: Position, depth: int) -> int:
    """Number of move sequences of ``depth`` plies from ``pos``."""
    if pos.is_over:
        return 1 if depth == 0 else 0
    g = pos.geometry
    if g.wide:
        from .wide import to_words
        from .wide_perft import wide_perft_kernel

        return int(wide_perft_kernel(g)(to_words(pos.current, g), to_words(pos.mask, g), depth))
    return int(perft_kernel(pos.geometry)(np.uint64(pos.current), np.uint64(pos.mask), depth))
