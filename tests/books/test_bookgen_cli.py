"""``c4 bookgen opening`` end to end: its own redis-server, local Celery
workers, the engine's guesses, and a book equal to the solver's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from connect4 import Geometry
from connect4.book import MoveBook
from connect4.keys import position_from_key
from books.bookgen.solving import BookSolver

REPO = Path(__file__).resolve().parents[2]


def _c4(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "c4", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.slow
def test_opening_command_writes_the_solvers_book(tmp_path):
    out = tmp_path / "5x4-opening.txt"
    r = _c4("bookgen", "opening", "--size", "5x4", "--plies", "6", "--local-workers", "2",
            "--start-redis", str(tmp_path / "redis"), "--out", str(out), "--worker-logs", str(tmp_path / "logs"))
    assert r.returncode == 0, r.stderr
    g = Geometry(5, 4)
    book = MoveBook.load(out, g)
    assert not book.problems and len(book) > 10
    bs = BookSolver(g, tt_log2=18)
    for key, e in book.entries.items():
        bm = bs.best_move(position_from_key(key, g))
        assert (bm.column, bm.score) == (e.column, e.score)
    assert not Path(str(out) + ".journal").exists()
    # the same command without guesses (roots first) writes the same bytes
    again = tmp_path / "again.txt"
    r = _c4("bookgen", "opening", "--size", "5x4", "--plies", "6", "--local-workers", "1", "--guess-depth", "0",
            "--start-redis", str(tmp_path / "redis2"), "--out", str(again), "--worker-logs", str(tmp_path / "logs2"))
    assert r.returncode == 0, r.stderr
    assert again.read_bytes() == out.read_bytes()


@pytest.mark.parametrize("args, message", [
    (["--plies", "0"], "--plies must be at least 1"),
    (["--plies", "4", "--guess-depth", "-1"], "--guess-depth must be 0 or more"),
    (["--plies", "4", "--size", "9x9"], ""),
])
def test_opening_command_rejects_bad_arguments(args, message):
    r = _c4("bookgen", "opening", *args, timeout=60)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr
