"""The coordinator of ``c4 bookgen analysis``: analysis-book lines solved on the workers.

An analysis-book line is the exact score of every column of a position
(``<key hex> <s1> .. <sW>``, ``x`` for a full column). The positions are every
position with ``min_stones`` to ``stones`` stones (a position and its mirror
image once, games in play) that the book being extended does not hold yet,
or the positions of a file. Each becomes one ``bookgen.analyze`` task, the
deepest first; the worker solves the columns with every exact score the store
holds preloaded (the books' scores are put there first) and stores the
children's scores too, for the other workers. The coordinator polls the store
and journals every line as it arrives (``OUT.journal``: a rerun puts the
journal back into the store and sends nothing it holds). At the end the new
lines are appended to the book, after an optional check by another solver.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from connect4 import Geometry, Position
from connect4.book import AnalysisBook, BookWriter, format_analysis_entry
from connect4.errors import Connect4Error
from connect4.keys import position_from_key

from servicekit.progress import Progress
from .crosscheck import Entry
from .opening import canonical_position
from .store import ResultStore

Submit = Callable[[Position], None]
Scores = tuple[int | None, ...]


def positions_to_analyse(g: Geometry, min_stones: int, stones: int, book: AnalysisBook | None = None) -> list[Position]:
    """Every position with ``min_stones..stones`` stones, games in play, in the
    orientation of the smaller key, that ``book`` does not hold; deepest first, then by key."""
    from books.analysis_gen import enumerate_positions

    out = [canonical_position(p) for p in enumerate_positions(g, min_stones, stones)
           if book is None or book.lookup(p) is None]
    return sorted(out, key=lambda p: (-p.ply, p.key()))


def load_journal(path: Path, g: Geometry, store: ResultStore) -> int:
    """The journal's lines into the store (a torn or foreign line is skipped); how many."""
    if not path.exists():
        return 0
    book = AnalysisBook.load(path, g)
    for key, scores in book.entries.items():
        store.put_analysis(position_from_key(key, g), scores)
    return len(book.entries)


@dataclass
class AnalysisResult:
    lines: dict[int, Scores]  # canonical key -> every column's score
    solved_now: int
    sent: int
    resent: int
    elapsed_s: float


class AnalysisCoordinator:
    def __init__(self, geometry: Geometry, store: ResultStore, submit: Submit, positions: Iterable[Position], *,
                 journal: str | Path | None = None, progress: Progress | None = None, poll_s: float = 0.5,
                 resend_after_s: float = 4 * 3600, on_poll: Callable[[], None] | None = None):
        self.g = geometry
        self.store = store
        self.submit = submit
        self.positions = {p.key(): p for p in map(canonical_position, positions)}
        self.journal_path = Path(journal) if journal else None
        self.progress = progress
        self.poll_s = poll_s
        self.resend_after_s = resend_after_s
        self.on_poll = on_poll

    def run(self) -> AnalysisResult:
        t0 = time.monotonic()
        if self.journal_path:
            load_journal(self.journal_path, self.g, self.store)
        lines: dict[int, Scores] = {}
        pending: dict[int, float] = {}
        order = sorted(self.positions.values(), key=lambda p: (-p.ply, p.key()))
        for pos, found in zip(order, self.store.analyses([p.key() for p in order]), strict=True):
            if found is not None:
                lines[pos.key()] = found
        sent = resent = solved_now = 0
        now = time.monotonic()
        for pos in order:
            if pos.key() not in lines:
                self.submit(pos)
                pending[pos.key()] = now
                sent += 1
        journal = BookWriter(self.journal_path) if self.journal_path else None
        try:
            while pending:
                if self.progress:
                    self.progress.update(len(lines), len(self.positions), f"queued {len(pending)}")
                time.sleep(self.poll_s)
                if self.on_poll:
                    self.on_poll()
                keys = list(pending)
                now = time.monotonic()
                for key, found in zip(keys, self.store.analyses(keys), strict=True):
                    if found is None:
                        if now - pending[key] > self.resend_after_s:
                            self.submit(self.positions[key])
                            pending[key] = now
                            resent += 1
                        continue
                    del pending[key]
                    lines[key] = found
                    solved_now += 1
                    if journal:
                        journal.analysis(key, found)
        finally:
            if journal:
                journal.close()
        if self.progress:
            self.progress.finish(len(lines), len(self.positions), f"solved now {solved_now}")
        return AnalysisResult(lines, solved_now, sent, resent, time.monotonic() - t0)


def check_entries(g: Geometry, lines: dict[int, Scores]) -> list[Entry]:
    """The lines as (position, best column, score) for :mod:`.crosscheck`: centre-most best column."""
    out = []
    for key, scores in lines.items():
        best = max(s for s in scores if s is not None)
        col = next(c for c in g.center_order() if scores[c] == best)
        out.append(Entry(position_from_key(key, g), col, best))
    return out


def append_lines(path: Path, g: Geometry, lines: dict[int, Scores], comment: str) -> None:
    """The new lines at the end of the book, sorted by key, after one comment line.
    A line the book already holds is not written again."""
    book = AnalysisBook.load(path, g) if path.exists() else None
    with BookWriter(path) as w:
        w.line(f"# {comment}")
        for key in sorted(lines):
            if book is not None and book.lookup(position_from_key(key, g)) is not None:
                continue
            w.line(format_analysis_entry(key, lines[key]))


def parse_position_file(path: Path, g: Geometry) -> list[Position]:
    """One position a line (any notation; ``#`` comments); ValueError naming the first bad line."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        try:
            pos = Position.parse(body, g)
        except Connect4Error as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
        if pos.is_over:
            raise ValueError(f"{path}:{number}: the game is over after {body!r}: nothing to analyse")
        out.append(pos)
    return out
