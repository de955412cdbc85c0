"""Book files: reading, mirror lookup, malformed lines, the flushing writer."""

from connect4 import Position
from connect4.book import AnalysisBook, BookWriter, MoveBook, parse_move_line

TEXT = """# a test book
{k1:x} 4 1
{k2:x} 3 -2   # trailing comment
not-hex 4 1
{k1:x} 9 1
{k1:x} 4
{bad_key:x} 4 0
{k1:x} 4 99
"""


def test_reader_skips_bad_lines_and_names_them():
    k1 = Position.parse("44").key()
    k2 = Position.parse("1").key()
    book = MoveBook.from_text(TEXT.format(k1=k1, k2=k2, bad_key=1 << 60), name="t.txt")
    assert len(book) == 2
    reasons = {p.line: p.reason for p in book.problems}
    assert set(reasons) == {4, 5, 6, 7, 8}
    assert "hexadecimal" in reasons[4]
    assert "not in 1..7" in reasons[5]
    assert "3 fields" not in reasons[6] and "2 fields" in reasons[6]
    assert "key" in reasons[7]
    assert "out of range" in reasons[8]
    assert str(book.problems[0]).startswith("t.txt:4:")


def test_lookup_finds_mirrored_positions():
    pos = Position.parse("1")
    book = MoveBook.from_text(f"{pos.key():x} 2 -3\n")
    mirrored = Position.parse("7")
    entry = book.lookup(mirrored)
    assert entry is not None and entry.column == 5 and entry.score == -3
    assert book.lookup(pos).column == 1
    assert book.lookup(Position.parse("4")) is None


def test_writer_flushes_every_line(tmp_path):
    path = tmp_path / "book.txt"
    writer = BookWriter(path, header="made by a test\nsecond line")
    k = Position.parse("4").key()
    writer.move(k, 3, 5)
    # visible before close: an interrupted run keeps what it wrote
    text = path.read_text()
    assert text.splitlines() == ["# made by a test", "# second line", f"{k:x} 4 5"]
    writer.analysis(k, [1, None, -2, 0, 0, 0, 0])
    writer.close()
    assert MoveBook.load(path).lookup(Position.parse("4")).column == 3
    again = BookWriter(path, header="not repeated")
    again.close()
    assert path.read_text().count("#") == 2


def test_analysis_book_mirror(tmp_path):
    pos = Position.parse("1")
    path = tmp_path / "a.txt"
    path.write_text(f"{pos.key():x} 1 2 3 4 5 6 x\n{pos.key():x} 1 2\n")
    book = AnalysisBook.load(path)
    assert book.lookup(pos) == (1, 2, 3, 4, 5, 6, None)
    assert book.lookup(Position.parse("7")) == (None, 6, 5, 4, 3, 2, 1)
    assert len(book.problems) == 1 and book.problems[0].line == 2


def test_blank_and_comment_lines():
    assert parse_move_line("   ") is None
    assert parse_move_line("# only a comment") is None
