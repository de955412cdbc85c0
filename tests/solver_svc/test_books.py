"""Books as the solver service and bookview load them: every shipped entry's
key round trip, a sample of shipped entries against the solver, malformed
lines, mirrored and composed lookups, and the bookview command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from books import BOOK_DIR
from connect4.bookset import BookSet, best_of, book_files, geometry_of, is_analysis_file
from connect4 import Geometry, Position, STANDARD
from connect4.book import format_analysis_entry, format_move_entry
from connect4.keys import position_from_key
from solver_svc.solver import Solver

from c4proto.connect4.v1 import solver_pb2, solver_pb2_grpc

from .support import TT_LOG2, position, scores_of, start

SHIPPED = book_files(None)
DEEP = "2252576253462244111563365343671351441"  # cheap to solve


def solver() -> Solver:
    return Solver(STANDARD, TT_LOG2)


# -- shipped books -------------------------------------------------------------
@pytest.mark.skipif(not SHIPPED, reason="no books shipped in books/ yet")
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_entry_round_trips_through_its_key(path):
    books = BookSet.load_files([path])
    assert not books.problems, [str(p) for p in books.problems[:5]]
    book = books.books[0]  # may be empty: a corrective book only has entries where needed
    g = geometry_of(path)
    for key in book.entries:
        pos = position_from_key(key, g)  # a legal history reaching it
        assert pos.key() == key
        assert not pos.is_over
        assert Position.from_moves(pos.moves, g).key() == key


@pytest.mark.skipif(not SHIPPED, reason="no books shipped in books/ yet")
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_a_sample_of_shipped_entries_agrees_with_the_solver(path):
    """The deepest entries of each book (shallow ones take the solver minutes;
    the generators prove every entry they write)."""
    books = BookSet.load_files([path])
    g = geometry_of(path)
    if g != STANDARD:
        pytest.skip("sampled on 7x6 books")
    book = books.books[0]
    positions = sorted((position_from_key(k, g) for k in book.entries), key=lambda p: -p.ply)[:3]
    s = solver()
    for pos in positions:
        if books.analysis_books:
            assert tuple(s.analyze(pos)) == book.lookup(pos), pos
            continue
        entry = book.lookup(pos)
        assert s.solve(pos).score == entry.score, pos
        if pos.is_winning_move(entry.column):  # the book move keeps the value
            assert entry.score == (g.cells + 1 - pos.ply) // 2, pos
        else:
            child = pos.played(entry.column)
            assert (0 if child.ply == g.cells else -s.solve(child).score) == entry.score, pos


ANALYSIS = BOOK_DIR / "7x6-analysis.txt"


@pytest.mark.skipif(not ANALYSIS.exists(), reason="no analysis book shipped")
def test_booked_positions_are_answered_without_search():
    """Analyze and BestMove on shipped analysis entries (the shallowest ones,
    the hardest for the solver) come from the book: a node budget of one node
    would stop any search."""
    books = BookSet.load_files([ANALYSIS])
    book = books.analysis_books[0]
    shallow = sorted((position_from_key(k) for k in book.entries), key=lambda p: p.ply)[:4]
    server, channel, oracle = start({"books": str(BOOK_DIR), "cache_size": 0}, None)
    try:
        stub = solver_pb2_grpc.SolverServiceStub(channel)
        for pos in shallow:
            for moves in (pos.moves, [pos.geometry.width - 1 - c for c in pos.moves]):  # and its mirror image
                p = Position.from_moves(moves)
                msg = position("".join(str(c + 1) for c in moves))
                a = stub.Analyze(solver_pb2.AnalyzeRequest(position=msg, node_budget=1))
                assert (a.source, a.nodes, tuple(scores_of(a))) == ("book", 0, book.lookup(p)), moves
                b = stub.BestMove(solver_pb2.BestMoveRequest(position=msg, deadline_ms=1))
                assert b.proven and b.source == "book" and (b.column - 1, b.score) == oracle.books.best_move(p)
                assert b.score == max(s for s in book.lookup(p) if s is not None)
    finally:
        channel.close()
        server.stop(0)


# -- malformed lines -----------------------------------------------------------
def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def test_malformed_lines_are_named_and_skipped(tmp_path):
    pos = Position.parse(DEEP)
    good = format_move_entry(pos.key(), 5, -1)
    path = write(tmp_path / "7x6-test.txt", [
        "# a comment",
        good,
        "zz 4 1",                      # 3: not hex
        f"{pos.key():x} 9 1",          # 4: column off the board
        f"{pos.key():x} 4",            # 5: a field missing
        "4081020c0c1 4 1",             # 6 decodes, but fine for the reader: a key with markers
        f"{(1 << 60):x} 4 1",          # 7: not a 7x6 key
        f"{pos.key():x} 4 99",         # 8: score out of range
    ])
    books = BookSet.load_files([path])
    problems = {p.line: p for p in books.problems}
    assert set(problems) == {3, 4, 5, 7, 8}
    assert "not hexadecimal" in problems[3].reason
    assert "not in 1..7" in problems[4].reason
    assert "expected" in problems[5].reason
    assert "7x6-test.txt:3:" in str(problems[3])
    assert books.score(pos) == -1  # the good line is there


def test_a_service_with_a_bad_book_serves_its_good_entries(tmp_path):
    pos = Position.parse(DEEP)
    scores = solver().analyze(pos)
    write(tmp_path / "7x6-analysis-test.txt", [
        "garbage line here",
        format_analysis_entry(pos.mirror_key(), reversed(scores)),  # stored as the mirror image
        "40810204081 1 2 3",
    ])
    server, channel, oracle = start({"books": str(tmp_path)}, None)
    try:
        assert len(oracle.books.problems) == 2
        stub = solver_pb2_grpc.SolverServiceStub(channel)
        a = stub.Analyze(solver_pb2.AnalyzeRequest(position=position(DEEP)))
        assert (a.source, scores_of(a)) == ("book", scores)
        s = stub.Solve(solver_pb2.SolveRequest(position=position(DEEP)))
        assert (s.source, s.score) == ("book", max(x for x in scores if x is not None))
        b = stub.BestMove(solver_pb2.BestMoveRequest(position=position(DEEP)))
        assert b.source == "book" and (b.column - 1, b.score) == best_of(scores, STANDARD)
    finally:
        channel.close()
        server.stop(0)


def test_entries_that_do_not_fit_their_position_are_ignored_with_a_warning(tmp_path, caplog):
    """A move into a full column, and scores for full columns, parse fine but
    are illegal answers: the solver proves the position itself instead."""
    pos = Position.parse(DEEP)  # columns 1-5 are full; the best move is 6, scoring -1
    moves = write(tmp_path / "7x6-moves.txt", [format_move_entry(pos.key(), 0, 17)])
    analysis = write(tmp_path / "7x6-analysis-bad.txt", [format_analysis_entry(pos.key(), [5, 5, 5, 5, 5, -1, -2])])
    for path in (moves, analysis):
        books = BookSet.load_files([path])
        assert not books.problems  # well-formed lines: only the position shows them wrong
        with caplog.at_level("WARNING", logger="connect4.bookset"):
            assert books.best_move(pos) is None and books.score(pos) is None and books.hits(pos) == []
        warned = [r for r in caplog.records if "book entry ignored" in r.getMessage()]
        assert len(warned) == 1 and path.name in warned[0].getMessage()  # once per entry, naming the book
        caplog.clear()
    server, channel, oracle = start({"books": f"{moves},{analysis}", "cache_size": 0}, None)
    try:
        stub = solver_pb2_grpc.SolverServiceStub(channel)
        b = stub.BestMove(solver_pb2.BestMoveRequest(position=position(DEEP)))
        assert (b.source, b.column, b.score) == ("solver", 6, -1)
        s = stub.Solve(solver_pb2.SolveRequest(position=position(DEEP)))
        assert (s.source, s.score) == ("solver", -1)
    finally:
        channel.close()
        server.stop(0)


def test_column_scores_composed_from_child_entries(tmp_path):
    pos = Position.parse(DEEP[:-1])
    s = solver()
    expected = s.analyze(pos)
    lines = []
    for c in pos.legal_moves():
        child = pos.played(c)
        if child.is_over:
            continue
        score = s.solve(child).score
        key = child.key() if c % 2 else child.mirror_key()  # some stored mirrored
        lines.append(format_move_entry(key, 0, score))
    books = BookSet.load_files([write(tmp_path / "7x6-children.txt", lines)])
    assert books.analysis(pos) == tuple(expected)
    assert books.best_move(pos) == best_of(expected, STANDARD)
    assert books.analysis(Position.parse(DEEP[:-3])) is None  # children unknown


def test_best_move_follows_the_move_book_on_ties(tmp_path):
    """Where two columns share the best score, the perfect player plays the
    move book's column (its tree continues there), not the analysis' centre-first pick."""
    pos = Position.parse(DEEP[:-1])
    scores = list(solver().analyze(pos))
    best = max(s for s in scores if s is not None)
    left, right = 0, 6  # both playable, equally far from the centre: the analysis picks the left one
    scores[left] = scores[right] = best + 1 if best < 18 else best
    write(tmp_path / "7x6-analysis-tie.txt", [format_analysis_entry(pos.key(), scores)])
    assert BookSet.load(str(tmp_path)).best_move(pos) == (left, scores[left])
    write(tmp_path / "7x6-moves.txt", [format_move_entry(pos.mirror_key(), 6 - right, scores[right])])
    books = BookSet.load(str(tmp_path))
    assert books.best_move(pos) == (right, scores[right])  # the move book's column, mirrored back
    assert books.analysis(pos) == tuple(scores)


def test_book_geometry_from_file_name():
    assert geometry_of("7x6-opening.txt") == STANDARD
    assert geometry_of("6x5-opening.txt") == Geometry(6, 5)
    assert geometry_of("8x7k5-analysis.txt") == Geometry(8, 7, 5)
    assert geometry_of("opening.txt") == STANDARD
    assert book_files("none") == [] and book_files("") == []
    assert book_files(str(BOOK_DIR)) == SHIPPED


def test_book_kind_from_name_else_from_the_first_entry(tmp_path):
    pos = Position.parse("44")
    assert is_analysis_file(BOOK_DIR / "7x6-analysis.txt", STANDARD)
    assert not is_analysis_file(BOOK_DIR / "7x6-opening.txt", STANDARD)
    scores = tmp_path / "scores.txt"  # no hint in the name: one score per column
    scores.write_text("# comment\n" + format_analysis_entry(pos.key(), [1, 0, -1, 2, None, 0, -3]) + "\n")
    moves = tmp_path / "moves.txt"
    moves.write_text("\n" + format_move_entry(pos.key(), 3, 2) + "\n")
    assert is_analysis_file(scores, STANDARD) and not is_analysis_file(moves, STANDARD)
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing yet\n")
    assert not is_analysis_file(empty, STANDARD)


# -- bookview ------------------------------------------------------------------
def test_bookview_by_moves_and_by_key(tmp_path, capsys):
    from c4.main import main

    pos = Position.parse(DEEP)
    write(tmp_path / "7x6-view.txt", [format_move_entry(pos.mirror_key(), 6 - 5, 1)])
    assert main(["bookview", "--books", str(tmp_path), DEEP]) == 0
    out = capsys.readouterr().out
    assert f"key       {pos.key():x}" in out
    assert "\n".join(str(pos).splitlines()) in out  # the ASCII board
    assert "to move   X (first player)" in out if pos.to_move == 0 else "to move   O (second player)" in out
    assert f"history   {DEEP}" in out
    assert "7x6-view.txt" in out and "best 6 score 1" in out  # mirrored back to column 6
    replay = json.loads(out.strip().splitlines()[-1])
    assert replay == {"cmd": "replay", "moves": [int(c) for c in DEEP], "engine_starts": pos.to_move == 1}

    assert main(["bookview", "--books", "none", f"0x{pos.key():x}"]) == 0
    out = capsys.readouterr().out
    history = out.split("history   ")[1].split()[0]
    assert Position.parse(history).key() == pos.key()  # a legal history reaching the key
    assert "(no books loaded)" in out


def test_bookview_lists_every_book_and_the_composed_scores(tmp_path, capsys):
    from c4.main import main

    pos = Position.parse(DEEP[:-1])
    s = solver()
    expected = s.analyze(pos)
    children = [pos.played(c) for c in pos.legal_moves() if not pos.played(c).is_over]
    lines = [format_move_entry(child.key(), child.legal_moves()[0], s.solve(child).score) for child in children]
    write(tmp_path / "7x6-children.txt", lines)
    write(tmp_path / "7x6-analysis-other.txt", [format_analysis_entry(Position.parse("4").key(), [1] * 7)])
    spaced = " ".join(DEEP[:-1])  # unquoted moves arrive as several arguments
    assert main(["bookview", "--books", str(tmp_path), *spaced.split()]) == 0
    out = capsys.readouterr().out
    assert "7x6-analysis-other.txt   analysis  no entry" in out
    assert "7x6-children.txt         move      no entry" in out
    composed = " ".join(f"{c + 1}:{'x' if v is None else v}" for c, v in enumerate(expected))
    col, score = best_of(expected, STANDARD)
    assert f"composed (child scores)  analysis  {composed}   best {col + 1} score {score}" in out


@pytest.mark.parametrize("argv, message", [
    (["44444444"], "column 4 is full"),
    (["4", "4", "9"], "off the board"),
    (["0xzz"], "not hexadecimal"),
    (["0x1"], "no height marker"),
    (["--key", "4081020c0c1"], "no legal game reaches"),
    (["fffffffffffff"], "is neither moves"),
    (["--moves", "0x40810204081"], ""),
    (["--size", "9x9", "4"], "board 9x9 needs 90 bits: the books"),
    (["--size", "17x9", "4"], "width and height 1..16"),
])
def test_bookview_bad_input_is_a_clear_error(argv, message, capsys):
    from c4.main import main

    assert main(["bookview", "--books", "none", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("c4 bookview: ") and message in err and "Traceback" not in err


def test_book_warnings_name_the_file_in_the_message(tmp_path, caplog):
    """The message itself names the file, so a handler that prints only the
    message (the CLI's default) still says which book."""
    missing = tmp_path / "7x6-missing.txt"
    with caplog.at_level("WARNING", logger="connect4.bookset"):
        assert book_files(str(missing)) == []
        BookSet.load_files([tmp_path])  # a folder is no book file
    messages = [r.getMessage() for r in caplog.records]
    assert any(str(missing) in m and "not found" in m for m in messages), messages
    assert any(str(tmp_path) in m and "not loaded" in m for m in messages), messages
