"""``c4 bookgen merge-opening``: trees joined into one book, a disagreement refused."""

from __future__ import annotations

from pathlib import Path

from connect4 import STANDARD, Position
from connect4.book import MoveBook, format_move_entry
from connect4.keys import mirror_key
from books.bookgen.opening_merge import merge
from tests.c4cli import run_c4

SHIPPED = Path(__file__).resolve().parents[2] / "books" / "7x6-opening.txt"
HEAD = "# Connect Four opening book, 7x6 (Connect4-rs format: <key hex> <best column 1-7> <score>).\n"


def _book(tree: str, *lines: str) -> str:
    return HEAD + f"# Tree: {tree}\n" + "\n".join(lines) + "\n"


def _line(moves: str, column: int, score: int, mirrored: bool = False) -> str:
    """A book line of ``moves`` (1-based ``column``), stored under the mirror's key when asked."""
    pos = Position.parse(moves)
    if mirrored:
        return format_move_entry(pos.mirror_key(), STANDARD.width - column, score)
    return format_move_entry(pos.key(), column - 1, score)


def test_trees_join_with_a_shared_position_once_under_its_smaller_key():
    a = _book("a", _line("", 4, 1), _line("44", 4, 4), _line("4433", 5, 5, mirrored=True))
    b = _book("b", _line("44", 4, 4), _line("3", 4, -2), _line("4433", 5, 5))
    entries, header = merge([("a.txt", a), ("b.txt", b)], STANDARD)
    assert len(entries) == 4
    pos = Position.parse("4433")
    smaller = min(pos.key(), pos.mirror_key())
    col = 4 if smaller == pos.key() else STANDARD.width - 1 - 4
    assert entries[smaller] == (col, 5) and max(pos.key(), pos.mirror_key()) not in entries
    assert "  a.txt:" in header and "    Tree: a" in header and "    Tree: b" in header
    assert header.count("Connect Four opening book") == 1
    assert header.splitlines()[-1].startswith("Entries: 4; by stones: 0: 1, 1: 1, 2: 1, 4: 1")


def test_a_disagreement_names_both_books_and_the_position():
    a = _book("a", _line("44", 4, 4))
    b = _book("b", _line("44", 3, 4))
    try:
        merge([("a.txt", a), ("b.txt", b)], STANDARD)
    except ValueError as exc:
        assert "b.txt and a.txt disagree" in str(exc) and "44" in str(exc)
    else:
        raise AssertionError("a disagreement was joined")


def test_the_command_joins_the_shipped_book_with_a_tree_and_refuses_bad_input(tmp_path, capsys):
    shipped = MoveBook.load(SHIPPED)
    tree = tmp_path / "tree.txt"
    outside = "12345671234567"  # 14 stones: past every tree of the shipped book
    assert Position.parse(outside) not in shipped
    key = next(k for k in shipped.entries if mirror_key(k) != k)
    e = shipped.entries[key]
    tree.write_text(_book("one shared entry, stored mirrored",
                          format_move_entry(mirror_key(key), STANDARD.width - 1 - e.column, e.score),
                          _line(outside, 4, 0)), encoding="utf-8")
    out = tmp_path / "joined.txt"
    code, err = run_c4(["bookgen", "merge-opening", str(SHIPPED), str(tree), "--out", str(out)], capsys)
    assert code == 0, err
    joined = MoveBook.load(out)
    assert not joined.problems and len(joined) == len(shipped) + 1
    assert all(min(k, mirror_key(k)) == k for k in joined.entries)

    before = out.read_bytes()
    bad = tmp_path / "bad.txt"
    bad.write_text(_book("bad", "zz 9 0"), encoding="utf-8")
    code, err = run_c4(["bookgen", "merge-opening", str(bad), str(SHIPPED), "--out", str(out)], capsys)
    assert code == 2 and "bad.txt" in err and out.read_bytes() == before
    wrong = tmp_path / "wrong.txt"
    wrong.write_text(_book("wrong", format_move_entry(key, e.column, e.score + 1)), encoding="utf-8")
    code, err = run_c4(["bookgen", "merge-opening", str(SHIPPED), str(wrong), "--out", str(out)], capsys)
    assert code == 2 and "disagree" in err and out.read_bytes() == before
    code, err = run_c4(["bookgen", "merge-opening", str(tmp_path / "none.txt"), "--out", str(out)], capsys)
    assert code == 2 and "none.txt" in err
