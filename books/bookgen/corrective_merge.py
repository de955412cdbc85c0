"""Join a new corrective audit with the book it extends (``c4 bookgen merge-corrective``).

The new audit comes first, verbatim; the earlier book follows as it was, minus its title line and
minus each entry whose position (or its mirror image) the new audit also holds, with that entry's
own comment. Lines ``c4 learn`` appended stay last, so later learning still appends after them.
Both books are read with the strict move-book parser first: a line that is not understood stops
the merge before anything is written.
"""

from __future__ import annotations

from pathlib import Path

from connect4 import Geometry
from connect4.book import MoveBook, parse_move_line
from connect4.keys import mirror_key

TITLE = "# Connect Four corrective book"


def _entry_comment(line: str) -> bool:
    """A per-entry comment: ``# <moves>: ...`` (an audit) or ``# learned from ...`` (c4 learn)."""
    text = line[1:].strip()
    head = text.split(":", 1)[0]
    return text.startswith("learned from ") or (":" in text and (head == "" or head.isdigit()))


def read_strict(text: str, name: str, g: Geometry) -> MoveBook:
    """A move book whose every line is understood and that holds an entry, else ValueError naming the line."""
    book = MoveBook.from_text(text, g, name)
    if book.problems:
        raise ValueError(str(book.problems[0]))
    if not book.entries:
        raise ValueError(f"{name}: no {g.name} entries")
    return book


def merge(new_text: str, old_text: str, g: Geometry, new_name: str = "new", old_name: str = "old") -> tuple[str, int]:
    """The joined book's text and the number of the earlier book's entries dropped."""
    new = read_strict(new_text, new_name, g)
    read_strict(old_text, old_name, g)
    held = set(new.entries) | {mirror_key(k, g) for k in new.entries}
    kept: list[str] = []
    dropped = 0
    for line in old_text.splitlines():
        if not kept and line.startswith(TITLE):
            continue
        entry = parse_move_line(line, g)
        if entry is not None and entry.key in held:
            dropped += 1
            if kept and kept[-1].startswith("#") and _entry_comment(kept[-1]):
                kept.pop()
            continue
        kept.append(line)
    joint = [new_text.rstrip("\n"), "#",
             f"# The earlier book follows as it was ({old_name}), without {dropped} entries whose positions "
             "the audit above holds.", *kept]
    return "\n".join(joint) + "\n", dropped


def main(args) -> int:
    import sys

    try:
        g = Geometry.parse(args.size)
        new_path, old_path = Path(args.new), Path(args.old)
        text, dropped = merge(new_path.read_text(encoding="utf-8"), old_path.read_text(encoding="utf-8"), g,
                              new_path.name, old_path.name)
    except (OSError, ValueError) as exc:
        print(f"c4 bookgen merge-corrective: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(out)
    print(f"c4 bookgen merge-corrective: wrote {out} ({dropped} earlier entries superseded)", file=sys.stderr)
    return 0
