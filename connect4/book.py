"""Opening-book files (the Connect4-rs format) and analysis books.

Move book, one position a line::

    # comment
    <key hex> <best column 1..W> <score>

Analysis book, one position a line, a score per column (``x`` = full)::

    <key hex> <s1> <s2> ... <sW>

Keys are Pascal Pons' keys (:meth:`Position.key`); scores are Pons' (positive:
the side to move wins). Lookups also find the mirrored position and mirror the
answer. Reading never raises on a bad line: it is reported with its line
number and skipped, so one bad line cannot take a process down.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TextIO, TypeVar

from .errors import InvalidPosition
from .geometry import STANDARD, Geometry
from .keys import decode_key, parse_key

if TYPE_CHECKING:
    from .position import Position

T = TypeVar("T")


@dataclass(frozen=True)
class BookEntry:
    key: int
    column: int  # 0-based inside the library
    score: int


@dataclass(frozen=True)
class BookProblem:
    """A line of a book file that was skipped, and why."""

    source: str
    line: int
    text: str
    reason: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.reason}: {self.text.strip()!r}"


def _strip_comment(line: str) -> str:
    return line.split("#", 1)[0].strip()


def _check_key(key: int, g: Geometry) -> None:
    decode_key(key, g)  # raises InvalidPosition for a key no position has


def parse_move_line(line: str, g: Geometry = STANDARD) -> BookEntry | None:
    """One move-book line -> entry (None for blank/comment); InvalidPosition if malformed."""
    body = _strip_comment(line)
    if not body:
        return None
    parts = body.split()
    if len(parts) != 3:
        raise InvalidPosition(f"expected '<key hex> <column> <score>', got {len(parts)} fields")
    key = parse_key(parts[0])
    _check_key(key, g)
    try:
        column, score = int(parts[1]), int(parts[2])
    except ValueError:
        raise InvalidPosition("column and score must be integers") from None
    if not 1 <= column <= g.width:
        raise InvalidPosition(f"column {column} is not in 1..{g.width}")
    if abs(score) > g.cells:
        raise InvalidPosition(f"score {score} is out of range")
    return BookEntry(key, column - 1, score)


def parse_analysis_line(line: str, g: Geometry = STANDARD) -> tuple[int, tuple[int | None, ...]] | None:
    body = _strip_comment(line)
    if not body:
        return None
    parts = body.split()
    if len(parts) != g.width + 1:
        raise InvalidPosition(f"expected a key and {g.width} scores, got {len(parts)} fields")
    key = parse_key(parts[0])
    _check_key(key, g)
    scores: list[int | None] = []
    for p in parts[1:]:
        if p == "x":
            scores.append(None)
            continue
        try:
            s = int(p)
        except ValueError:
            raise InvalidPosition(f"score {p!r} must be an integer or x") from None
        if abs(s) > g.cells:
            raise InvalidPosition(f"score {s} is out of range")
        scores.append(s)
    return key, tuple(scores)


def _read(lines: Iterable[str], source: str, parse: Callable[[str, Geometry], T | None],
          g: Geometry) -> tuple[list[T], list[BookProblem]]:
    good, problems = [], []
    for number, line in enumerate(lines, 1):
        try:
            item = parse(line, g)
        except InvalidPosition as exc:
            problems.append(BookProblem(source, number, line, str(exc)))
            continue
        if item is not None:
            good.append(item)
    return good, problems


def _mirror_col(col: int, g: Geometry) -> int:
    return g.width - 1 - col


class MoveBook:
    """Best move and score by position key; finds mirrored positions too."""

    def __init__(self, geometry: Geometry = STANDARD, name: str = "book"):
        self.geometry = geometry
        self.name = name
        self.entries: dict[int, BookEntry] = {}
        self.problems: list[BookProblem] = []

    @classmethod
    def load(cls, path: str | os.PathLike[str], geometry: Geometry = STANDARD) -> MoveBook:
        book = cls(geometry, Path(path).name)
        with open(path, encoding="utf-8", errors="replace") as f:
            book.add_lines(f, str(path))
        return book

    @classmethod
    def from_text(cls, text: str, geometry: Geometry = STANDARD, name: str = "book") -> MoveBook:
        book = cls(geometry, name)
        book.add_lines(io.StringIO(text), name)
        return book

    def add_lines(self, lines: Iterable[str], source: str) -> None:
        entries, problems = _read(lines, source, parse_move_line, self.geometry)
        self.problems.extend(problems)
        for e in entries:
            self.entries[e.key] = e  # a later line overrides an earlier one

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, pos: object) -> bool:
        from .position import Position

        return isinstance(pos, Position) and self.lookup(pos) is not None

    def lookup(self, pos: Position) -> BookEntry | None:
        """The entry for ``pos`` or its mirror image (column mirrored back)."""
        if pos.geometry != self.geometry:
            return None
        e = self.entries.get(pos.key())
        if e is not None:
            return e
        m = self.entries.get(pos.mirror_key())
        if m is not None:
            return BookEntry(pos.key(), _mirror_col(m.column, self.geometry), m.score)
        return None


class AnalysisBook:
    """Exact score of every column by position key (None for a full column)."""

    def __init__(self, geometry: Geometry = STANDARD, name: str = "analysis"):
        self.geometry = geometry
        self.name = name
        self.entries: dict[int, tuple[int | None, ...]] = {}
        self.problems: list[BookProblem] = []

    @classmethod
    def load(cls, path: str | os.PathLike[str], geometry: Geometry = STANDARD) -> AnalysisBook:
        book = cls(geometry, Path(path).name)
        with open(path, encoding="utf-8", errors="replace") as f:
            entries, book.problems = _read(f, str(path), parse_analysis_line, geometry)
        book.entries.update(entries)
        return book

    def __len__(self) -> int:
        return len(self.entries)

    def lookup(self, pos: Position) -> tuple[int | None, ...] | None:
        if pos.geometry != self.geometry:
            return None
        s = self.entries.get(pos.key())
        if s is not None:
            return s
        m = self.entries.get(pos.mirror_key())
        return tuple(reversed(m)) if m is not None else None


class BookWriter:
    """Append-only writer: every line is flushed at once, so an interrupted run
    keeps everything written so far."""

    def __init__(self, path: str | os.PathLike[str], header: str | None = None):
        self.path = Path(path)
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        self._f: TextIO = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 (held open past this block)
        if fresh and header:
            for line in header.splitlines():
                self._write(f"# {line}".rstrip())

    def _write(self, line: str) -> None:
        self._f.write(line + "\n")
        self._f.flush()

    def move(self, key: int, column: int, score: int, comment: str | None = None) -> None:
        """Append a move entry (``column`` 0-based)."""
        if comment:
            self._write(f"# {comment}")
        self._write(format_move_entry(key, column, score))

    def analysis(self, key: int, scores: Iterable[int | None]) -> None:
        self._write(format_analysis_entry(key, scores))

    def line(self, text: str) -> None:
        """Append one line of another format (a journal's), flushed."""
        self._write(text)

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> BookWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def child_scores(pos: Position, scores: Iterable[int | None]) -> dict[int, int]:
    """The exact score of each child position an analysis line gives (canonical
    key -> the child's own score, minus the column's), except where the
    column is full, wins at once or fills the board (no position in play)."""
    out: dict[int, int] = {}
    for c, s in enumerate(scores):
        if s is None or pos.is_winning_move(c):
            continue
        child = pos.played(c)
        if not child.is_over:
            out[child.canonical_key()] = -s
    return out


def format_move_entry(key: int, column: int, score: int) -> str:
    return f"{key:x} {column + 1} {score}"


def format_analysis_entry(key: int, scores: Iterable[int | None]) -> str:
    return f"{key:x} " + " ".join("x" if s is None else str(s) for s in scores)
