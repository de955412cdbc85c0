"""The opening tree with every tied best move (``--all-ties``), against a
full scan: every column solved exactly by the plain solver."""

from __future__ import annotations

import pytest

from connect4 import Position
from connect4.book import AnalysisBook, BookWriter
from connect4.keys import position_from_key
from books.bookgen.opening import OpeningCoordinator, canonical_position, seed_ties
from books.bookgen.solving import BookSolver
from books.bookgen.store import ResultStore
from solver_svc.solver import Solver

# Middle-game positions of Pons' set L2_R1 with ties among their best moves.
POSITIONS = ["5554224333234511764415115", "52753311433677442422121", "271713432331713132",
             "763452543756455357732314", "662222576343651642712157", "1233722555341451114725221333"]
START = "52753311433677442422121"
PLIES = 5


def _ties_by_scan(s: Solver, pos: Position) -> tuple[list[int], int]:
    """Every column of the best score, centre first, by solving each column."""
    scores = s.analyze(pos)
    best = max(v for v in scores if v is not None)
    return [c for c in pos.geometry.center_order() if scores[c] == best], best


def _tree_by_scan(s: Solver, start: Position, plies: int) -> dict[int, list[int]]:
    """Canonical key -> tied columns, for every book-side node of the tie tree."""
    tree: dict[int, list[int]] = {}
    limit = start.ply + plies
    stack = [canonical_position(start)]
    while stack:
        pos = stack.pop()
        if pos.is_over or pos.ply >= limit or pos.key() in tree:
            continue
        tree[pos.key()] = cols = _ties_by_scan(s, pos)[0]
        for c in cols:
            child = pos.played(c)
            if child.is_over or child.ply + 1 >= limit:
                continue
            stack.extend(canonical_position(child.played(r)) for r in child.legal_moves())
    return tree


@pytest.fixture(scope="module")
def solvers():
    return BookSolver(Position().geometry, tt_log2=20), Solver(tt_log2=20)


def test_ties_are_every_column_of_the_best_score(solvers):
    bs, s = solvers
    found_a_tie = False
    for moves in POSITIONS:
        pos = Position.parse(moves)
        for p in [pos] + [pos.played(c) for c in pos.legal_moves() if not pos.played(c).is_over]:
            bm = bs.best_move(p, ties=True)
            cols, best = _ties_by_scan(s, p)
            assert (list(bm.ties or ()), bm.score) == (cols, best), p.moves
            assert (bm.column, bm.score) == s.best_move(p) == (bs.best_move(p).column, bs.best_move(p).score)
            found_a_tie |= len(cols) > 1
    assert found_a_tie  # the sample exercises ties at all


def _build(store, bs, start, journal=None, sent=None):
    def solve_here(pos):  # the bookgen.ties task's body, in process
        if sent is not None:
            sent.append(pos.key())
        bm = bs.best_move(pos, ties=True)
        store.put_ties(pos, bm.ties, bm.score)

    return OpeningCoordinator(Position().geometry, store, solve_here, plies=PLIES, start=start, journal=journal,
                              poll_s=0.01, ties=True).run()


def test_the_tie_tree_is_the_full_scan_tree_and_resumes(redis_url, solvers, tmp_path):
    bs, s = solvers
    g = Position().geometry
    start = Position.parse(START)
    expected = _tree_by_scan(s, start, PLIES)
    store = ResultStore.from_url(redis_url, g)
    journal = tmp_path / "book.txt.ties.journal"
    result = _build(store, bs, start, journal)
    assert set(result.entries) == set(expected)
    assert any(len(cols) > 1 for cols in expected.values())  # more than the one-move tree
    for key, (col, score) in result.entries.items():
        assert col == expected[key][0] and score == _ties_by_scan(s, position_from_key(key, g))[1]
    # Redis lost: the journal alone rebuilds it with no task; a torn line is skipped
    journal.write_text(journal.read_text() + "4081020408 3,\n")
    store.clear()
    sent: list[int] = []
    again = _build(store, bs, start, journal, sent)
    assert sent == [] and again.entries == result.entries


def test_an_analysis_book_seeds_the_ties(redis_url, solvers, tmp_path):
    bs, s = solvers
    g = Position().geometry
    start = Position.parse(START)
    book = tmp_path / "7x6-analysis.txt"
    with BookWriter(book) as w:
        for key in _tree_by_scan(s, start, PLIES):
            w.analysis(key, s.analyze(position_from_key(key, g)))
    store = ResultStore.from_url(redis_url, g)
    assert seed_ties(store, AnalysisBook.load(book, g)) > 1
    sent: list[int] = []
    result = _build(store, bs, start, sent=sent)
    assert sent == [] and set(result.entries) == set(_tree_by_scan(s, start, PLIES))


@pytest.mark.slow
def test_the_command_builds_the_tie_tree_on_a_real_worker(redis_url, solvers, tmp_path):
    """``c4 bookgen opening --all-ties`` with a local Celery worker: the book
    holds every node of the full-scan tie tree, each with its centre-most move."""
    import subprocess
    import sys
    from pathlib import Path

    from connect4.book import MoveBook

    _, s = solvers
    out = tmp_path / "ties.txt"
    def run(*extra: str) -> None:
        r = subprocess.run([sys.executable, "-m", "c4", "bookgen", "opening", "--all-ties", "--start", START,
                            "--plies", str(PLIES), "--local-workers", "1", "--redis-url", redis_url, "--out",
                            str(out), "--worker-logs", str(tmp_path / "logs"), *extra],
                           cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr

    journal = tmp_path / "ties.txt.ties.journal"
    run("--keep-journal")
    book = MoveBook.load(out)
    expected = _tree_by_scan(s, Position.parse(START), PLIES)
    assert not book.problems and set(book.entries) == set(expected)
    assert all(e.column == expected[key][0] for key, e in book.entries.items())
    kept = {int(line.split()[0], 16): line.split()[1] for line in journal.read_text().splitlines()}
    assert set(book.entries) <= set(kept)  # every tied move of the tree, on record
    assert all(sorted(int(c) - 1 for c in kept[key].split(",")) == sorted(expected[key]) for key in book.entries)
    run()  # everything known in Redis now: the same book, and the journal goes
    assert MoveBook.load(out).entries == book.entries
    assert "--all-ties" in out.read_text() and not journal.exists()
