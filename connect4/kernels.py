"""Bitboard kernels for one board geometry, compiled with numba.

``kernels_for(geometry)`` returns jitted functions that close over the geometry
as constants, so LLVM folds the shifts of a 7x6 board into straight-line bit
arithmetic. All bitboards are uint64 in the layout of :mod:`connect4.geometry`.
"""

from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import numpy as np
from numba import uint64

from .geometry import MAX_BITS, Geometry
from .jit import kernel

DIRECTIONS = ("vertical", "horizontal", "diagonal /", "diagonal \\")


def direction_steps(g: Geometry) -> tuple[int, ...]:
    """Bit distance between neighbours: up, right, up-right, down-right."""
    return (1, g.h1, g.h1 + 1, g.h1 - 1)


def line_terms(g: Geometry) -> np.ndarray:
    """Shift table for the winning-cell test.

    A cell x completes a line when the K-1 other cells of some line through it
    hold stones. For every direction d and every place j of x in the line the
    other cells sit at x + (i - j) * d, i != j; a row of the table holds those
    K-1 signed offsets. Rows reaching 64 bits or more can never be all set (the
    board has fewer bits) and are dropped.
    """
    rows = []
    for d in direction_steps(g):
        for j in range(g.k):
            offsets = [(i - j) * d for i in range(g.k) if i != j]
            if all(abs(o) < MAX_BITS for o in offsets):
                rows.append(offsets)
    return np.array(rows, dtype=np.int64).reshape(len(rows), g.k - 1)


def run_steps(g: Geometry) -> tuple[int, ...]:
    """Directions whose K-cell span fits in 64 bits."""
    return tuple(d for d in direction_steps(g) if (g.k - 1) * d < MAX_BITS)


@lru_cache(maxsize=None)
def kernels_for(g: Geometry) -> SimpleNamespace:
    """Compile (or load from numba's cache) the kernels of one geometry."""
    tag = f"{g.width}x{g.height}k{g.k}"
    K = g.k
    BOTTOM = uint64(g.bottom_mask)
    BOARD = uint64(g.board_mask)
    TERMS = line_terms(g)
    N_TERMS = TERMS.shape[0]
    STEPS = np.array(run_steps(g), dtype=np.int64)
    N_STEPS = STEPS.shape[0]

    @kernel(tag)
    def shifted(pos, offset):
        # Stone at x + offset moved onto x (offset may be negative).
        if offset > 0:
            return pos >> uint64(offset)
        return pos << uint64(-offset)

    @kernel(tag)
    def winning_cells(pos, mask):
        """Empty cells where ``pos`` would complete a line of K."""
        r = uint64(0)
        for t in range(N_TERMS):
            m = BOARD
            for i in range(K - 1):
                m &= shifted(pos, TERMS[t, i])
            r |= m
        return r & (BOARD ^ mask)

    @kernel(tag)
    def alignment(pos):
        """True when ``pos`` holds K in a row in any direction."""
        for s in range(N_STEPS):
            d = STEPS[s]
            m = pos
            for i in range(1, K):
                m &= pos >> uint64(i * d)
            if m:
                return True
        return False

    @kernel(tag)
    def possible(mask):
        """The landing cell of every column that is not full."""
        return (mask + BOTTOM) & BOARD

    @kernel(tag)
    def popcount(x):
        n = 0
        while x:
            x &= x - uint64(1)
            n += 1
        return n

    return SimpleNamespace(
        geometry=g,
        winning_cells=winning_cells,
        alignment=alignment,
        possible=possible,
        popcount=popcount,
        shifted=shifted,
    )
