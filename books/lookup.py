"""Every configured book, loaded once and asked together.

A book file is a move book (``<key> <column> <score>``, :class:`MoveBook`) or
an analysis book (``<key> <s1> .. <sW>``, :class:`AnalysisBook`). The board
size comes from the file name (``7x6-...``, ``6x5k4-...``; no prefix means
7x6) and the kind from the name (``analysis`` in it) or else from the first
entry's field count.

:class:`BookSet` answers three questions for a position (mirrors included):
its exact score, the score of every column, and the perfect player's move.
It answers the column scores also when no analysis entry exists but every
child position has a book score, so a move book of the second player's
positions serves the first player's analysis too.

Bad lines never take a process down: they are kept as
:class:`~connect4.book.BookProblem` (file, line number, reason) and logged.
An entry that parses but does not fit its position (a move into a full
column, a score for a full column, no score for an open one) is checked at
lookup, logged once and ignored, so a book never answers an illegal move.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from connect4 import Geometry, InvalidGeometry, STANDARD
from connect4.book import AnalysisBook, BookProblem, MoveBook

from . import BOOK_DIR

log = logging.getLogger(__name__)

_SIZE = re.compile(r"^(\d+)x(\d+)(?:k(\d+))?(?:[-_.]|$)")


def geometry_of(path: str | os.PathLike) -> Geometry:
    """The board a book file is for, from its name; 7x6 without a size prefix."""
    m = _SIZE.match(Path(path).name.lower())
    if not m:
        return STANDARD
    return Geometry(int(m.group(1)), int(m.group(2)), int(m.group(3) or 4))


def is_analysis_file(path: Path, g: Geometry) -> bool:
    """Whether a book file holds per-column scores (an analysis book) rather
    than one move per position: by its name, else by its first entry's width."""
    if "analysis" in path.name.lower():
        return True
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            body = line.split("#", 1)[0].split()
            if body:
                return len(body) == g.width + 1 and len(body) != 3
    return False


def book_files(spec: str | None) -> list[Path]:
    """The files a books setting names.

    ``spec`` is a list of files or folders separated by commas or the path
    separator; a folder stands for its ``*.txt`` files. None or ``default``
    means the shipped folder (``books/``); an empty string, ``none`` or ``off``
    means no books.
    """
    if spec is None or spec.strip().lower() == "default":
        items = [str(BOOK_DIR)]
    elif spec.strip().lower() in ("", "none", "off"):
        return []
    else:
        items = [p.strip() for p in re.split(rf"[,{re.escape(os.pathsep)}]", spec) if p.strip()]
    out: list[Path] = []
    for item in items:
        p = Path(item).expanduser()
        if p.is_dir():
            out.extend(sorted(q for q in p.glob("*.txt") if q.is_file()))
        elif p.is_file():
            out.append(p)
        else:
            log.warning(f"book not found: {p}", extra={"path": str(p)})
    return out


def load_setting(spec: str | None) -> "BookSet | None":
    """The books a command-line option names (see :func:`book_files`), or None
    when it names none; None (an option left unset in code) means no books."""
    files = book_files(spec) if spec is not None else []
    return BookSet.load_files(files) if files else None


@dataclass(frozen=True)
class BookHit:
    """One book's entry for a position (columns 0-based, mirrored back)."""

    book: str
    kind: str  # "move" or "analysis"
    column: int | None  # the book's best move (move books)
    score: int  # the position's exact score
    scores: tuple[int | None, ...] | None = None  # per column (analysis books)


def best_of(scores: Iterable[int | None], g: Geometry) -> tuple[int, int] | None:
    """The perfect player's choice from column scores: the highest score
    (fastest win, slowest loss), centre-first on ties. (column 0-based, score)."""
    scores = list(scores)
    best = None
    for c in g.center_order():
        s = scores[c]
        if s is not None and (best is None or s > best[1]):
            best = (c, s)
    return best


def win_now_score(pos) -> int:
    """Pons' score of a position whose side to move wins with its next stone."""
    return (pos.geometry.cells + 1 - pos.ply) // 2


class BookSet:
    """All loaded books, grouped by board size."""

    def __init__(self, move_books: Iterable[MoveBook] = (), analysis_books: Iterable[AnalysisBook] = ()):
        self.move_books = list(move_books)
        self.analysis_books = list(analysis_books)
        self._reported: set[tuple[str, int]] = set()  # (book, key) of bad entries already logged

    # -- entries checked against their position ------------------------------------
    def _move_entry(self, book: MoveBook, pos):
        """``book``'s entry for ``pos`` when its move is legal there, else None."""
        e = book.lookup(pos)
        if e is None or pos.can_play(e.column):
            return e
        self._bad_entry(book, pos, f"column {e.column + 1} cannot be played (full or off the board)")
        return None

    def _scores(self, book: AnalysisBook, pos) -> tuple[int | None, ...] | None:
        """``book``'s column scores for ``pos`` when they fit its open columns, else None."""
        scores = book.lookup(pos)
        if scores is None:
            return None
        misfits = [c + 1 for c, s in enumerate(scores) if (s is None) == pos.can_play(c)]
        if not misfits:
            return scores
        self._bad_entry(book, pos, f"columns {misfits}: a score for a full column or none for an open one")
        return None

    def _bad_entry(self, book, pos, why: str) -> None:
        seen = (book.name, pos.key())
        if seen in self._reported:
            return
        self._reported.add(seen)
        moves = "".join(str(c + 1) for c in pos.moves)
        log.warning(f"book entry ignored: {book.name}, position {moves or '(empty)'}: {why}",
                    extra={"book": book.name, "key": f"{pos.key():x}", "moves": moves, "reason": why})

    # -- loading ---------------------------------------------------------------
    @classmethod
    def load(cls, spec: str | None = None) -> "BookSet":
        """Load every file :func:`book_files` finds; bad lines are logged and skipped."""
        return cls.load_files(book_files(spec))

    @classmethod
    def load_files(cls, paths: Iterable[str | os.PathLike]) -> "BookSet":
        books = cls()
        for path in paths:
            books.add_file(path)
        return books

    def add_file(self, path: str | os.PathLike) -> None:
        path = Path(path)
        try:
            g = geometry_of(path)
            if is_analysis_file(path, g):
                book = AnalysisBook.load(path, g)
                self.analysis_books.append(book)
                kind = "analysis"
            else:
                book = MoveBook.load(path, g)
                self.move_books.append(book)
                kind = "move"
        except (OSError, InvalidGeometry) as exc:
            log.warning(f"book not loaded: {path}: {exc}", extra={"path": str(path), "error": str(exc)})
            return
        for problem in book.problems[:20]:
            log.warning(f"bad book line skipped: {problem}", extra={"problem": str(problem)})
        log.info(
            "book loaded",
            extra={"path": str(path), "kind": kind, "board": g.name, "entries": len(book),
                   "bad_lines": len(book.problems)},
        )

    # -- questions ---------------------------------------------------------------
    @property
    def books(self) -> list:
        return [*self.analysis_books, *self.move_books]

    @property
    def problems(self) -> list[BookProblem]:
        return [p for b in self.books for p in b.problems]

    def __len__(self) -> int:
        return sum(len(b) for b in self.books)

    def hits(self, pos) -> list[BookHit]:
        """Every book's entry for ``pos`` (or its mirror image)."""
        out = []
        for book in self.analysis_books:
            scores = self._scores(book, pos)
            if scores is not None and any(s is not None for s in scores):
                col, score = best_of(scores, pos.geometry)
                out.append(BookHit(book.name, "analysis", col, score, scores))
        for book in self.move_books:
            e = self._move_entry(book, pos)
            if e is not None:
                out.append(BookHit(book.name, "move", e.column, e.score))
        return out

    def score(self, pos) -> int | None:
        """The exact score of ``pos`` from any book, or None."""
        if pos.is_over:
            return None
        for book in self.analysis_books:
            scores = self._scores(book, pos)
            if scores is not None:
                known = [s for s in scores if s is not None]
                if known:
                    return max(known)
        for book in self.move_books:
            e = self._move_entry(book, pos)
            if e is not None:
                return e.score
        return None

    def analysis(self, pos) -> tuple[int | None, ...] | None:
        """The score of every column of ``pos`` (None: full), or None when the
        books cannot give all of them."""
        if pos.is_over or not self.books:
            return None
        for book in self.analysis_books:
            scores = self._scores(book, pos)
            if scores is not None:
                return scores
        # Compose from the children: a winning column scores at once, any
        # other column is minus its child's book score.
        g = pos.geometry
        out: list[int | None] = [None] * g.width
        win = win_now_score(pos)
        for c in pos.legal_moves():
            if pos.is_winning_move(c):
                out[c] = win
                continue
            child = pos.played(c)
            if child.ply == g.cells:
                out[c] = 0  # the last cell: a draw
                continue
            s = self.score(child)
            if s is None:
                return None
            out[c] = -s
        return tuple(out)

    def best_move(self, pos) -> tuple[int, int] | None:
        """The perfect player's (column 0-based, score): a move book's best
        move when one has the position, else the best column of the books'
        analysis. The move book comes first although both are exact: where
        several columns share the best score, the book's choice is the one
        its tree continues from (the analysis' centre-first tie-break can
        pick the other column, e.g. on a mirrored entry), so a player that
        follows the books stays inside the opening book."""
        for book in self.move_books:
            e = self._move_entry(book, pos)
            if e is not None:
                return e.column, e.score
        scores = self.analysis(pos)
        if scores is not None:
            return best_of(scores, pos.geometry)
        return None
