"""The analysis-book generator: exact lines, mirror images once, finished games
and bad lines skipped, resumable."""

from __future__ import annotations

from connect4 import Position, STANDARD
from connect4.book import AnalysisBook
from books.analysis_gen import enumerate_positions, main
from solver_svc.solver import Solver

from .support import TT_LOG2

DEEP = ["2252576253462244111563365343671351441", "7422341735647741166133573473242566",
        "23163416124767223154467471272416755633"]


def mirror(moves: str) -> str:
    return "".join(str(8 - int(c)) for c in moves)


def test_enumeration_keeps_one_of_each_mirror_pair():
    # 7 one-stone positions = 3 mirror pairs + the centre; 49 two-stone
    # positions = 24 pairs + the one symmetric position (both in the centre).
    assert [len(enumerate_positions(STANDARD, p, p)) for p in (0, 1, 2)] == [1, 4, 25]
    assert len(enumerate_positions(STANDARD, 0, 2)) == 30


def test_generated_lines_are_the_solvers_and_a_rerun_adds_nothing(tmp_path):
    listing = tmp_path / "positions.txt"
    listing.write_text("\n".join([
        DEEP[0], mirror(DEEP[0]),      # the same position twice
        DEEP[1], "# a comment", "",
        "1212121",                     # a finished game: skipped
        "4444444",                     # illegal: skipped with a warning
        DEEP[2],
    ]) + "\n")
    out = tmp_path / "7x6-analysis.txt"
    assert main(["--positions", str(listing), "--out", str(out), "--tt-log2", str(TT_LOG2)]) == 0
    book = AnalysisBook.load(out)
    assert not book.problems and len(book) == 3
    solver = Solver(STANDARD, TT_LOG2)
    for moves in DEEP:
        for m in (moves, mirror(moves)):
            pos = Position.parse(m)
            assert book.lookup(pos) == tuple(solver.analyze(pos))
    text = out.read_text()
    assert text.startswith("# Analysis book 7x6") and "3 written" in text
    assert main(["--positions", str(listing), "--out", str(out), "--tt-log2", str(TT_LOG2)]) == 0
    again = out.read_text()
    assert "0 written, 3 already there" in again
    assert len([line for line in again.splitlines() if not line.startswith("#")]) == 3


def test_a_move_books_tree_with_child_scores_from_the_book(tmp_path, capsys):
    """--tree: the book side's positions and the positions right after a book
    move; the book's exact scores stand in for the children it has."""
    from books.analysis_gen import canonical, tree_positions
    from connect4.book import MoveBook, format_move_entry

    start = Position.parse("52753311433677442422121")  # the second player to move
    solver = Solver(STANDARD, TT_LOG2)
    lines, book_side, other_side = [], set(), set()
    frontier = [start]
    for _ in range(2):  # two book moves deep
        nxt = []
        for pos in frontier:
            col, score = solver.best_move(pos)
            lines.append(format_move_entry(pos.key(), col, score))
            book_side.add(canonical(pos)[0])
            after = pos.played(col)
            if after.is_over:
                continue
            other_side.add(canonical(after)[0])
            nxt += [r for r in (after.played(c) for c in after.legal_moves()) if not r.is_over]
        frontier = nxt
    book_path = tmp_path / "7x6-tree.txt"
    book_path.write_text("\n".join(lines) + "\n")
    book = MoveBook.load(book_path)
    found = tree_positions(book, STANDARD, start=start)
    assert {canonical(p)[0] for p in found} == book_side | other_side
    assert {canonical(p)[0] for p in tree_positions(book, STANDARD, sides="other", start=start)} == other_side

    out = tmp_path / "7x6-analysis.txt"
    args = ["--tree", str(book_path), "--start", "52753311433677442422121", "--known", str(book_path),
            "--out", str(out), "--tt-log2", str(TT_LOG2)]
    assert main([*args, "--side", "other"]) == 0  # their children with a book move are in the book
    stats = dict(kv.split("=") for kv in capsys.readouterr().err.split() if "=" in kv)
    assert int(stats["children_from_books"]) >= len(other_side) and int(stats["written"]) == len(other_side)
    assert main(args) == 0  # both sides: adds the book side's positions
    stats = dict(kv.split("=") for kv in capsys.readouterr().err.split() if "=" in kv)
    assert int(stats["written"]) == len(book_side) and int(stats["already"]) == len(other_side)
    analysis = AnalysisBook.load(out)
    assert set(analysis.entries) == book_side | other_side
    for pos in found:
        assert analysis.lookup(pos) == tuple(solver.analyze(pos)), pos


def test_a_slow_child_solve_is_logged_with_its_score(tmp_path, capfd, monkeypatch):
    """Long runs (a one-stone position's children take minutes each) show their
    progress child by child; fast children stay quiet."""
    import json

    import books.analysis_gen as gen

    def solved_lines():
        lines = [json.loads(x) for x in capfd.readouterr().err.splitlines() if x.startswith("{")]
        return [x for x in lines if x["msg"] == "child solved"]

    listing = tmp_path / "positions.txt"
    listing.write_text(DEEP[0] + "\n")
    capfd.readouterr()
    assert main(["--positions", str(listing), "--out", str(tmp_path / "a.txt"), "--tt-log2", str(TT_LOG2)]) == 0
    assert not solved_lines()
    monkeypatch.setattr(gen, "SLOW_CHILD_S", 0.0)
    assert main(["--positions", str(listing), "--out", str(tmp_path / "b.txt"), "--tt-log2", str(TT_LOG2)]) == 0
    solved = solved_lines()
    pos = Position.parse(DEEP[0])
    solver = Solver(STANDARD, TT_LOG2)
    expected = {c: solver.solve(pos.played(c)).score for c in range(7)
                if pos.can_play(c) and not pos.is_winning_move(c) and not pos.played(c).is_over}
    assert sorted(x["moves"] for x in solved) == sorted(DEEP[0] + str(c + 1) for c in expected)
    assert all(x["score"] == expected[int(x["moves"][-1]) - 1] and x["seconds"] >= 0 for x in solved)
