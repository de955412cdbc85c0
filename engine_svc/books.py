"""Opening books the engine consults before searching.

A :class:`BookSet` holds move books (``<key hex> <column> <score>``, read by
:class:`connect4.book.MoveBook`) from a list of paths. Files that do not exist
are skipped (they may appear later). Every lookup checks each file's mtime and
size and reloads a file that changed, because a learning feature appends to
the corrective book while the service runs. Later paths override earlier ones,
like later lines in one file: the default order is the opening book, then the
corrective book.
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
        self._lock = threading.Lock()

    def _fresh(self, path: Path) -> MoveBook | None:
        try:
            st = os.stat(path)
        except OSError:
            self._books.pop(path, None)
            return None
        stamp = (st.st_mtime, st.st_size)
        held = self._books.get(path)
        if held is not None and held[0] == stamp:
            return held[1]
        try:
            book = MoveBook.load(path, self.geometry)
        except OSError as exc:
            log.warning("cannot read book", extra={"path": str(path), "error": str(exc)})
            return held[1] if held else None
        for problem in book.problems[:5]:
            log.warning("book line skipped", extra={"problem": str(problem)})
        log.info("book loaded", extra={"path": str(path), "entries": len(book), "skipped": len(book.problems)})
        self._books[path] = (stamp, book)
        return book

    def books(self) -> list[MoveBook]:
        with self._lock:
            return [b for b in (self._fresh(p) for p in self.paths) if b is not None]

    def lookup(self, pos) -> tuple[BookEntry, str] | None:
        """(entry, book name) for ``pos`` from the last book that has it."""
        if pos.geometry != self.geometry:
            return None
        for book in reversed(self.books()):
            entry = book.lookup(pos)
            if entry is not None and pos.can_play(entry.column):
                return entry, book.name
        return None

    def __len__(self) -> int:
        return sum(len(b) for b in self.books())
