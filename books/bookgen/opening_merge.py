"""Join opening-book trees into one book (``c4 bookgen merge-opening``).

Each input is a move book (one tree of ``c4 bookgen opening``, or a book
already joined). Every input is read with the strict move-book parser
first; a position (or its mirror image) in two inputs must have the same
move and score there, else nothing is written: the trees were solved by the
same solver with the same tie-break, so a disagreement is a fault to look
at, not a choice to make. The joined book stores each position once under
the smaller of its two keys, sorted by key; its header keeps every input's
own header lines, so the provenance of each tree stays in the book.
"""

from __future__ import annotations

import os
from pathlib import Path

from connect4 import Geometry
from connect4.keys import mirror_key, position_from_key
from connect4.notation import format_moves

from .corrective_merge import read_strict
from .opening import by_stones, write_book


def _header(text: str) -> list[str]:
    """The comment lines before an input's first entry, without their ``#``."""
    out = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        out.append(line[1:].strip())
    return out


def merge(inputs: list[tuple[str, str]], g: Geometry) -> tuple[dict[int, tuple[int, int]], str]:
    """(entries by the smaller key: (0-based column, score), the joined header)
    of the ``(name, text)`` inputs. Raises ValueError on an unreadable input or
    two inputs that disagree on a position."""
    if not inputs:
        raise ValueError("no books to join")
    entries: dict[int, tuple[int, int]] = {}
    source: dict[int, str] = {}
    for name, text in inputs:
        for key, e in read_strict(text, name, g).entries.items():
            mirrored = mirror_key(key, g)
            canon, col = (key, e.column) if key <= mirrored else (mirrored, g.width - 1 - e.column)
            if canon in entries and entries[canon] != (col, e.score):
                had_col, had_score = entries[canon]
                moves = format_moves(position_from_key(canon, g).moves, g) or "the empty board"
                raise ValueError(f"{name} and {source[canon]} disagree on {canon:x} ({moves}, mirror images "
                                 f"once): column {col + 1} score {e.score} against column {had_col + 1} "
                                 f"score {had_score}")
            entries[canon] = (col, e.score)
            source.setdefault(canon, name)
    lines = [
        f"Connect Four opening book, {g.name} (Connect4-rs format: <key hex> <best column 1-{g.width}> <score>).",
        "Keys are Pascal Pons' keys; scores are Pons' (positive: the side to move wins, sooner is larger).",
        f"Joined by c4 bookgen merge-opening from {len(inputs)} books, a position and its mirror image once "
        "(the smaller key); the inputs' headers:",
    ]
    for name, text in inputs:
        lines.append(f"  {name}:")
        lines += [f"    {h}" for h in _header(text) if not h.startswith(("Connect Four opening book", "Keys are"))]
    lines.append(f"Entries: {len(entries)}; by stones: "
                 + ", ".join(f"{n}: {c}" for n, c in by_stones(entries, g).items()) + ".")
    return entries, "\n".join(lines)


def main(args) -> int:
    import sys

    try:
        g = Geometry.parse(args.size)
        inputs = [(Path(p).name, Path(p).read_text(encoding="utf-8")) for p in args.books]
        entries, header = merge(inputs, g)
    except (OSError, ValueError) as exc:
        print(f"c4 bookgen merge-opening: {exc}", file=sys.stderr)
        return 2
    write_book(os.fspath(args.out), entries, header)
    print(f"c4 bookgen merge-opening: wrote {args.out} ({len(entries)} entries)", file=sys.stderr)
    return 0
