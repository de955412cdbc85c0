"""Every configured book file, read once, reread when it changes, asked together.

A book file is a move book (``<key> <column> <score>``, :class:`MoveBook`) or
an analysis book (``<key> <s1> .. <sW>``, :class:`AnalysisBook`). The board
size comes from the file name (``7x6-...``, ``6x5k4-...``; no prefix means
7x6) unless the set is made for one board, and the kind from the name
(``analysis`` in it) or else from the first entry's field count.

:class:`BookSet` answers, for a position (mirror images included):

- :meth:`~BookSet.lookup`: the engine's question, a move book's entry, or
  the best reply when every child position is booked (a move book of one
  side's positions holds every reply of the other side);
- :meth:`~BookSet.score`, :meth:`~BookSet.analysis`, :meth:`~BookSet.best_move`,
  :meth:`~BookSet.hits`: the perfect player's questions, its exact score,
  the score of every column (composed from the children when no analysis
  entry has it) and its move.

Later files override earlier ones, like later lines in one file. Each
question looks at every file's mtime, size and inode first and rereads a file that
changed, so lines appended to a book while a service runs count at once. A
file that is missing, unreadable or holds no entry is logged once (again only
when its state changes) and left out; a missing shipped book is an info line,
as the shipped books are optional. Bad lines are kept as
:class:`~connect4.book.BookProblem` and logged. An entry that parses but does
not fit its position (a move into a full column, a score for a full column,
none for an open one) is checked at lookup, logged once and ignored, so a book
never answers an illegal move.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from collections.abc import Iterable

from .book import AnalysisBook, BookEntry, BookProblem, MoveBook
from .errors import InvalidGeometry
from .geometry import STANDARD, Geometry

if TYPE_CHECKING:
    from .position import Position

log = logging.getLogger(__name__)

SHIPPED_BOOK_DIR = Path(__file__).resolve().parent.parent / "books"
"""The book files shipped with the project (``books/*.txt``)."""
SHIPPED_MOVE_BOOKS = (SHIPPED_BOOK_DIR / "7x6-opening.txt", SHIPPED_BOOK_DIR / "7x6-corrective.txt")
"""The engine's default books: the opening book, then the corrective book."""

_SIZE = re.compile(r"^(\d+)x(\d+)(?:k(\d+))?(?:[-_.]|$)")


def geometry_of(path: str | os.PathLike[str]) -> Geometry:
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
    means no books. A path that does not exist is logged and left out.
    """
    if spec is None or spec.strip().lower() == "default":
        items = [str(SHIPPED_BOOK_DIR)]
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


def load_setting(spec: str | None) -> BookSet | None:
    """The books a command-line option names (see :func:`book_files`), or None
    when it names none; None (an option left unset in code) means no books."""
    files = book_files(spec) if spec is not None else []
    return BookSet(files) if files else None


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


def win_now_score(pos: Position) -> int:
    """Pons' score of a position whose side to move wins with its next stone."""
    return (pos.geometry.cells + 1 - pos.ply) // 2


Book = MoveBook | AnalysisBook

_PARSED: dict[tuple[Path, str], tuple[tuple[float, int, int], Book]] = {}
"""Books already parsed in this process, by (file, board) and the file's
(mtime, size, inode) when it was read: every BookSet of a process (an engine
player, a service, a test) shares one parse of an unchanged file. Books are
never changed after loading."""
_PARSED_LOCK = threading.Lock()


def _parse(path: Path, g: Geometry, stamp: tuple[float, int, int]) -> Book:
    """``path``'s book, parsed once per file state in this process."""
    key = (path.resolve(), g.name)
    with _PARSED_LOCK:
        hit = _PARSED.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    book: Book = AnalysisBook.load(path, g) if is_analysis_file(path, g) else MoveBook.load(path, g)
    with _PARSED_LOCK:
        _PARSED[key] = (stamp, book)
    return book


class BookSet:
    """The books of ``paths`` (files), read when the set is made and again
    whenever a file changes. ``geometry`` makes every file a book of that board;
    without it each file's board comes from its name."""

    def __init__(self, paths: Iterable[str | os.PathLike[str]] = (), geometry: Geometry | None = None):
        self.paths = [Path(p) for p in paths]
        self.geometry = geometry
        self._held: dict[Path, tuple[tuple[float, int, int], Book]] = {}
        self._told: dict[Path, object] = {}  # the last state of each path a line was logged for
        self._reported: set[tuple[str, int]] = set()  # (book, key) of bad entries already logged
        self._lock = threading.Lock()
        self.refresh()  # read every file now, so a service logs its books (and their problems) at start

    @classmethod
    def load(cls, spec: str | None = None) -> BookSet:
        """The books of a setting (see :func:`book_files`)."""
        return cls(book_files(spec))

    @classmethod
    def load_files(cls, paths: Iterable[str | os.PathLike[str]]) -> BookSet:
        return cls(paths)

    # -- reading ---------------------------------------------------------------
    def _tell_once(self, path: Path, state: object, message: str, level: int = logging.WARNING,
                   **extra: object) -> None:
        """Log ``message`` when ``path`` enters ``state`` (missing, unreadable,
        empty...), not at every question while it stays there."""
        if self._told.get(path) == state:
            return
        self._told[path] = state
        log.log(level, message, extra={"path": str(path), **extra})

    def _read(self, path: Path) -> Book | None:
        """``path``'s book as the file is now (reread when its mtime or size changed)."""
        try:
            st = os.stat(path)
        except OSError as exc:
            self._held.pop(path, None)
            level = logging.INFO if path.resolve().parent == SHIPPED_BOOK_DIR else logging.WARNING
            self._tell_once(path, "missing", f"book {path} not found ({exc.strerror}): playing without it "
                            "until it appears", level)
            return None
        stamp = (st.st_mtime, st.st_size, st.st_ino)  # a file replaced in the same mtime tick has a new inode
        held = self._held.get(path)
        if held is not None and held[0] == stamp:
            return held[1]
        if self._told.get(path) == ("unreadable", stamp):
            return held[1] if held else None
        g = self.geometry or geometry_of(path)
        try:
            book = _parse(path, g, stamp)
        except (OSError, InvalidGeometry, UnicodeError) as exc:  # a folder, no permission: go on without it
            self._tell_once(path, ("unreadable", stamp), f"cannot read book {path}: {exc} (not loaded)",
                            error=str(exc))
            return held[1] if held else None
        for problem in book.problems[:20]:
            log.warning(f"bad book line skipped: {problem}", extra={"problem": str(problem)})
        if book.problems and not len(book):
            self._tell_once(path, ("empty", stamp), f"book {path}: none of its {len(book.problems)} lines is an "
                            "entry (is it a book of this kind?)", skipped=len(book.problems))
        else:
            self._told.pop(path, None)
        kind = "analysis" if isinstance(book, AnalysisBook) else "move"
        log.info("book loaded", extra={"path": str(path), "kind": kind, "board": g.name, "entries": len(book),
                                       "bad_lines": len(book.problems)})
        self._held[path] = (stamp, book)
        return book

    def refresh(self) -> list[Book]:
        """Every readable book, in the order of ``paths``, each file reread if it changed."""
        with self._lock:
            return [b for b in (self._read(p) for p in self.paths) if b is not None]

    @property
    def books(self) -> list[Book]:
        """Every readable book, in the order of ``paths``."""
        return self.refresh()

    def _now(self, g: Geometry) -> tuple[list[MoveBook], list[AnalysisBook]]:
        """The move and analysis books of board ``g``, latest first (later files override earlier ones)."""
        books = [b for b in reversed(self.books) if b.geometry == g]
        return ([b for b in books if isinstance(b, MoveBook)], [b for b in books if isinstance(b, AnalysisBook)])

    @property
    def move_books(self) -> list[MoveBook]:
        return [b for b in self.books if isinstance(b, MoveBook)]

    @property
    def analysis_books(self) -> list[AnalysisBook]:
        return [b for b in self.books if isinstance(b, AnalysisBook)]

    @property
    def problems(self) -> list[BookProblem]:
        return [p for b in self.books for p in b.problems]

    def __len__(self) -> int:
        return sum(len(b) for b in self.books)

    # -- entries checked against their position ------------------------------------
    def _move_entry(self, book: MoveBook, pos: Position) -> BookEntry | None:
        """``book``'s entry for ``pos`` when its move is legal there, else None."""
        e = book.lookup(pos)
        if e is None or pos.can_play(e.column):
            return e
        self._bad_entry(book, pos, f"column {e.column + 1} cannot be played (full or off the board)")
        return None

    def _scores(self, book: AnalysisBook, pos: Position) -> tuple[int | None, ...] | None:
        """``book``'s column scores for ``pos`` when they fit its open columns, else None."""
        scores = book.lookup(pos)
        if scores is None:
            return None
        misfits = [c + 1 for c, s in enumerate(scores) if (s is None) == pos.can_play(c)]
        if not misfits:
            return scores
        self._bad_entry(book, pos, f"columns {misfits}: a score for a full column or none for an open one")
        return None

    def _bad_entry(self, book: Book, pos: Position, why: str) -> None:
        seen = (book.name, pos.key())
        if seen in self._reported:
            return
        self._reported.add(seen)
        moves = "".join(str(c + 1) for c in pos.moves)
        log.warning(f"book entry ignored: {book.name}, position {moves or '(empty)'}: {why}",
                    extra={"book": book.name, "key": f"{pos.key():x}", "moves": moves, "reason": why})

    def _find(self, moves: list[MoveBook], pos: Position) -> tuple[BookEntry, str] | None:
        for book in moves:
            e = self._move_entry(book, pos)
            if e is not None:
                return e, book.name
        return None

    def _score(self, moves: list[MoveBook], analyses: list[AnalysisBook], pos: Position) -> int | None:
        if pos.is_over:
            return None
        for book in analyses:
            scores = self._scores(book, pos)
            if scores is not None:
                known = [s for s in scores if s is not None]
                if known:
                    return max(known)
        hit = self._find(moves, pos)
        return hit[0].score if hit else None

    def _analysis(self, moves: list[MoveBook], analyses: list[AnalysisBook],
                  pos: Position) -> tuple[int | None, ...] | None:
        if pos.is_over or not (moves or analyses):
            return None
        for book in analyses:
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
            s = self._score(moves, analyses, child)
            if s is None:
                return None
            out[c] = -s
        return tuple(out)

    # -- the engine's question ----------------------------------------------------
    def lookup(self, pos: Position) -> tuple[BookEntry, str] | None:
        """(entry, book name) for ``pos`` from the last move book that has it,
        else the best reply by the books' scores of its children."""
        moves, _ = self._now(pos.geometry)
        return self._find(moves, pos) or self._reply(moves, pos)

    def _reply(self, moves: list[MoveBook], pos: Position) -> tuple[BookEntry, str] | None:
        """A move book holds one side's positions and every reply of the other
        side: the other side finds its move from the scores of the positions
        after each of its columns, when all of them are booked. Scores are the
        opponent's (Pons'), so the best reply has the lowest; centre first on ties."""
        if not moves:
            return None
        best: tuple[int, int, str] | None = None  # (our score, column, book)
        for col in pos.geometry.center_order():
            if not pos.can_play(col):
                continue
            child = pos.played(col)
            if child.is_over:
                return None  # a win or the last cell: the search sees it at once
            hit = self._find(moves, child)
            if hit is None:
                return None
            score = -hit[0].score
            if best is None or score > best[0]:
                best = (score, col, hit[1])
        if best is None:
            return None
        return BookEntry(pos.key(), best[1], best[0]), f"{best[2]}, replies"

    # -- the perfect player's questions ------------------------------------------
    def hits(self, pos: Position) -> list[BookHit]:
        """Every book's entry for ``pos`` (or its mirror image), analysis books first."""
        moves, analyses = self._now(pos.geometry)
        out = []
        for abook in reversed(analyses):
            scores = self._scores(abook, pos)
            if scores is not None and any(s is not None for s in scores):
                col, score = best_of(scores, pos.geometry)  # type: ignore[misc]  # some score is known
                out.append(BookHit(abook.name, "analysis", col, score, scores))
        for mbook in reversed(moves):
            e = self._move_entry(mbook, pos)
            if e is not None:
                out.append(BookHit(mbook.name, "move", e.column, e.score))
        return out

    def score(self, pos: Position) -> int | None:
        """The exact score of ``pos`` from any book, or None."""
        return self._score(*self._now(pos.geometry), pos)

    def analysis(self, pos: Position) -> tuple[int | None, ...] | None:
        """The score of every column of ``pos`` (None: full), or None when the
        books cannot give all of them."""
        return self._analysis(*self._now(pos.geometry), pos)

    def best_move(self, pos: Position) -> tuple[int, int] | None:
        """The perfect player's (column 0-based, score): a move book's best
        move when one has the position, else the best column of the books'
        analysis. The move book comes first although both are exact: where
        several columns share the best score, the book's choice is the one
        its tree continues from (the analysis' centre-first tie-break can
        pick the other column, e.g. on a mirrored entry), so a player that
        follows the books stays inside the opening book."""
        moves, analyses = self._now(pos.geometry)
        hit = self._find(moves, pos)
        if hit is not None:
            return hit[0].column, hit[0].score
        scores = self._analysis(moves, analyses, pos)
        return best_of(scores, pos.geometry) if scores is not None else None
