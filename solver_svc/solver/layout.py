"""The numbers Python and the solver's kernels share, without numpy or numba.

The int64 workspace's slots and the table's layout arithmetic (the word
layout itself is documented in :mod:`.table`), the flags and error codes of
``run_batch`` (:mod:`.driver`). Plain Python, so that a process that runs the
batch kernel's machine code alone (:mod:`.native`, ``c4 solve``'s fast start)
sets up the same workspace as :class:`.table.TranspositionTable`.
"""

from __future__ import annotations

from typing import Any, Protocol

HASH_MUL = 0x9E3779B97F4A7C15  # 2**64 / golden ratio, odd
MIN_LOG2 = 18
MAX_LOG2 = 32
NO_LOWER = -32
NO_UPPER = 31
MAX_EPOCH_BITS = 40

# Slots of the int64 workspace shared by Python and the kernels: the search's
# counters, then the layout of the table the search uses (EPOCH .. EPOCH_MAX),
# then the same five of the other table (OTHER + 0 .. 4: the small table while
# the search uses the main one, and the other way round), the budget put
# aside while the search runs in the small table, and whether it does.
NODES, BUDGET, ABORT, EPOCH, IDX_SHIFT, TAG_MASK, EPOCH_BITS, EPOCH_MAX = range(8)
LAYOUT_SLOTS = 5  # EPOCH .. EPOCH_MAX
OTHER = 8
REAL_BUDGET = OTHER + LAYOUT_SLOTS
IN_SMALL = REAL_BUDGET + 1
GROW_AT = IN_SMALL + 1  # the slot of the nodes a search may spend in the small table
STATE_SIZE = GROW_AT + 1
NO_BUDGET = 1 << 62

# The main table has buckets of two words, the small one a word a slot (see .table).
MAIN_PAIRS, SMALL_PAIRS = True, False

# The small table (see "A small table first" in .table).
SMALL_LOG2 = 13
GROW_NODES = 1 << 16  # nodes in the small table before a search moves to the main one (ws[GROW_AT])

# run_batch: flags and the error codes of a move list
WEAK, ANALYZE, FRESH = 1, 2, 4
OK, OFF_BOARD, FULL_COLUMN, WINS, ABORTED = 0, 1, 2, 3, 4
NO_SCORE = -1000  # the score of a full column in an analysis (c4solver's value)


Slots = Any  # the int64 workspace: a numpy array (the Solver) or an array("q") (the native path)


class Board(Protocol):
    """What the layout needs of a geometry (a :class:`connect4.Geometry` has it)."""

    @property
    def width(self) -> int: ...
    @property
    def h1(self) -> int: ...
    @property
    def cells(self) -> int: ...


def move_bits(width: int) -> int:
    """Bits of the stored move (column + 1, 0 = none)."""
    return max(1, width.bit_length())


WORK_BITS = 5  # a main table entry's work (see .table): 0 .. MAX_WORK
MAX_WORK = (1 << WORK_BITS) - 1


def payload_bits(width: int, pairs: bool) -> int:
    """Bits below the epoch: two 6-bit bounds, the move and (``pairs``: the main table) the work."""
    return 12 + move_bits(width) + (WORK_BITS if pairs else 0)


def key_bits(geometry: Board) -> int:
    return geometry.width * geometry.h1


def layout(geometry: Board, log2: int, pairs: bool) -> tuple[int, int, int, int]:
    """(log2, payload bits, tag bits, epoch bits) of a table for ``geometry``
    (``pairs``: two words a bucket, see :mod:`.table`); ``log2`` is raised
    when no epoch bit would be left."""
    kb = key_bits(geometry)
    payload = payload_bits(geometry.width, pairs)
    log2 = max(log2, kb + payload - 63 + pairs)
    tag = max(0, kb - bucket_bits(log2, pairs))
    epoch = min(MAX_EPOCH_BITS, 64 - payload - tag)
    return log2, payload, tag, epoch


def workspace_size(geometry: Board) -> int:
    return STATE_SIZE + 2 * (geometry.cells + 1) * geometry.width


def bucket_bits(log2: int, pairs: bool) -> int:
    """Bits of the bucket number: a table of ``2**log2`` words has half as many buckets of two."""
    return log2 - int(pairs)


def set_layout(st: Slots, at: int, geometry: Board, log2: int, pairs: bool) -> int:
    """Write the layout slots of a ``2**log2`` table at ``st[at:at + LAYOUT_SLOTS]``; its log2."""
    log2, _, tag_bits, epoch_bits = layout(geometry, log2, pairs)
    st[at + EPOCH - EPOCH] = 1
    st[at + IDX_SHIFT - EPOCH] = max(0, key_bits(geometry) - bucket_bits(log2, pairs))
    st[at + TAG_MASK - EPOCH] = (1 << tag_bits) - 1
    st[at + EPOCH_BITS - EPOCH] = epoch_bits
    st[at + EPOCH_MAX - EPOCH] = (1 << epoch_bits) - 1
    return log2


def init_state(st: Slots, geometry: Board, log2: int) -> tuple[int, int]:
    """Fill the state slots of a fresh workspace for a ``2**log2`` table;
    ``(log2 as raised by the layout, the small table's log2 or 0 for none)``."""
    if not MIN_LOG2 <= log2 <= MAX_LOG2:
        raise ValueError(f"tt_log2 must be in {MIN_LOG2}..{MAX_LOG2}, got {log2}")
    log2 = set_layout(st, EPOCH, geometry, log2, MAIN_PAIRS)
    st[BUDGET] = NO_BUDGET
    use_small = log2 > SMALL_LOG2 and key_bits(geometry) > SMALL_LOG2
    small_log2 = set_layout(st, OTHER, geometry, SMALL_LOG2, SMALL_PAIRS) if use_small else 0
    st[GROW_AT] = GROW_NODES
    return log2, small_log2
