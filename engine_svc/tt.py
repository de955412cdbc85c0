"""The transposition table: two flat numpy arrays the numba search reads and writes.

One entry is 16 bytes in one uint64 array, side by side so a probe touches
one cache line: ``table[2i]`` the full position key, ``table[2i+1]`` a packed
word::

    bits  0..31  score + 2**31       (int32 stored unsigned)
    bits 32..39  depth searched       (plies)
    bits 40..41  bound                (1 lower, 2 upper, 3 exact)
    bits 48..55  best column          (255: none)
    bits 56..63  generation           (entries of an older search are invisible)

The slot is ``(key * golden) >> shift`` over a power-of-two number of slots
(Fibonacci hashing spreads Pons' keys, whose low bits are very regular).
Always-replace: the newest result is the most useful one in a search that
revisits the same subtrees every iteration. ``new_search`` bumps the
generation instead of clearing 64 MB, so a search that calls it starts from
an empty table (and is deterministic) at no cost; the engine calls it for
every search at a fixed depth, while timed searches keep the generation and
so everything earlier timed searches stored.
"""

from __future__ import annotations

import numpy as np
from numba import int64, uint64

from connect4.jit import kernel

LOWER, UPPER, EXACT = 1, 2, 3
NO_MOVE = 255
SCORE_BIAS = 1 << 31
HASH_MUL = uint64(0x9E3779B97F4A7C15)  # 2**64 / golden ratio
ENTRY_BYTES = 16
DEFAULT_MB = 64


@kernel("tt")
def tt_slot(key, shift):
    return (key * HASH_MUL) >> shift


@kernel("tt")
def tt_pack(score, depth, bound, move, gen):
    return (uint64(score + SCORE_BIAS) | (uint64(depth) << uint64(32)) | (uint64(bound) << uint64(40))
            | (uint64(move) << uint64(48)) | (uint64(gen) << uint64(56)))


# Reading a packed word, field by field (the layout above).
@kernel("tt")
def tt_score(d):
    return int64(d & uint64(0xFFFFFFFF)) - SCORE_BIAS


@kernel("tt")
def tt_depth(d):
    return int64((d >> uint64(32)) & uint64(0xFF))


@kernel("tt")
def tt_bound(d):
    return int64((d >> uint64(40)) & uint64(3))


@kernel("tt")
def tt_move(d):
    return int64((d >> uint64(48)) & uint64(0xFF))


@kernel("tt")
def tt_gen(d):
    return int64(d >> uint64(56))


@kernel("tt")
def tt_lookup(table, shift, gen, key):
    """The packed word stored for ``key`` in this generation, or 0."""
    i = tt_slot(key, shift) * uint64(2)
    if table[i] == key:
        d = table[i + uint64(1)]
        if tt_gen(d) == int64(gen):
            return d
    return uint64(0)


class TranspositionTable:
    """A table of ``2**bits`` entries, the largest power of two within ``mb`` megabytes."""

    def __init__(self, mb: float = DEFAULT_MB):
        if mb <= 0:
            raise ValueError(f"table size {mb} MB must be positive")
        entries = max(1024, int(mb * (1 << 20)) // ENTRY_BYTES)
        self.bits = entries.bit_length() - 1
        self.size = 1 << self.bits
        self.shift = np.uint64(64 - self.bits)
        self.table = np.zeros(2 * self.size, dtype=np.uint64)
        # Touch every page now. The OS maps a fresh zeroed array's pages at
        # their first write; the table is written at random slots, so the first
        # searches of a new table would pay one page fault per new slot under
        # their clock (measured on a 2-core VM: 38 ms for a 1,500-node search,
        # and a first 2 s move stopped at depth 8 instead of 25). 64 MB: ~0.2 s here.
        self.table.fill(0)
        self.gen = 0

    @property
    def megabytes(self) -> float:
        return self.size * ENTRY_BYTES / (1 << 20)

    def new_search(self) -> int:
        """Make every stored entry invisible (wraps after 255 searches, then really clears)."""
        self.gen += 1
        if self.gen > 255:
            self.table[:] = 0
            self.gen = 1
        return self.gen

    def lookup(self, key: int) -> tuple[int, int, int, int] | None:
        """(score, depth, bound, move) stored for ``key`` in this generation."""
        d = int(tt_lookup(self.table, self.shift, np.uint64(self.gen), np.uint64(key)))
        if not d:
            return None
        w = np.uint64(d)
        return int(tt_score(w)), int(tt_depth(w)), int(tt_bound(w)), int(tt_move(w))
