"""The multi-word kernel family: boards past 64 bits (8x8, 9x7 ... 16x16).

Layout: a board is a uint64 array of ``width`` words, **one word per column**,
bit ``r`` of word ``c`` the cell (c, r), bottom row first; only the low
``height`` bits of a word are cells (no sentinels: a column is its own word,
so nothing can wrap into the next one). Why this layout rather than Pons'
layout spread over 2..5 words: every line of K cells stays inside K
neighbouring words with a fixed shift per word (vertical: the same word
shifted by 1 a step; horizontal: the next word, same bit; diagonals: the next
word shifted by +-1), so no shift ever carries between words, any K up to 16
is the same code, and playing a stone touches one word. Heights of up to 16
cells use 16 of a word's 64 bits: the price is memory, not operations.

Python-side bitboards stay plain integers in Pons' layout
(:mod:`connect4.geometry`: column ``c`` at bits ``c*(H+1)..``), exact at any
width; :func:`to_words` and :func:`from_words` convert at the kernel's edge.

Keys. The exact key of a large board is Pons' key ``current + mask + bottom``
as a Python integer of ``width*(height+1)`` bits (``Position.key()``: exact and
invertible, :func:`connect4.keys.decode_key`). Kernels that need a 64-bit key
(tables) use ``key64``: the FNV-1a fold of the column key words
``current[c] + mask[c] + 1`` (each a column's stones below a marker bit,
distinct for distinct columns), then the splitmix64 finaliser. Being a hash,
two positions may share a ``key64``; a table that must be exact stores the
words too. Books stay 7x6.

===================== =========================================================
``possible``          the landing cell of every open column (into ``out``)
``alignment``         whether a side holds K in a row anywhere
``line_through``      whether the stone at (c, r) is on a line of K (one move's test)
``winning_cells``     empty cells where a side would complete a line (into ``out``):
                      Pons' K = 4 formula on column words for K = 4, else a
                      walk of partner runs (``winning_cells_any``)
``lowest_per_column`` the lowest cell of a set of cells in every column
``popcount``          set bits over the words
``mirror``            the words reflected left to right
``key64``             the 64-bit hash key above
===================== =========================================================
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace
from typing import Any

import numpy as np
from numba import int64, uint64

from .bits import popcount as popcount1
from .geometry import Geometry
from .jit import kernel

Words = Any
"""A uint64 array of one word per column inside a numba kernel."""

# (dc, dr) of the four directions: up, right, up-right, down-right.
WIDE_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3


def to_words(bits: int, g: Geometry) -> np.ndarray:
    """A Python bitboard in Pons' layout -> one uint64 word per column."""
    column = (1 << g.h1) - 1
    return np.array([(bits >> (c * g.h1)) & column for c in range(g.width)], dtype=np.uint64)


def kernel_board(bits: int, g: Geometry) -> Any:
    """A Python bitboard as the kernels of its board take it: a uint64 on
    boards of one word, one word per column past 64 bits."""
    return to_words(bits, g) if g.wide else np.uint64(bits)


def from_words(words: np.ndarray, g: Geometry) -> int:
    """One word per column -> a Python bitboard in Pons' layout."""
    out = 0
    for c in range(g.width):
        out |= int(words[c]) << (c * g.h1)
    return out


@cache
def wide_kernels_for(g: Geometry) -> SimpleNamespace:
    """Compile (or load from numba's cache) the multi-word kernels of one board."""
    tag = f"wide{g.width}x{g.height}k{g.k}"
    W, H, K = g.width, g.height, g.k
    COL = uint64((1 << H) - 1)  # the cells of one column word

    @kernel(tag)
    def shifted(word: Any, dr: int) -> Any:
        # Cell (c', r + dr) moved onto row r (dr may be negative; |dr| < 16).
        if dr >= 0:
            return word >> uint64(dr)
        return (word << uint64(-dr)) & COL

    @kernel(tag)
    def possible(mask: Words, out: Words) -> None:
        """The landing cell of every column that is not full (+1 carries into
        the lowest empty bit; a full column carries past the cells)."""
        for c in range(W):
            out[c] = (mask[c] + uint64(1)) & COL

    @kernel(tag)
    def alignment(pos: Words) -> bool:
        """True when ``pos`` holds K in a row in any direction."""
        for d in range(4):
            dc = 1 if d > 0 else 0
            dr = 1 if d == 0 or d == 2 else (-1 if d == 3 else 0)
            for c in range(W - (K - 1) * dc):
                m = pos[c]
                for i in range(1, K):
                    m &= shifted(pos[c + i * dc], i * dr)  # bit r: cell (c + i dc, r + i dr) is set
                if m:
                    return True
        return False

    @kernel(tag)
    def line_through(pos: Words, c: int, r: int) -> bool:
        """True when the stone of ``pos`` at (c, r) is on a line of K: counts
        the run through it both ways along each direction."""
        for d in range(4):
            dc = 1 if d > 0 else 0
            dr = 1 if d == 0 or d == 2 else (-1 if d == 3 else 0)
            n = 1
            cc, rr = c + dc, r + dr
            while 0 <= cc < W and 0 <= rr < H and (pos[cc] >> uint64(rr)) & uint64(1):
                n += 1
                cc += dc
                rr += dr
            cc, rr = c - dc, r - dr
            while 0 <= cc < W and 0 <= rr < H and (pos[cc] >> uint64(rr)) & uint64(1):
                n += 1
                cc -= dc
                rr -= dr
            if n >= K:
                return True
        return False

    @kernel(tag)
    def winning_cells_k4(pos: Words, mask: Words, out: Words) -> None:
        """Pons' K = 4 formula per column word: runs of 1-3 partners on either
        side, ``l3 | l2&r1 | l1&r2 | r3`` per direction (a straight-line version of the general walk below)."""
        for c in range(W):
            p = pos[c]
            r = (p << uint64(1)) & (p << uint64(2)) & (p << uint64(3))  # three stones right below
            for dr in (0, 1, -1):  # horizontal, diagonal /, diagonal \
                # partners off the board count as empty
                l1 = shifted(pos[c - 1], -dr) if c >= 1 else uint64(0)
                l2 = l1 & (shifted(pos[c - 2], -2 * dr) if c >= 2 else uint64(0))
                l3 = l2 & (shifted(pos[c - 3], -3 * dr) if c >= 3 else uint64(0))
                r1 = shifted(pos[c + 1], dr) if c + 1 < W else uint64(0)
                r2 = r1 & (shifted(pos[c + 2], 2 * dr) if c + 2 < W else uint64(0))
                r3 = r2 & (shifted(pos[c + 3], 3 * dr) if c + 3 < W else uint64(0))
                r |= l3 | (l2 & r1) | (l1 & r2) | r3
            out[c] = r & ~mask[c] & COL

    @kernel(tag)
    def winning_cells_any(pos: Words, mask: Words, out: Words) -> None:
        """Empty cells where ``pos`` would complete a line of K (any K), column by column.

        For a direction and a cell x of column c, ``left`` holds the cells whose
        j nearest partners on one side (-1..-j steps) are set, and a line is
        complete when the K-1-j partners on the other side are set too; ``left``
        only shrinks as j grows, so the walk stops once it is empty."""
        for c in range(W):
            r = uint64(0)
            for d in range(4):
                dc = 1 if d > 0 else 0
                dr = 1 if d == 0 or d == 2 else (-1 if d == 3 else 0)
                left = COL
                for j in range(K):
                    if j > 0:
                        cc = c - j * dc
                        if cc < 0:
                            break
                        left &= shifted(pos[cc], -j * dr)
                        if left == 0:
                            break
                    right = left
                    for i in range(1, K - j):
                        cc = c + i * dc
                        if cc >= W:
                            right = uint64(0)
                            break
                        right &= shifted(pos[cc], i * dr)
                    r |= right
            out[c] = r & ~mask[c] & COL

    @kernel(tag)
    def lowest_per_column(cells: Words, out: Words) -> None:
        """The lowest cell of ``cells`` in every column (x & -x per word)."""
        for c in range(W):
            x = cells[c]
            out[c] = x & (~x + uint64(1))

    @kernel(tag)
    def popcount(words: Words) -> Any:
        n = int64(0)
        for c in range(W):
            n += int64(popcount1(words[c]))  # type: ignore[call-arg,operator]  # an intrinsic: numba types it
        return n

    @kernel(tag)
    def mirror(words: Words, out: Words) -> None:
        """Column c <-> column W-1-c."""
        for c in range(W):
            out[W - 1 - c] = words[c]

    @kernel(tag)
    def key64(cur: Words, mask: Words) -> Any:
        """The 64-bit hash key of (cur, mask): FNV-1a over the column key words, splitmix64's finaliser."""
        h = uint64(FNV_OFFSET)
        for c in range(W):
            h = (h ^ (cur[c] + mask[c] + uint64(1))) * uint64(FNV_PRIME)
        h = (h ^ (h >> uint64(30))) * uint64(0xBF58476D1CE4E5B9)
        h = (h ^ (h >> uint64(27))) * uint64(0x94D049BB133111EB)
        return h ^ (h >> uint64(31))

    def alignment_int(bits: int) -> bool:
        """``alignment`` of a Python bitboard (Pons' layout)."""
        return bool(alignment(to_words(bits, g)))

    def winning_cells_int(pos: int, mask: int) -> int:
        """``winning_cells`` of Python bitboards (Pons' layout), as one."""
        out = np.zeros(W, dtype=np.uint64)
        (winning_cells_k4 if K == 4 else winning_cells_any)(to_words(pos, g), to_words(mask, g), out)
        return from_words(out, g)

    return SimpleNamespace(
        geometry=g,
        wide=True,
        possible=possible,
        alignment=alignment,
        line_through=line_through,
        winning_cells=winning_cells_k4 if K == 4 else winning_cells_any,
        winning_cells_k4=winning_cells_k4,
        winning_cells_any=winning_cells_any,
        lowest_per_column=lowest_per_column,
        popcount=popcount,
        mirror=mirror,
        key64=key64,
        shifted=shifted,
        alignment_int=alignment_int,
        winning_cells_int=winning_cells_int,
    )
