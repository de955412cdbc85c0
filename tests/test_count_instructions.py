"""tools/count_instructions.py counts what it says: a part that runs a loop
twice as long executes about twice the instructions, under a real valgrind."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import count_instructions  # noqa: E402  (a script beside the packages, not a package)

pytestmark = pytest.mark.skipif(shutil.which("valgrind") is None or shutil.which("cc") is None,
                                reason="needs valgrind and cc")

LOOPS = """
import os, sys
sys.path.insert(0, {tools!r})
from count_instructions import Counters
cg = Counters(os.environ["C4_CALLGRIND_HELPER"])
for n in (20000, 40000):
    cg.zero()
    total = sum(i * i for i in range(n))
    cg.dump(f"loop-{{n}}")
print(total)
"""


def test_parts_are_counted_apart_and_in_proportion(tmp_path):
    counts, out = count_instructions.callgrind(["-c", LOOPS.format(tools=str(ROOT / "tools"))],
                                               dict(os.environ), tmp_path)
    assert out.strip() == str(sum(i * i for i in range(40000)))
    assert set(counts) == {"loop-20000", "loop-40000"}
    ratio = counts["loop-40000"] / counts["loop-20000"]
    assert 1.8 < ratio < 2.2, counts  # the interpreter's start-up is in neither part


def test_a_failing_run_is_an_error_with_its_output(tmp_path):
    with pytest.raises(RuntimeError, match="boom"):
        count_instructions.callgrind(["-c", "raise SystemExit('boom')"], dict(os.environ), tmp_path)


def test_nothing_to_count_is_refused(capsys):
    with pytest.raises(SystemExit):
        count_instructions.main([])
    assert "nothing to count" in capsys.readouterr().err
