"""The transposition table: one uint64 word an entry, bounds and best move.

A position key ``k`` (Pons' ``current + mask + bottom``, mirrored to the
smaller of the two) is spread by ``h = k * HASH_MUL`` (mod 2**64). Multiplying
by an odd constant is a bijection of 64-bit words, so ``h`` identifies ``k``
exactly. The entry's index is the top ``L`` bits of ``h`` and the word stores
the other ``64 - L`` bits shifted up, ``h << L``: index and tag together give
back all of ``h``, so a hit is never a false match (no partial-key risk).

The low ``L >= 18`` bits of the word hold the payload::

    bits 12..17  lower bound + 32   (0 means "no lower bound", -32)
    bits  6..11  upper bound + 32   (63 means "no upper bound", +31)
    bits  0..5   best move column + 1 (0: none)

Scores fit: on a board of at most 56 cells every score is within +-28. A real
key always has a bit set in column 0 (the height marker), so ``h << L`` is
never 0 and the zero word means "empty".

``reset()`` must be cheap: a test-set run clears the table before every
position. Every store into an empty slot appends its index to a log; a reset
zeroes just the logged slots, or the whole table when the log overflowed.
"""

from __future__ import annotations

import numpy as np

from connect4.jit import kernel

HASH_MUL = 0x9E3779B97F4A7C15  # 2**64 / golden ratio, odd
MIN_LOG2 = 18
MAX_LOG2 = 32
NO_LOWER = -32
NO_UPPER = 31

# Slots of the int64 state array shared by Python and the kernels.
NODES, BUDGET, ABORT, SHIFT, LOG_N, LOG_OVERFLOW = range(6)
STATE_SIZE = 8
NO_BUDGET = 1 << 62


@kernel("table")
def clear_table(tt, log, state):
    """Zero the slots written since the last clear (all of them after an overflow)."""
    if state[LOG_OVERFLOW]:
        tt[:] = 0
    else:
        for i in range(state[LOG_N]):
            tt[log[i]] = 0
    state[LOG_N] = 0
    state[LOG_OVERFLOW] = 0


class TranspositionTable:
    """``2**log2`` one-word entries plus the write log for cheap resets."""

    def __init__(self, log2: int):
        if not MIN_LOG2 <= log2 <= MAX_LOG2:
            raise ValueError(f"tt_log2 must be in {MIN_LOG2}..{MAX_LOG2}, got {log2}")
        self.log2 = log2
        self.words = np.zeros(1 << log2, dtype=np.uint64)  # calloc: pages appear on first touch
        self.log = np.zeros(max(1024, (1 << log2) >> 4), dtype=np.int64)
        self.state = np.zeros(STATE_SIZE, dtype=np.int64)
        self.state[SHIFT] = 64 - log2

    def reset(self) -> None:
        clear_table(self.words, self.log, self.state)

    @property
    def nbytes(self) -> int:
        return self.words.nbytes + self.log.nbytes
