"""Every BookSet of a process shares one parse of an unchanged book file."""

from __future__ import annotations

import os

from connect4 import Position
from connect4.book import format_move_entry
from connect4.bookset import BookSet


def _write(path, moves: str, column: int, score: int) -> None:
    pos = Position.parse(moves)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(f"# a test book\n{format_move_entry(pos.key(), column, score)}\n", encoding="utf-8")
    os.replace(tmp, path)  # a new file (a new inode), as bookgen writes a book


def test_two_sets_share_the_parse_and_a_changed_file_is_read_again(tmp_path):
    book = tmp_path / "7x6-test.txt"
    _write(book, "44", 3, 4)
    a, b = BookSet([book]), BookSet([book])
    assert a.refresh()[0] is b.refresh()[0]
    assert a.lookup(Position.parse("44"))[0].column == 3
    _write(book, "44", 2, 4)  # same size, maybe the same mtime tick: the inode tells them apart
    assert a.lookup(Position.parse("44"))[0].column == 2 and b.lookup(Position.parse("44"))[0].column == 2
    assert BookSet([book]).refresh()[0] is a.refresh()[0]
