"""Opening books the engine consults before searching.

A :class:`BookSet` holds move books (``<key hex> <column> <score>``, read by
:class:`connect4.book.MoveBook`) from a list of paths. Files that do not exist
are skipped (they may appear later) with one warning, and so are files that
cannot be read: the service keeps running without them. Every lookup checks
each file's mtime and size and reloads a file that changed, because a
learning feature appends to the corrective book while the service runs. Later paths override earlier ones,
like later lines in one file: the default order is the opening book, then the
corrective book. A position that is in no book but whose every child is (the
side the book does not play, answering inside the book's tree) gets the child
with the best score.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

from connect4.book import BookEntry, MoveBook
from connect4.geometry import STANDARD, Geometry

log = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_BOOKS = (REPO / "books" / "7x6-opening.txt", REPO / "books" / "7x6-corrective.txt")


class BookSet:
    def __init__(self, paths=DEFAULT_BOOKS, geometry: Geometry = STANDARD):
        self.paths = [Path(p) for p in paths]
        self.geometry = geometry
        self._books: dict[Path, tuple[tuple[float, int], MoveBook]] = {}
        self._told: dict[Path, object] = {}  # the last state of each path a warning was logged for
        self._lock = threading.Lock()

    def _tell_once(self, path: Path, state, message: str, level: int = logging.WARNING, **extra) -> None:
        """Log ``message`` when ``path`` enters ``state`` (missing, unreadable,
        empty...), not at every lookup while it stays there."""
        if self._told.get(path) == state:
            return
        self._told[path] = state
        log.log(level, message, extra={"path": str(path), **extra})

    def _fresh(self, path: Path) -> MoveBook | None:
        try:
            st = os.stat(path)
        except OSError as exc:
            self._books.pop(path, None)
            # The shipped books are optional (a corrective book appears when
            # first written); a path someone configured should exist.
            level = logging.INFO if path.resolve() in DEFAULT_BOOKS else logging.WARNING
            self._tell_once(path, "missing", f"book {path} not found ({exc.strerror}): playing without it "
                            "until it appears", level)
            return None
        stamp = (st.st_mtime, st.st_size)
        held = self._books.get(path)
        if held is not None and held[0] == stamp:
            return held[1]
        if self._told.get(path) == ("unreadable", stamp):
            return held[1] if held else None
        try:
            book = MoveBook.load(path, self.geometry)
        except Exception as exc:  # a folder, no permission, not text: the service goes on without it
            self._tell_once(path, ("unreadable", stamp), f"cannot read book {path}: {exc}", error=str(exc))
            return held[1] if held else None
        for problem in book.problems[:5]:
            log.warning(f"book line skipped: {problem}", extra={"problem": str(problem)})
        if book.problems and not len(book):
            self._tell_once(path, ("empty", stamp), f"book {path}: none of its {len(book.problems)} lines is an "
                            "entry (is it a move book?)", skipped=len(book.problems))
        else:
            self._told.pop(path, None)
        log.info("book loaded", extra={"path": str(path), "entries": len(book), "skipped": len(book.problems)})
        self._books[path] = (stamp, book)
        return book

    def books(self) -> list[MoveBook]:
        with self._lock:
            return [b for b in (self._fresh(p) for p in self.paths) if b is not None]

    def lookup(self, pos) -> tuple[BookEntry, str] | None:
        """(entry, book name) for ``pos`` from the last book that has it, else
        the best reply by the books' scores of its children (see ``reply``)."""
        if pos.geometry != self.geometry:
            return None
        books = self.books()
        return self._find(books, pos) or self._reply(books, pos)

    @staticmethod
    def _find(books: list[MoveBook], pos) -> tuple[BookEntry, str] | None:
        for book in reversed(books):
            entry = book.lookup(pos)
            if entry is not None and pos.can_play(entry.column):
                return entry, book.name
        return None

    def _reply(self, books: list[MoveBook], pos) -> tuple[BookEntry, str] | None:
        """A move book holds one side's positions and every reply of the other
        side: the other side finds its move from the scores of the positions
        after each of its columns, when all of them are booked. Scores are the
        opponent's (Pons'), so the best reply has the lowest; centre first on ties."""
        if not books:
            return None
        best: tuple[int, int, str] | None = None  # (our score, column, book)
        for col in self.geometry.center_order():
            if not pos.can_play(col):
                continue
            child = pos.played(col)
            if child.is_over:
                return None  # a win or the last cell: the search sees it at once
            hit = self._find(books, child)
            if hit is None:
                return None
            score = -hit[0].score
            if best is None or score > best[0]:
                best = (score, col, hit[1])
        if best is None:
            return None
        return BookEntry(pos.key(), best[1], best[0]), f"{best[2]}, replies"

    def __len__(self) -> int:
        return sum(len(b) for b in self.books())
