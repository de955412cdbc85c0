"""BookSet: missing files, later books win, reload on change, mirrored lookups."""

import os

from connect4 import Position
from connect4.book import format_move_entry
from connect4.bookset import BookSet
from engine_svc.players import make_player


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))


def test_bookset_reload_override_and_mirror(tmp_path):
    a, b, missing = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "nope.txt"
    p = Position.parse("44")
    q = Position.parse("3")
    _write(a, ["# opening book", format_move_entry(p.key(), 2, 1), "zz not a line", format_move_entry(q.key(), 4, -1)])
    books = BookSet([a, missing, b])
    entry, name = books.lookup(p)
    assert (entry.column, entry.score, name) == (2, 1, "a.txt")
    assert books.lookup(Position.parse("5"))[0].column == 2  # the mirror of "3": column e -> c
    assert books.lookup(Position.parse("1")) is None
    _write(b, [format_move_entry(p.key(), 3, 0)])  # a later book overrides
    assert books.lookup(p)[0].column == 3
    with open(a, "a") as f:  # appended while in use: seen at the next lookup
        f.write(format_move_entry(Position.parse("1").key(), 3, 0) + "\n")
    os.utime(a, (os.stat(a).st_atime, os.stat(a).st_mtime + 5))
    assert books.lookup(Position.parse("1"))[0].column == 3
    b.unlink()
    assert books.lookup(p)[0].column == 2


def test_engine_player_answers_from_the_book(tmp_path):
    book = tmp_path / "book.txt"
    p = Position.parse("4")
    _write(book, [format_move_entry(p.key(), 3, 2)])
    player = make_player("engine:100", books=BookSet([book]))
    r = player.choose(p)
    assert r.book and r.column == 3 and r.outcome == "win" and r.pv == [3]
    assert not player.choose(p, use_book=False).book


def test_a_book_answer_counts_the_plies_to_the_end_for_either_winner():
    """Each Pons score stands for one stone of each player: the empty board's
    +1 is the first player's 21st stone, ply 41 (not 42); the second player's
    +2 after 1 stone is its 20th stone, ply 40; losses likewise."""
    from connect4.book import BookEntry
    from engine_svc.players.ladder import book_result
    from tests.engine.reference import pons_score

    cells = 42
    for moves, score, end in (("", 1, 41), ("1", 2, 40), ("", -1, 42), ("1", -2, 39), ("", 0, 42)):
        pos = Position.parse(moves)
        r = book_result(pos, BookEntry(pos.key(), 3, score))
        assert r.plies_to_end == end - pos.ply, (moves, score)
        assert r.outcome == ("win" if score > 0 else "loss" if score < 0 else "draw")
        assert pons_score(r.score, cells) == score  # the engine's scale gives the same score back


def test_reply_from_the_scores_of_booked_children(tmp_path):
    # A move book of the first player's positions holds every reply of the
    # second: after "4" each of the seven children is booked (their scores are
    # the first player's), so the second player takes the lowest, centre first.
    book = tmp_path / "book.txt"
    p = Position.parse("4")
    scores = {0: 4, 1: 2, 2: 1, 3: 1, 4: 1, 5: 2, 6: 4}  # c, d, e tie: d is the centre
    _write(book, [format_move_entry(p.played(c).key(), 3, s) for c, s in scores.items()])
    books = BookSet([book])
    entry, name = books.lookup(p)
    assert (entry.column, entry.score, name) == (3, -1, "book.txt, replies")
    r = make_player("engine:100", books=books).choose(p)
    assert r.book and r.column == 3 and r.outcome == "loss"
    scores[2] = -1  # now c leaves the first player lost
    _write(book, [format_move_entry(p.played(c).key(), 3, s) for c, s in scores.items()])
    os.utime(book, (os.stat(book).st_atime, os.stat(book).st_mtime + 5))
    assert books.lookup(p)[0].column == 2
    # A child missing (a and g: each is the other's mirror image): no book answer, the engine searches.
    _write(book, [format_move_entry(p.played(c).key(), 3, s) for c, s in scores.items() if c not in (0, 6)])
    os.utime(book, (os.stat(book).st_atime, os.stat(book).st_mtime + 10))
    assert books.lookup(p) is None
    assert not make_player("engine:100", books=books).choose(p).book


def test_missing_or_unreadable_books_warn_once_and_play_on(tmp_path, caplog):
    missing, folder, junk = tmp_path / "nope.txt", tmp_path / "a-folder", tmp_path / "junk.txt"
    folder.mkdir()
    _write(junk, ["this is not a book", "nor is this"])
    books = BookSet([missing, folder, junk])
    p = Position.parse("4")
    with caplog.at_level("INFO", logger="connect4.bookset"):
        for _ in range(3):
            assert books.lookup(p) is None
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and "line skipped" not in r.getMessage()]
    assert len(warned) == 3, warned  # one each, not one per lookup
    assert any(str(missing) in m and "not found" in m for m in warned)
    assert any(str(folder) in m and "cannot read" in m for m in warned)
    assert any(str(junk) in m and "none of its 2 lines" in m for m in warned)
    caplog.clear()
    _write(missing, [format_move_entry(p.key(), 3, 2)])  # appears later: read at the next lookup
    assert books.lookup(p)[0].column == 3
    missing.unlink()
    with caplog.at_level("WARNING", logger="connect4.bookset"):
        assert books.lookup(p) is None
    assert [str(missing) in r.getMessage() for r in caplog.records] == [True]  # gone again: told again


def test_the_shipped_books_may_be_absent_without_a_warning(tmp_path, caplog):
    from connect4.bookset import SHIPPED_MOVE_BOOKS as DEFAULT_BOOKS

    absent = [p for p in DEFAULT_BOOKS if not p.exists()]
    books = BookSet([*DEFAULT_BOOKS, tmp_path / "configured.txt"])
    with caplog.at_level("INFO", logger="connect4.bookset"):
        books.lookup(Position.parse("4"))
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warned) == 1 and "configured.txt" in warned[0]
    assert len([r for r in caplog.records if r.levelname == "INFO" and "not found" in r.getMessage()]) == len(absent)
