"""The one home of the bitboard primitives, compiled with numba per board.

``kernels_for(geometry)`` returns jitted functions that close over the geometry
as constants, so LLVM folds the shifts of a 7x6 board into straight-line bit
arithmetic. All bitboards are uint64 in the layout of :mod:`connect4.geometry`.
The engine, the solver, the books and the game library take their bit
primitives from here:

===================== =========================================================
``winning_cells``     empty cells where a side would complete a line: Pascal
                      Pons' formula for K = 4 where its shifts fit in 64 bits,
                      else the shift-table test (``winning_cells_table``)
``winning_cells_table`` the shift-table test, any K (:func:`line_terms`)
``alignment``         whether a side holds K in a row
``possible``          the landing cell of every open column
``lowest_per_column`` the lowest set cell of every column of a set of cells
``mirror``            a bitboard or key reflected left to right
``popcount``, ``ctz`` set bits, index of the lowest set bit (:mod:`connect4.bits`;
                      intrinsics: callable from kernels only)
===================== =========================================================

The Python-side key functions (``mirror_bits``, ``decode_key``...) are in
:mod:`connect4.keys`; the shift tables (:func:`direction_steps`,
:func:`line_terms`, :func:`run_steps`) below.
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace
from typing import Any

import numpy as np
from numba import uint64

from .bits import ctz, popcount
from .errors import InvalidGeometry
from .geometry import MAX_BITS, Geometry
from .jit import kernel

Bits = Any
"""A uint64 bitboard inside a numba kernel (numba types it; mypy cannot see numba's types)."""

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


def pons_k4_fits(g: Geometry) -> bool:
    """Whether Pons' K = 4 formula applies: lines of 4, and three steps of the
    longest direction (up-right, ``h1 + 1`` bits) stay inside 64 bits."""
    return g.k == 4 and 3 * (g.h1 + 1) < MAX_BITS


def family_for(g: Geometry) -> SimpleNamespace:
    """The kernel family of a board: these single-word kernels when its bits fit
    in 64, else the multi-word family of :mod:`connect4.wide` (``.wide`` tells)."""
    if g.wide:
        from .wide import wide_kernels_for

        return wide_kernels_for(g)
    return kernels_for(g)


def require_single_word(g: Geometry, what: str) -> None:
    """InvalidGeometry naming ``what`` when it only runs on boards of one 64-bit word."""
    if g.wide:
        raise InvalidGeometry(
            f"board {g.width}x{g.height} needs {g.bits} bits: {what} runs on boards with "
            f"width*(height+1) <= {MAX_BITS} only"
        )


@cache
def kernels_for(g: Geometry) -> SimpleNamespace:
    """Compile (or load from numba's cache) the single-word kernels of one geometry."""
    require_single_word(g, "this part (the single-word kernels)")
    tag = f"{g.width}x{g.height}k{g.k}"
    K = g.k
    W, H1 = g.width, g.h1
    BOTTOM = uint64(g.bottom_mask)
    BOARD = uint64(g.board_mask)
    SENTINELS = uint64(g.bottom_mask << g.height)  # the bit above every column
    COLUMN = uint64((1 << H1) - 1)  # one column's bits, its sentinel included
    TERMS = line_terms(g)
    N_TERMS = TERMS.shape[0]
    STEPS = np.array(run_steps(g), dtype=np.int64)
    N_STEPS = STEPS.shape[0]
    V1, V2, V3 = uint64(1), uint64(2), uint64(3)

    @kernel(tag)
    def shifted(pos: Bits, offset: int) -> Bits:
        # Stone at x + offset moved onto x (offset may be negative).
        if offset > 0:
            return pos >> uint64(offset)
        return pos << uint64(-offset)

    @kernel(tag)
    def winning_cells_table(pos: Bits, mask: Bits) -> Bits:
        """Empty cells where ``pos`` would complete a line of K (any K)."""
        r = uint64(0)
        for t in range(N_TERMS):
            m = BOARD
            for i in range(K - 1):
                m &= shifted(pos, TERMS[t, i])
            r |= m
        return r & (BOARD ^ mask)

    @kernel(tag)
    def winning_cells_k4(pos: Bits, mask: Bits) -> Bits:
        """Empty cells where ``pos`` would complete 4 in a row (Pons' compute_winning_position)."""
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

    @kernel(tag)
    def alignment(pos: Bits) -> bool:
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
    def possible(mask: Bits) -> Bits:
        """The landing cell of every column that is not full."""
        return (mask + BOTTOM) & BOARD

    @kernel(tag)
    def lowest_per_column(cells: Bits) -> Bits:
        """The lowest cell of ``cells`` in every column, all columns at once."""
        # With each column's sentinel set, subtracting BOTTOM borrows only
        # inside a column, and y & ~(y - 1) keeps the lowest bit of each group.
        y = cells | SENTINELS
        return y & ~(y - BOTTOM) & BOARD

    @kernel(tag)
    def mirror(bits: Bits) -> Bits:
        """Column c <-> column W-1-c of a bitboard or key (sentinel bits move with their column)."""
        r = uint64(0)
        for c in range(W):
            r |= ((bits >> uint64(c * H1)) & COLUMN) << uint64((W - 1 - c) * H1)
        return r

    return SimpleNamespace(
        geometry=g,
        wide=False,
        winning_cells=winning_cells_k4 if pons_k4_fits(g) else winning_cells_table,
        winning_cells_table=winning_cells_table,
        winning_cells_k4=winning_cells_k4,
        alignment=alignment,
        possible=possible,
        lowest_per_column=lowest_per_column,
        mirror=mirror,
        popcount=popcount,
        ctz=ctz,
        shifted=shifted,
    )
