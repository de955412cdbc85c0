"""The transposition table: one uint64 word an entry, exact keys, epochs.

This module holds the table's layout, its Python owner
(:class:`TranspositionTable`) and the kernels that pack and unpack a word
(:func:`table_kernels`): the layout below is written once, here.

A position key ``k`` (Pons' ``current + mask + bottom``, mirrored to the
smaller of the two) has at most ``KB = width * (height + 1)`` bits (49 on
7x6). It is spread by ``h = (k * HASH_MUL) mod 2**KB``: multiplying by an
odd constant is a bijection of ``KB``-bit words, so ``h`` identifies ``k``
exactly. A table of ``2**L`` entries takes the top ``L`` bits of ``h`` as the
index and stores the other ``T = KB - L`` bits as the tag: index and tag give
back ``h``, so a hit is never a false match (no partial-key risk).

A word, low bits first::

    bits 0..5            lower bound + 32   (0: no lower bound, -32)
    bits 6..11           upper bound + 32   (63: no upper bound, +31)
    bits 12..12+MB-1     best move column + 1 (0: none); MB = bits of width
    next E bits          epoch (1 .. 2**E - 1)
    top T bits           tag

On 7x6 with the default ``L = 23`` that is 15 payload bits, a 26-bit tag and
a 23-bit epoch. Every score fits 6 bits: a stored bound lies within the cell
bounds of its position, at most +-31 on any board of at most 63 cells.

**Fresh table in O(1).** A benchmark (and ``Solver.solve_many``) starts every
position from an empty table. ``reset()`` does not clear memory: it increments
the epoch, and an entry of another epoch never matches. Only when the epoch
wraps (after ``2**E - 1`` resets, 8 million on 7x6) is the memory zeroed. A
real entry's epoch is at least 1, so the zero word is always empty.

If a huge board with a small table would leave no epoch bit
(``KB + payload > 63 + L``, which no board up to 16x16 reaches at ``L >= 18``), ``L`` is
raised until one fits.

**A small table first.** A search from a fresh table (``run_batch`` with
``FRESH``: c4 solve --fresh, Pons' benchmark rule) begins in a small table
of ``2**SMALL_LOG2`` words (512 KiB), which stays in the core's cache; the
main table's words are spread over 64 MiB and nearly every probe of a short
search is a cache miss. A search that passes ``GROW_AT`` nodes moves to the
main table: the kernel copies every entry of the small table into it (a
small word's slot and tag give back its exact ``h``: nothing is guessed),
and goes on there. The small table has its own layout and epoch (a 33-bit
tag with 16 index bits on 7x6); ``ws`` holds the layout of the table in use
at ``EPOCH .. EPOCH_MAX`` and the other's at ``OTHER``, swapped on a move.

The int64 ``ws`` array ("workspace") shared by Python and the kernels holds
the search state in its first ``STATE_SIZE`` slots (nodes, budget, abort
flag, epoch and the table's shifts) and then the per-ply move lists and
ordering scores, so a kernel call takes three arrays: ``tt``, ``ws``, ``stop``.
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

import numpy as np
from numba import int64, uint64

from .jit import kernel, tag_of

from .layout import (  # noqa: F401 (the layout's numbers, re-exported for the kernels' modules)
    ABORT, BUDGET, EPOCH, EPOCH_BITS, EPOCH_MAX, GROW_AT, GROW_NODES, HASH_MUL, IDX_SHIFT, IN_SMALL, LAYOUT_SLOTS,
    MAX_EPOCH_BITS, MAX_LOG2, MIN_LOG2, NO_BUDGET, NO_LOWER, NO_UPPER, NODES, OTHER, REAL_BUDGET, SMALL_LOG2,
    STATE_SIZE, TAG_MASK, init_state, key_bits, layout, payload_bits, workspace_size,
)


class TranspositionTable:
    """``2**log2`` one-word entries plus the int64 workspace of the kernels,
    and a small table of ``2**SMALL_LOG2`` (when the main one is larger and the
    keys are longer) where a search from a fresh table begins."""

    def __init__(self, geometry, log2: int):
        self.ws = np.zeros(workspace_size(geometry), dtype=np.int64)
        self.state = self.ws[:STATE_SIZE]  # a view: the kernels' state slots
        self.log2, small_log2 = init_state(self.state, geometry, log2)
        _, self.payload_bits, self.tag_bits, self.epoch_bits = layout(geometry, self.log2)
        self.words = np.zeros(1 << self.log2, dtype=np.uint64)  # calloc: pages appear on first touch
        self.small = np.zeros(1 << small_log2 if small_log2 else 1, dtype=np.uint64)
        self.has_small = small_log2 > 0
        self._prefaulted = False

    def reset(self) -> None:
        """Forget every entry: a new epoch (memory is zeroed only on wrap-around)."""
        st = self.state
        if st[EPOCH] >= st[EPOCH_MAX]:
            self.words.fill(0)
            st[EPOCH] = 1
        else:
            st[EPOCH] += 1

    def prefault(self) -> float:
        """Touch every page of the table now (as C++'s zero-initialised vector
        does at construction) instead of one page fault at a time during the
        first searches; keeps the entries. Seconds spent; 0 when done before."""
        if self._prefaulted:
            return 0.0
        import time

        t0 = time.perf_counter()
        w = self.words
        step = 512  # one word per 4 KiB page; the kernel keeps what it finds
        w[::step] |= np.uint64(0)
        self.small[::step] |= np.uint64(0)
        self._prefaulted = True
        return time.perf_counter() - t0

    @property
    def nbytes(self) -> int:
        return self.words.nbytes


@cache
def table_kernels(g) -> SimpleNamespace:
    """The kernels that read and write table words of geometry ``g`` (the layout above)."""
    tag = tag_of(g)
    W = g.width
    KMASK = uint64((1 << key_bits(g)) - 1)
    MUL = uint64(HASH_MUL)
    PAY = uint64(payload_bits(W))
    M6 = uint64(63)
    ONE = uint64(1)

    @kernel(tag)
    def slot(ckey, ws):
        """(index, expected high bits: tag and epoch) of a canonical key in this epoch."""
        h = (ckey * MUL) & KMASK
        idx = int64(h >> uint64(ws[IDX_SHIFT]))
        hi = ((h & uint64(ws[TAG_MASK])) << uint64(ws[EPOCH_BITS])) | uint64(ws[EPOCH])
        return idx, hi

    @kernel(tag)
    def canonical_slot(key, mkey, ws):
        """(index, expected high bits, flipped, symmetric) of a position given
        by its key (Pons' cur + mask + bottom) and its mirror image's key: the
        smaller of the two is stored."""
        flip = mkey < key
        idx, want = slot(mkey if flip else key, ws)
        return idx, want, flip, key == mkey

    @kernel(tag)
    def read(tt, idx, want, flip):
        """(lower, upper, move) stored for a slot; (NO_LOWER, NO_UPPER, -1)
        when the word belongs to another position or epoch. The move is
        turned back when the entry was stored for the mirror image."""
        word = tt[idx]
        if (word >> PAY) != want:
            return NO_LOWER, NO_UPPER, -1
        lower = int64(word & M6) - 32
        upper = int64((word >> uint64(6)) & M6) - 32
        m = int64((word & ((ONE << PAY) - ONE)) >> uint64(12))
        move = -1
        if m:
            move = m - 1
            if flip:
                move = W - 1 - move
        return lower, upper, move

    @kernel(tag)
    def probe_upper(tt, ws, key, mkey):
        """The stored upper bound of a position (its key and its mirror's), NO_UPPER when absent."""
        idx, want, _, _ = canonical_slot(key, mkey, ws)
        word = tt[idx]
        if (word >> PAY) == want:
            return int64((word >> uint64(6)) & M6) - 32
        return NO_UPPER

    @kernel(tag)
    def store(tt, idx, hi, lower, upper, col, flip):
        """Write bounds and best move (column, -1 for none; mirrored when ``flip``)."""
        m = 0
        if col >= 0:
            m = (W - 1 - col if flip else col) + 1
        tt[idx] = (hi << PAY) | uint64((lower + 32) | ((upper + 32) << 6) | (m << 12))

    PAYMASK = (ONE << PAY) - ONE

    @kernel(tag)
    def swap_layout(ws):
        """Exchange the layout slots of the table in use and of the other one."""
        for k in range(LAYOUT_SLOTS):
            t = ws[EPOCH + k]
            ws[EPOCH + k] = ws[OTHER + k]
            ws[OTHER + k] = t

    @kernel(tag)
    def migrate(src, dst, ws):
        """Copy every entry of ``src`` (the table in use, this epoch) into
        ``dst`` (laid out by the slots at ``OTHER``). A word's slot and tag
        give back its exact ``h`` (slot = the top bits, tag = the rest), from
        which ``dst``'s slot and tag follow; ``dst`` keeps the later of two
        entries that meet in one slot."""
        ep = uint64(ws[EPOCH])
        emax = uint64(ws[EPOCH_MAX])
        eb = uint64(ws[EPOCH_BITS])
        sh = uint64(ws[IDX_SHIFT])
        d_ep = uint64(ws[OTHER])
        d_sh = uint64(ws[OTHER + IDX_SHIFT - EPOCH])
        d_tag = uint64(ws[OTHER + TAG_MASK - EPOCH])
        d_eb = uint64(ws[OTHER + EPOCH_BITS - EPOCH])
        for i in range(src.shape[0]):
            w = src[i]
            hi = w >> PAY
            if (hi & emax) != ep:
                continue
            h = (uint64(i) << sh) | (hi >> eb)
            dst[int64(h >> d_sh)] = ((((h & d_tag) << d_eb) | d_ep) << PAY) | (w & PAYMASK)

    return SimpleNamespace(slot=slot, canonical_slot=canonical_slot, read=read, probe_upper=probe_upper,
                           store=store, swap_layout=swap_layout, migrate=migrate)
