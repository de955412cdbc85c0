"""The transposition table: one uint64 word an entry, exact keys, epochs, buckets of two.

This module holds the table's layout, its Python owner
(:class:`TranspositionTable`) and the kernels that pack and unpack a word
(:func:`table_kernels`): the layout below is written once, here.

A position key ``k`` (Pons' ``current + mask + bottom``, mirrored to the
smaller of the two) has at most ``KB = width * (height + 1)`` bits (49 on
7x6). It is spread by ``h = (k * HASH_MUL) mod 2**KB``: multiplying by an
odd constant is a bijection of ``KB``-bit words, so ``h`` identifies ``k``
exactly. The main table of ``2**L`` words is ``2**(L-1)`` buckets of two
words: the top ``L - 1`` bits of ``h`` pick the bucket and a word stores the
other ``T = KB - L + 1`` bits as the tag (the small table below: one word a
slot, ``L`` bits of slot, ``T = KB - L``). Bucket (or slot) and tag give
back ``h``, so a hit is never a false match (no partial-key risk).

A word, low bits first::

    bits 0..5            lower bound + 32   (0: no lower bound, -32)
    bits 6..11           upper bound + 32   (63: no upper bound, +31)
    bits 12..12+MB-1     best move column + 1 (0: none); MB = bits of width
    next 5 bits          work (main table only): the bit length of the nodes its search took, at most 31
    next E bits          epoch (1 .. 2**E - 1)
    top T bits           tag

On 7x6 with the default ``L = 23`` that is 20 payload bits, a 27-bit tag and
a 17-bit epoch (the small table: 15, 33 and 16). Every score fits 6 bits: a
stored bound lies within the cell bounds of its position, at most +-31 on
any board of at most 63 cells.

**Two words a bucket.** A search of the empty board visits a hundred times
more positions than the table holds, so what a store overwrites matters. In
a bucket the first word keeps the entry whose search took most nodes (its
work), the second the most recent of the others: a new entry with at least
the first word's work (or a first word of an old epoch) takes the first word
and moves the old one down; else it takes the second. A position found in
either word is updated in place. Both words share one cache line, so a probe
costs no more memory traffic than one word (Fhourstones' "work" replacement;
Pons' table keeps one word and overwrites it always).

**Fresh table in O(1).** A benchmark (and ``Solver.solve_many``) starts every
position from an empty table. ``reset()`` does not clear memory: it increments
the epoch, and an entry of another epoch never matches. Only when the epoch
wraps (after ``2**E - 1`` resets, 131,071 on 7x6; 8,191 for the small
table) is the memory zeroed. A real entry's epoch is at least 1, so the
zero word is always empty.

If a long key with a small table would leave no epoch bit (``KB + payload >
62 + L`` with buckets, ``63 + L`` without), ``L`` is raised until one fits:
8x7's 64-bit keys raise the main table to at least 2^23 words, 9x6's
63-bit keys to 2^22.

**A small table first.** A search from a fresh table (``run_batch`` with
``FRESH``: c4 solve --fresh, Pons' benchmark rule) begins in a small table
of ``2**SMALL_LOG2`` words (64 KiB), which stays in the core's own cache; the
main table's words are spread over 64 MiB and nearly every probe of a short
search is a cache miss. A search that passes ``GROW_AT`` nodes moves to the
main table: the kernel copies every entry of the small table into it (a
small word's slot and tag give back its exact ``h``: nothing is guessed),
and goes on there. The small table has its own layout and epoch (one word a
slot: a search this short gains nothing from buckets; a 36-bit tag with 13
slot bits on 7x6); ``ws`` holds the layout of the table in use
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

from .jit import kernel, table_tag
from .memory import zeroed
from .pointer import prefetch

from .layout import (  # noqa: F401 (the layout's numbers, re-exported for the kernels' modules)
    ABORT, BUDGET, EPOCH, EPOCH_BITS, EPOCH_MAX, GROW_AT, GROW_NODES, HASH_MUL, IDX_SHIFT, IN_SMALL, LAYOUT_SLOTS,
    MAIN_PAIRS, MAX_EPOCH_BITS, MAX_LOG2, MIN_LOG2, NO_BUDGET, NO_LOWER, NO_UPPER, NODES, OTHER, REAL_BUDGET,
    SMALL_LOG2, SMALL_PAIRS, STATE_SIZE, TAG_MASK, WORK_BITS, init_state, key_bits, layout, move_bits, payload_bits, workspace_size,
)


class TranspositionTable:
    """``2**log2`` one-word entries plus the int64 workspace of the kernels,
    and a small table of ``2**SMALL_LOG2`` (when the main one is larger and the
    keys are longer) where a search from a fresh table begins."""

    def __init__(self, geometry, log2: int):
        self.ws = np.zeros(workspace_size(geometry), dtype=np.int64)
        self.state = self.ws[:STATE_SIZE]  # a view: the kernels' state slots
        self.log2, small_log2 = init_state(self.state, geometry, log2)
        _, self.payload_bits, self.tag_bits, self.epoch_bits = layout(geometry, self.log2, MAIN_PAIRS)
        self.small_payload_bits = payload_bits(geometry.width, SMALL_PAIRS)
        self.words = np.frombuffer(zeroed(8 << self.log2), dtype=np.uint64)  # pages appear on first touch
        self.small = np.frombuffer(zeroed(8 << small_log2 if small_log2 else 8), dtype=np.uint64)
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
def table_kernels(g, pairs: bool) -> SimpleNamespace:
    """The kernels that read and write table words of geometry ``g`` (the
    layout above) in a table of buckets of two words (``pairs``: the main
    table) or of one word a slot (the small table)."""
    tag = table_tag(g, pairs)
    W = g.width
    KMASK = uint64((1 << key_bits(g)) - 1)
    MUL = uint64(HASH_MUL)
    PAY = uint64(payload_bits(W, pairs))
    SMALL_PAY = uint64(payload_bits(W, SMALL_PAIRS))  # migrate's source
    M6 = uint64(63)
    ONE = uint64(1)
    SHIFT_B = int64(pairs)  # a bucket's first word: the bucket number << SHIFT_B
    MOVEMASK = uint64((1 << move_bits(W)) - 1)
    WSHIFT = 12 + move_bits(W)  # the work's lowest bit (a Python int: shifts an int64 field)
    WORK = uint64(WSHIFT)  # the same, to shift a uint64 word
    WMASK = uint64((1 << WORK_BITS) - 1)
    SMALL_PAYMASK = (ONE << SMALL_PAY) - ONE

    @kernel(tag)
    def slot(ckey, ws):
        """(the bucket's first word, expected high bits: tag and epoch) of a canonical key in this epoch."""
        h = (ckey * MUL) & KMASK
        idx = int64(h >> uint64(ws[IDX_SHIFT])) << SHIFT_B
        hi = ((h & uint64(ws[TAG_MASK])) << uint64(ws[EPOCH_BITS])) | uint64(ws[EPOCH])
        return idx, hi

    @kernel(tag)
    def canonical_slot(key, mkey, ws):
        """(bucket, expected high bits, flipped, symmetric) of a position given
        by its key (Pons' cur + mask + bottom) and its mirror image's key: the
        smaller of the two is stored."""
        flip = mkey < key
        idx, want = slot(mkey if flip else key, ws)
        return idx, want, flip, key == mkey

    @kernel(tag)
    def find(tt, idx, want):
        """The word of the bucket at ``idx`` that belongs to this position and epoch, 0 for none."""
        word = tt[idx]
        if pairs:  # one branch: the second word unless the first matches (both in one cache line)
            second = tt[idx + 1]
            word = word if (word >> PAY) == want else second
        return word if (word >> PAY) == want else uint64(0)

    @kernel(tag)
    def read(tt, idx, want, flip):
        """(lower, upper, move) stored for a bucket; (NO_LOWER, NO_UPPER, -1)
        when no word of it belongs to this position and epoch. The move is
        turned back when the entry was stored for the mirror image."""
        word = find(tt, idx, want)
        if word == 0:
            return NO_LOWER, NO_UPPER, -1
        lower = int64(word & M6) - 32
        upper = int64((word >> uint64(6)) & M6) - 32
        m = int64((word >> uint64(12)) & MOVEMASK)
        move = -1
        if m:
            move = m - 1
            if flip:
                move = W - 1 - move
        return lower, upper, move

    @kernel(tag)
    def prefetch_slot(tt, ws, key, mkey):
        """Start loading the bucket of a position (its key and its mirror's) into the cache."""
        idx, _, _, _ = canonical_slot(key, mkey, ws)
        prefetch(tt, idx)

    @kernel(tag)
    def probe_upper(tt, ws, key, mkey):
        """The stored upper bound of a position (its key and its mirror's), NO_UPPER when absent."""
        idx, want, _, _ = canonical_slot(key, mkey, ws)
        word = find(tt, idx, want)
        if word == 0:
            return NO_UPPER
        return int64((word >> uint64(6)) & M6) - 32

    @kernel(tag)
    def store(tt, idx, hi, lower, upper, col, flip, work, first, ws):
        """Write bounds, best move (column, -1 for none; mirrored when
        ``flip``) and work (0 .. MAX_WORK) into the bucket at ``idx``. In a
        bucket of two, the first word keeps the entry of most work (a word of
        an old epoch always yields) and the second takes the rest: the entry
        the first word gives up, or the new one. ``first`` is the bucket's
        first word as the caller read it before its search: the choice
        needs no load, so a store never waits for memory (if the subtree
        changed the bucket since, a valid older word may come back: every
        word names its position and its bounds stay true, so only the
        choice is affected)."""
        m = 0
        if col >= 0:
            m = (W - 1 - col if flip else col) + 1
        new = (hi << PAY) | uint64((lower + 32) | ((upper + 32) << 6) | (m << 12) | (work << WSHIFT))
        if not pairs:
            tt[idx] = new
            return
        w0 = first
        if (w0 >> PAY) == hi:
            tt[idx] = new
        elif (((w0 >> PAY) ^ hi) & uint64(ws[EPOCH_MAX])) != 0 or int64((w0 >> WORK) & WMASK) <= work:
            tt[idx + 1] = w0  # the first word's entry moves down (an old epoch's word: harmless)
            tt[idx] = new
        else:
            tt[idx + 1] = new

    @kernel(tag)
    def swap_layout(ws):
        """Exchange the layout slots of the table in use and of the other one."""
        for k in range(LAYOUT_SLOTS):
            t = ws[EPOCH + k]
            ws[EPOCH + k] = ws[OTHER + k]
            ws[OTHER + k] = t

    @kernel(tag)
    def migrate(src, dst, ws):
        """Copy every entry of ``src`` (the small table in use, one word a
        slot, this epoch) into ``dst`` (this kind of table, laid out by the
        slots at ``OTHER``, a fresh epoch, at least as many buckets as
        ``src`` has slots). A word's slot and tag give back its exact ``h``
        (slot = the top bits, tag = the rest), from which ``dst``'s bucket and
        tag follow; the entry takes the bucket's first word (no two entries
        meet in one bucket: its number's bits include the small slot's)."""
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
            hi = w >> SMALL_PAY
            if (hi & emax) != ep:
                continue
            h = (uint64(i) << sh) | (hi >> eb)
            # the same payload, its work 0 (the small table keeps none)
            dst[int64(h >> d_sh) << SHIFT_B] = ((((h & d_tag) << d_eb) | d_ep) << PAY) | (w & SMALL_PAYMASK)

    return SimpleNamespace(slot=slot, canonical_slot=canonical_slot, read=read, probe_upper=probe_upper,
                           prefetch_slot=prefetch_slot,
                           store=store, swap_layout=swap_layout, migrate=migrate)
