"""``c4 bookgen ... --check-solver CMD``: another solver process re-solves a
sample of the book before it is written; a disagreement stops the run and
nothing is written."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from books.bookgen.crosscheck import CrossCheckFailed, Entry, cross_check
from connect4 import Geometry, Position
from connect4.book import MoveBook
from connect4.keys import position_from_key

from tests.c4cli import c4_process

WRONG = f"{sys.executable} {Path(__file__).with_name('overconfident_solver.py')}"
G = Geometry(5, 4)


def _c4(*args, timeout=600):
    return c4_process(*args, timeout=timeout)


def _our_solve(size: str) -> str:
    return f"{sys.executable} -m c4 solve --size {size}"


def test_a_disagreeing_solver_stops_the_corrective_book_and_an_agreeing_one_lets_it_through(tmp_path):
    out = tmp_path / "5x4-corrective.txt"
    common = ["bookgen", "corrective", "--size", "5x4", "--stones", "3", "--depths", "1,2", "--books",
              "--out", str(out)]
    r = _c4(*common, "--check-solver", f"{WRONG} 5 4", "--check-sample", "0")
    assert r.returncode == 1, r.stderr
    assert not out.exists()
    line = next(x for x in r.stderr.splitlines() if "disagrees" in x)
    assert "c4 bookgen corrective: the other solver disagrees at position " in line
    assert "other score 5" in line and line.endswith("nothing written")
    moves = line.split("at position ")[1].split(" ")[0]
    named = Position.parse(moves, G)
    assert f"(key {named.key():x})" in line
    # the audits stay in the journal; the same run checked by `c4 solve` writes the book
    assert out.with_name(out.name + ".journal").exists()
    r = _c4(*common, "--check-solver", _our_solve("5x4"), "--check-sample", "0")
    assert r.returncode == 0, r.stderr
    book = MoveBook.load(out, G)
    assert len(book) > 0 and not book.problems
    assert f"{len(book)} of {len(book)} entries checked against" in r.stderr and "all agree" in r.stderr
    built_in = book.entries.get(named.canonical_key())
    assert built_in is not None and f"built-in score {built_in.score} " in line


def _entries(n: int) -> list[Entry]:
    from books.bookgen.solving import BookSolver

    bs = BookSolver(G, tt_log2=18)
    found = []
    for moves in ("", "3", "33", "31", "32", "3312", "22", "1"):
        pos = Position.parse(moves, G) if moves else Position(G)
        bm = bs.best_move(pos)
        found.append(Entry(pos, bm.column, bm.score))
    return found[:n]


def test_cross_check_agrees_with_c4_solve_and_names_a_wrong_entry():
    entries = _entries(8)
    assert cross_check(entries, _our_solve("5x4"), n=0) == 8
    assert cross_check(entries, _our_solve("5x4"), n=3) == 3
    # one entry off by one: the check names that position and both scores
    bad = entries[3]
    wrong = [*entries[:3], Entry(bad.position, bad.column, bad.score + 1), *entries[4:]]
    with pytest.raises(CrossCheckFailed) as info:
        cross_check(wrong, _our_solve("5x4"), n=0)
    text = str(info.value)
    assert f"position {''.join(str(c + 1) for c in bad.position.moves)} " in text
    assert f"built-in score {bad.score + 1} " in text and f"other score {bad.score} " in text


@pytest.mark.parametrize("command, message", [
    ("", "--check-solver: the external solver command is empty"),
    ("/no/such/solver", "cannot start '/no/such/solver'"),
    (f"{sys.executable} -c pass", "exited"),
    (f"{sys.executable} -c \"print('garbage')\"", "has a score that is not a number"),
])
def test_a_failing_other_solver_stops_the_check(command, message):
    with pytest.raises(CrossCheckFailed) as info:
        cross_check(_entries(2), command, n=0, timeout_s=60)
    assert message in str(info.value)


def test_the_sample_is_fixed_and_within_the_entries():
    from books.bookgen.crosscheck import sample

    entries = [Entry(position_from_key(Position.parse(m, G).key(), G), 0, 0) for m in ("1", "2", "3", "11", "12")]
    a, b = sample(entries, 3), sample(entries, 3)
    assert [e.position.key() for e in a] == [e.position.key() for e in b] and len(a) == 3
    assert len(sample(entries, 0)) == 5 and len(sample(entries, 9)) == 5


@pytest.mark.slow
def test_a_disagreeing_solver_stops_the_opening_book(tmp_path):
    out = tmp_path / "4x4-opening.txt"
    common = ["bookgen", "opening", "--size", "4x4", "--plies", "4", "--local-workers", "1",
              "--start-redis", str(tmp_path / "redis"), "--out", str(out), "--worker-logs", str(tmp_path / "logs")]
    r = _c4(*common, "--check-solver", f"{WRONG} 4 4", "--check-sample", "5")
    assert r.returncode == 1, r.stderr
    assert "c4 bookgen: the other solver disagrees at position " in r.stderr and "other score 5" in r.stderr
    assert "nothing written" in r.stderr and not out.exists()
    # the rerun takes the solved positions from Redis; checked by `c4 solve`, it writes the book
    r = _c4(*common, "--check-solver", _our_solve("4x4"), "--check-sample", "0")
    assert r.returncode == 0, r.stderr
    book = MoveBook.load(out, Geometry(4, 4))
    assert len(book) > 1 and f"{len(book)} of {len(book)} entries checked" in r.stderr
