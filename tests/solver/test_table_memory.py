"""The table's memory: zeroed, writable, and advised onto huge pages where the kernel offers them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from connect4 import STANDARD
from solver_svc.solver.memory import HUGE_PAGE, zeroed
from solver_svc.solver.table import TranspositionTable

THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")


def _mapping_fields(address: int) -> dict[str, str]:
    """The /proc/self/smaps fields of the mapping that holds ``address``."""
    fields: dict[str, str] = {}
    inside = False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()[0]
        if "-" in head and not head.endswith(":"):
            lo, hi = (int(x, 16) for x in head.split("-"))
            inside = lo <= address < hi
        elif inside:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def test_a_table_is_zeroed_and_writable():
    t = TranspositionTable(STANDARD, 20)
    assert t.words.dtype == np.uint64 and t.words.size == 1 << 20 and t.words.flags.writeable
    assert not t.words.any()
    t.words[12345] = 7
    t.reset()
    assert t.words[12345] == 7  # a new epoch, the memory kept
    block = zeroed(HUGE_PAGE // 2)
    assert len(block) == HUGE_PAGE // 2 and not any(block[:64])


@pytest.mark.skipif(not THP.exists() or "[never]" in THP.read_text(), reason="no transparent huge pages here")
def test_the_main_table_may_live_on_huge_pages(monkeypatch):
    t = TranspositionTable(STANDARD, 23)
    assert _mapping_fields(t.words.ctypes.data).get("THPeligible") == "1"
    monkeypatch.setenv("C4_SOLVER_HUGE_PAGES", "0")
    off = TranspositionTable(STANDARD, 23)
    if "[always]" not in THP.read_text():  # madvise mode: only an advised mapping is eligible
        assert _mapping_fields(off.words.ctypes.data).get("THPeligible") == "0"
