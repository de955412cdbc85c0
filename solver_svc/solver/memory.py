"""Zeroed memory for the transposition tables, on huge pages where the kernel gives them.

A table probe lands on a random word, so with 4 KiB pages nearly every probe
of a table larger than the TLB's reach (about 6 MiB of 4 KiB pages) also
misses the TLB and walks the page tables first. The table is asked for
transparent huge pages (``madvise(MADV_HUGEPAGE)``, honoured when
``/sys/kernel/mm/transparent_hugepage/enabled`` is ``always`` or
``madvise``): 2 MiB pages, so the whole default table (64 MiB) fits in the
TLB. Where the call is missing or refused the memory is the same, on small
pages. No numpy here: :mod:`.native` runs without it.
"""

from __future__ import annotations

import contextlib
import mmap
import os

HUGE_PAGE = 2 << 20  # bytes; a smaller block gains nothing from huge pages


def huge_pages_wanted() -> bool:
    """False when ``C4_SOLVER_HUGE_PAGES=0`` (for a side-by-side measurement of the two)."""
    return os.environ.get("C4_SOLVER_HUGE_PAGES", "1") != "0"


def zeroed(nbytes: int) -> mmap.mmap:
    """``nbytes`` of anonymous, zeroed, writable memory (pages appear on first
    touch), advised onto huge pages when it is at least one huge page."""
    block = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if nbytes >= HUGE_PAGE and huge_pages_wanted() and hasattr(mmap, "MADV_HUGEPAGE"):
        with contextlib.suppress(OSError):  # a kernel without transparent huge pages: small pages then
            block.madvise(mmap.MADV_HUGEPAGE)
    return block
