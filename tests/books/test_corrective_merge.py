"""``c4 bookgen merge-corrective``: a new audit joined with the shipped book it extends."""

from __future__ import annotations

from pathlib import Path

from connect4 import STANDARD
from connect4.book import MoveBook, format_move_entry
from connect4.keys import mirror_key
from books.bookgen.corrective_merge import merge
from tests.c4cli import run_c4

SHIPPED = Path(__file__).resolve().parents[2] / "books" / "7x6-corrective.txt"
TITLE = "# Connect Four corrective book, 7x6 (a new audit)."


def _new_audit(old: MoveBook) -> tuple[str, int, int]:
    """A new audit holding one old position as it is and another as its mirror image."""
    same, mirrored = sorted(k for k in old.entries if (old.entries[k].score, mirror_key(k) != k) == (0, True))[:2]
    e, m = old.entries[same], old.entries[mirrored]
    lines = [TITLE, "# 4: new audit, same position",
             format_move_entry(same, e.column, e.score),
             "# 4: new audit, the mirror image",
             format_move_entry(mirror_key(mirrored), STANDARD.width - 1 - m.column, m.score)]
    return "\n".join(lines) + "\n", same, mirrored


def test_the_new_audit_comes_first_and_supersedes_the_earlier_entries_of_its_positions():
    old_text = SHIPPED.read_text(encoding="utf-8")
    old = MoveBook.from_text(old_text)
    new_text, same, mirrored = _new_audit(old)
    text, dropped = merge(new_text, old_text, STANDARD)
    assert dropped == 2
    assert text.startswith(new_text)
    joined = MoveBook.from_text(text)
    assert not joined.problems
    assert len(joined) == len(old) + 2 - 2
    assert same in joined.entries and mirrored not in joined.entries and mirror_key(mirrored) in joined.entries
    lines = text.splitlines()
    # each dropped entry went with its own comment, and every other line of the old book is kept in order
    old_lines = [ln for ln in old_text.splitlines()[1:]]
    gone = [i for i, ln in enumerate(old_lines) if ln.split(" ")[0] in (f"{same:x}", f"{mirrored:x}")]
    assert len(gone) == 2
    kept = [ln for i, ln in enumerate(old_lines) if i not in gone and i + 1 not in gone]
    assert lines[-len(kept):] == kept
    assert lines[-1] == old_text.splitlines()[-1]  # c4 learn's lines stay last
    assert sum(ln == TITLE for ln in lines) == 1 and not any(ln.startswith(old_text.splitlines()[0]) for ln in lines)


def test_the_command_rewrites_the_book_in_place_and_refuses_a_book_it_cannot_read(tmp_path, capsys):
    book = tmp_path / "7x6-corrective.txt"
    book.write_text(SHIPPED.read_text(encoding="utf-8"), encoding="utf-8")
    new_text, _, _ = _new_audit(MoveBook.load(book))
    new = tmp_path / "new.txt"
    new.write_text(new_text, encoding="utf-8")
    before = book.read_bytes()

    bad = tmp_path / "bad.txt"
    bad.write_text(new_text + "zz 9 0\n", encoding="utf-8")
    code, err = run_c4(["bookgen", "merge-corrective", str(bad), str(book), "--out", str(book)], capsys)
    assert code == 2 and "bad.txt:6" in err
    assert book.read_bytes() == before

    code, err = run_c4(["bookgen", "merge-corrective", str(new), str(book), "--out", str(book)], capsys)
    assert code == 0, err
    assert "2 earlier entries superseded" in err
    assert len(MoveBook.load(book)) == len(MoveBook.from_text(before.decode()))
    assert book.read_text(encoding="utf-8").startswith(new_text)
