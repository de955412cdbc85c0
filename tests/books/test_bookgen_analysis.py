"""``c4 bookgen analysis``: analysis-book lines solved on real Celery workers over a real redis-server,
each line equal to the solver's own analysis; resumed from its journal; refused bad input."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from connect4 import Geometry, Position
from connect4.book import AnalysisBook, format_analysis_entry
from connect4.keys import canonical, position_from_key
from books.bookgen.analysis import positions_to_analyse
from solver_svc.solver import Solver
from tests.c4cli import c4_process, run_c4

WRONG = f"{sys.executable} {Path(__file__).with_name('overconfident_solver.py')}"
SMALL = Geometry(5, 4)


def _c4(*args, timeout=600):
    return c4_process(*args, timeout=timeout)


def _every_position(g: Geometry, stones: int) -> set[int]:
    """Canonical keys of every position in play with ``stones`` stones, by full enumeration of move lists."""
    found, frontier = set(), [Position(g)]
    for _ in range(stones):
        frontier = [p.played(c) for p in frontier for c in p.legal_moves() if not p.played(c).is_over]
    for p in frontier:
        found.add(canonical(p)[0])
    return found


def test_the_positions_are_every_position_of_those_stones_the_book_lacks_deepest_first():
    held = Position.from_moves([2, 1], SMALL)
    book = AnalysisBook(SMALL)
    book.entries[canonical(held)[0]] = (0, 0, 0, 0, 0)
    got = positions_to_analyse(SMALL, 1, 3, book)
    keys = [p.key() for p in got]
    assert len(keys) == len(set(keys)) and all(p.key() == canonical(p)[0] for p in got)
    want = (_every_position(SMALL, 1) | _every_position(SMALL, 2) | _every_position(SMALL, 3)) - {canonical(held)[0]}
    assert set(keys) == want
    assert [p.ply for p in got] == sorted((p.ply for p in got), reverse=True)
    assert len(positions_to_analyse(Geometry(7, 6), 4, 4)) == len(_every_position(Geometry(7, 6), 4)) == 568


@pytest.mark.slow
def test_the_command_appends_the_solvers_lines_and_resumes_from_its_journal(tmp_path):
    book = tmp_path / "5x4-analysis.txt"
    book.write_text("# a 5x4 analysis book\n", encoding="utf-8")
    r = _c4("bookgen", "analysis", "--size", "5x4", "--stones", "3", "--min-stones", "2", "--book", str(book),
            "--known", "--local-workers", "2", "--start-redis", str(tmp_path / "redis"),
            "--worker-logs", str(tmp_path / "logs"), "--check-solver", f"{sys.executable} -m c4 solve --size 5x4", "--check-sample", "5")
    assert r.returncode == 0, r.stderr
    assert "5 of" in r.stderr and "all agree" in r.stderr
    lines = AnalysisBook.load(book, SMALL)
    assert not lines.problems
    assert set(lines.entries) == _every_position(SMALL, 2) | _every_position(SMALL, 3)
    solver = Solver(SMALL, tt_log2=18)
    for key, scores in lines.entries.items():
        assert list(scores) == solver.analyze(position_from_key(key, SMALL)), hex(key)
    assert not Path(str(book) + ".journal").exists()
    assert book.read_text().splitlines()[1].startswith(f"# {len(lines.entries)} lines: every position with 2 to 3")

    # nothing left to do: no Redis, no worker
    r = _c4("bookgen", "analysis", "--size", "5x4", "--stones", "3", "--min-stones", "2", "--book", str(book))
    assert r.returncode == 0 and "0 positions not in" in r.stderr, r.stderr

    # an interrupted run's journal: its lines need no worker at all
    one = sorted(_every_position(SMALL, 1))
    fresh = tmp_path / "fresh.txt"
    fresh.write_text("# another book\n", encoding="utf-8")
    Path(str(fresh) + ".journal").write_text(
        "".join(format_analysis_entry(k, solver.analyze(position_from_key(k, SMALL))) + "\n" for k in one)
        + "3a1 4", encoding="utf-8")  # a torn last line is skipped
    r = _c4("bookgen", "analysis", "--size", "5x4", "--stones", "1", "--book", str(fresh), "--known",
            "--local-workers", "0", "--start-redis", str(tmp_path / "redis2"))
    assert r.returncode == 0, r.stderr
    assert set(AnalysisBook.load(fresh, SMALL).entries) == set(one)


@pytest.mark.slow
def test_a_solver_that_disagrees_stops_the_run_before_the_book_is_written(tmp_path):
    book = tmp_path / "5x4-analysis.txt"
    book.write_text("# a 5x4 analysis book\n", encoding="utf-8")
    r = _c4("bookgen", "analysis", "--size", "5x4", "--stones", "1", "--book", str(book), "--known",
            "--local-workers", "1", "--start-redis", str(tmp_path / "redis"), "--worker-logs", str(tmp_path / "logs"),
            "--check-solver", f"{WRONG} 5 4")
    assert r.returncode == 1
    assert "the other solver disagrees at position" in r.stderr and "nothing written" in r.stderr
    assert book.read_text() == "# a 5x4 analysis book\n"
    assert len(AnalysisBook.load(Path(str(book) + ".journal"), SMALL).entries) == len(_every_position(SMALL, 1))


@pytest.mark.parametrize("argv,message", [
    ([], "give --stones N or --positions FILE"),
    (["--stones", "2", "--positions", "POS"], "give --stones N or --positions FILE"),
    (["--stones", "20"], "--stones must be in 0..19 on a 5x4 board"),
    (["--stones", "2", "--min-stones", "3"], "--min-stones must be in 0..2"),
    (["--positions", "POS"], "positions.txt:2: move 5 (1): column 1 is full"),
    (["--stones", "1", "--book", "MOVEBOOK"], "is not a 5x4 analysis book"),
    (["--size", "9x9", "--stones", "1"], "book generation (the exact solver)"),
])
def test_bad_input_is_one_line_and_exit_status_2(tmp_path, capsys, argv, message):
    positions = tmp_path / "positions.txt"
    positions.write_text("12\n11111\n", encoding="utf-8")
    movebook = tmp_path / "moves.txt"
    movebook.write_text("# a move book\n1234 1 0\n", encoding="utf-8")
    argv = [{"POS": str(positions), "MOVEBOOK": str(movebook)}.get(a, a) for a in argv]
    if "--size" not in argv:
        argv = ["--size", "5x4", *argv]
    code, err = run_c4(["bookgen", "analysis", *argv, "--book", str(tmp_path / "a.txt")] if "--book" not in argv
                       else ["bookgen", "analysis", *argv], capsys)
    assert code == 2 and message in err, err
    assert not (tmp_path / "a.txt").exists()
