"""The coordinator of ``c4 bookgen opening``.

The tree: from the start position (the empty board by default) the side to
move there (the *book side*) plays the solver's best move and every reply of
the other side is expanded, down to ``plies`` plies below the start. A
position and its mirror image, and every transposition, are one node: nodes
are kept in the orientation with the smaller key, so the book does not
depend on the order in which results arrive.

The coordinator sends one ``bookgen.best`` task per node that the store does
not know yet, polls the store for results, expands a node as soon as its
best move is known, and writes the book sorted by key when the tree is done.

With a ``guess`` (the engine's move, :mod:`.guess`) it does not wait for a
node's best move to expand it: an unsolved node is expanded below the
guessed move at once, so the whole likely tree is known from the start and
is sent deepest first (tasks are taken in the order they are sent). The deep
positions are cheap, and their exact scores, preloaded by the workers, make
the shallow roots cheap too: a cold root alone would cost more than the
whole tree below it. Where the solver's move differs from the guess, its
subtree is expanded when the result comes in; the nodes solved below a wrong
guess are not in the book.

With ``ties`` the book side plays every move of the best score, not only the
centre-most one (``bookgen.ties`` tasks), so a book that breaks ties another
way stays inside this tree; each entry still holds the centre-most move.
Results live in Redis (and in an append-only journal next to the book), so a
rerun after an interruption skips everything already solved. A task that
got lost (its worker vanished with its connection) is sent again after
``resend_after_s``; tasks are idempotent, so a duplicate changes nothing.
"""

from __future__ import annotations

import os
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Iterable

from connect4 import Geometry, Position
from connect4.book import AnalysisBook, BookWriter, MoveBook, format_move_entry
from connect4.errors import Connect4Error
from connect4.keys import position_from_key
from connect4.notation import format_moves

from servicekit.progress import Progress
from .crosscheck import Entry
from .store import ResultStore

Submit = Callable[[Position], None]


def canonical_position(pos: Position) -> Position:
    """``pos`` or its mirror image, whichever has the smaller key."""
    if pos.mirror_key() < pos.key():
        w = pos.geometry.width
        return Position.from_moves([w - 1 - c for c in pos.moves], pos.geometry)
    return pos


@dataclass
class OpeningResult:
    entries: dict[int, tuple[int, int]]  # canonical key -> (0-based column, score)
    solved_now: int  # nodes whose task ran in this run
    elapsed_s: float
    sent: int = 0
    resent: int = 0
    by_ply: dict[int, int] = field(default_factory=dict)


class OpeningCoordinator:
    def __init__(
        self,
        geometry: Geometry,
        store: ResultStore,
        submit: Submit,
        *,
        plies: int,
        start: Position | None = None,
        journal: str | os.PathLike | None = None,
        progress: Progress | None = None,
        poll_s: float = 0.25,
        resend_after_s: float = 4 * 3600,
        on_poll: Callable[[], None] | None = None,
        guess: Callable[[Position], int] | None = None,
        ties: bool = False,
    ):
        self.g = geometry
        self.store = store
        self.submit = submit
        self.plies = plies
        self.start = canonical_position(start if start is not None else Position(geometry))
        self.limit = self.start.ply + plies  # book nodes have fewer stones than this
        self.journal_path = Path(journal) if journal else None
        self.progress = progress
        self.poll_s = poll_s
        self.resend_after_s = resend_after_s
        self.on_poll = on_poll
        self.guess = guess  # the book side's likely best move (0-based), for deepest-first sending
        self.ties = ties  # expand every move of the best score (results from bookgen.ties)

    def _lookup(self, keys: list[int]) -> list[tuple[int, int, tuple[int, ...]] | None]:
        """(best column, score, the columns expanded) of canonical keys, or None."""
        if self.ties:
            return [None if t is None else (t[0][0], t[1], t[0]) for t in self.store.ties_of(keys)]
        return [None if b is None else (b[0], b[1], (b[0],)) for b in self.store.bests(keys)]

    # -- journal ----------------------------------------------------------------------
    def _load_journal(self) -> int:
        """Put the journal's entries (from an interrupted run) into the store."""
        if not self.journal_path or not self.journal_path.exists():
            return 0
        if self.ties:
            return load_ties_journal(self.journal_path, self.store)
        book = MoveBook.load(self.journal_path, self.g)
        pipe = self.store.r.pipeline()
        for key, e in book.entries.items():
            pipe.hset(self.store.k_best, f"{key:x}", f"{e.column + 1} {e.score}")
            pipe.hset(self.store.k_score, f"{key:x}", e.score)
        pipe.execute()
        return len(book)

    # -- the run ----------------------------------------------------------------------
    def run(self) -> OpeningResult:
        t0 = time.monotonic()
        self._load_journal()
        journal = BookWriter(self.journal_path) if self.journal_path else None  # ties: format_ties_entry lines
        nodes: dict[int, Position] = {}  # every node discovered, by canonical key
        results: dict[int, tuple[int, int]] = {}  # key -> (0-based column, score)
        played: dict[int, tuple[int, ...]] = {}  # key -> the book side's moves expanded (its ties)
        children: dict[tuple[int, int], list[int]] = {}  # (key, column) -> the nodes after it and a reply
        fresh: deque[Position] = deque()  # discovered, not yet looked up
        pending: dict[int, float] = {}  # key -> when its task was sent
        solved_now = sent = resent = 0

        def discover(pos: Position) -> int | None:
            if pos.is_over or pos.ply >= self.limit:
                return None
            pos = canonical_position(pos)
            key = pos.key()
            if key not in nodes:
                nodes[key] = pos
                fresh.append(pos)
            return key

        def expand(key: int, col: int) -> None:
            """Discover the nodes below ``key`` when the book side plays ``col``."""
            if (key, col) in children:
                return
            pos = nodes[key]
            found: list[int] = []
            children[(key, col)] = found
            if pos.ply + 2 >= self.limit:
                return
            child = pos.played(col)
            if child.is_over:
                return
            for r in child.legal_moves():
                k = discover(child.played(r))
                if k is not None:
                    found.append(k)

        def settle() -> None:
            """Look the fresh nodes up; send the unknown ones, deepest first.

            With a guess, an unknown node is expanded at once below its
            guessed move, so the whole likely tree is sent before its roots:
            the deep, cheap positions are solved first and their exact
            scores (preloaded by the workers) make the roots cheap."""
            nonlocal sent
            unknown: list[Position] = []
            while fresh:
                batch = [fresh.popleft() for _ in range(min(len(fresh), 500))]
                for pos, found in zip(batch, self._lookup([p.key() for p in batch]), strict=True):
                    if found is not None:
                        record(pos.key(), found)
                    else:
                        unknown.append(pos)
                        if self.guess is not None and pos.ply + 2 < self.limit:  # nothing below the last level
                            expand(pos.key(), self.guess(pos))
            unknown.sort(key=lambda p: (-p.ply, p.key()))
            now = time.monotonic()
            for pos in unknown:  # each node is fresh once, so none of these was sent before
                self.submit(pos)
                sent += 1
                pending[pos.key()] = now

        def record(key: int, found: tuple[int, int, tuple[int, ...]]) -> None:
            results[key] = found[:2]
            played[key] = found[2]
            for col in found[2]:
                expand(key, col)

        def book_tree(root: int | None) -> tuple[list[int], list[int]]:
            """(nodes of the book's tree, those of them without a result):
            from the start, each node expanded below its solved best move
            (each of its tied moves with ``ties``; none when the start is
            past the book's last ply)."""
            tree: list[int] = []
            missing: list[int] = []
            if root is None:
                return tree, missing
            stack, seen = [root], {root}
            while stack:
                key = stack.pop()
                tree.append(key)
                if key not in results:
                    missing.append(key)
                    continue
                for col in played[key]:
                    for k in children[(key, col)]:
                        if k not in seen:
                            seen.add(k)
                            stack.append(k)
            return tree, missing

        root = discover(self.start)
        try:
            settle()
            tree, missing = book_tree(root)
            while missing:
                time.sleep(self.poll_s)
                if self.on_poll:
                    self.on_poll()
                keys = list(pending)
                for key, found in zip(keys, self._lookup(keys), strict=True):
                    if found is None:
                        continue
                    del pending[key]
                    solved_now += 1
                    if journal and self.ties:
                        journal.line(format_ties_entry(key, found[2], found[1]))
                    elif journal:
                        journal.move(key, found[0], found[1])
                    record(key, found)
                settle()
                tree, missing = book_tree(root)
                now = time.monotonic()
                for key in missing:
                    if now - pending[key] > self.resend_after_s:  # every unsolved node was sent
                        self.submit(nodes[key])
                        resent += 1
                        pending[key] = now
                if self.progress:  # all positions known so far (the guessed tree too), then the book's tree
                    self.progress.update(len(results), len(nodes),
                                         f"book tree {len(tree) - len(missing)}/{len(tree)}, queued {len(pending)}")
        finally:
            if journal:
                journal.close()
        entries = {key: results[key] for key in tree}
        if self.progress:
            self.progress.finish(len(entries), len(entries), f"solved now {solved_now}")
        return OpeningResult(entries, solved_now, time.monotonic() - t0, sent, resent, by_stones(entries, self.g))


def format_ties_entry(key: int, columns: tuple[int, ...], score: int) -> str:
    """A line of the ties journal: ``<key hex> <c1,c2,..> <score>`` (1-based, centre first)."""
    return f"{key:x} {','.join(str(c + 1) for c in columns)} {score}"


def load_ties_journal(path: Path, store: ResultStore) -> int:
    """Put a ties journal's lines into the store (a torn or bad line is skipped)."""
    n = 0
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split()
        try:
            key, cols, score = int(parts[0], 16), [int(c) - 1 for c in parts[1].split(",")], int(parts[2])
            pos = position_from_key(key, store.g)
        except (ValueError, IndexError, Connect4Error):
            continue
        if len(parts) == 3 and cols and all(pos.can_play(c) for c in cols):
            store.put_ties(pos, cols, score)
            n += 1
    return n


def seed_ties(store: ResultStore, book: AnalysisBook) -> int:
    """Every column of the best score of each position an analysis book holds,
    into the store: those positions need no task. Returns how many."""
    n = 0
    for key, scores in book.entries.items():
        present = [s for s in scores if s is not None]
        if not present:
            continue
        best = max(present)
        store.put_ties(position_from_key(key, store.g), [c for c, s in enumerate(scores) if s == best], best)
        n += 1
    return n


def _stones(key: int, g: Geometry) -> int:
    """Stones of the position with this key: the bits below each column's marker."""
    n = 0
    for c in range(g.width):
        column = (key >> (c * g.h1)) & ((1 << g.h1) - 1)
        n += column.bit_length() - 1
    return n


def by_stones(keys: Iterable[int], g: Geometry) -> dict[int, int]:
    """How many of these positions (keys) have each number of stones, fewest first."""
    counts = Counter(_stones(key, g) for key in keys)
    return dict(sorted(counts.items()))


def book_header(g: Geometry, start: Position, plies: int, n: int, notes: list[str] | None = None,
                ties: bool = False) -> str:
    """The deterministic header of an opening book (no times, no machine)."""
    where = "the empty board" if not start.moves else f"the position {format_moves(start.moves, g)} (or its mirror image)"
    side = "first" if start.ply % 2 == 0 else "second"
    tree = ([f"Tree: from {where}, the {side} player plays every move of the best score (each entry: the",
             "centre-most of them) and every reply of the other player is expanded; a position and its mirror image are"]
            if ties else
            [f"Tree: from {where}, the {side} player plays the solver's best move (highest score, centre first",
             "on ties) and every reply of the other player is expanded; a position and its mirror image are"])
    lines = [
        f"Connect Four opening book, {g.name} (Connect4-rs format: <key hex> <best column 1-{g.width}> <score>).",
        "Keys are Pascal Pons' keys; scores are Pons' (positive: the side to move wins, sooner is larger).",
        *tree,
        f"stored once (the smaller key). Positions with {start.ply} to {start.ply + plies - 1} stones: {n} entries.",
        f"Made by: c4 bookgen opening --size {g.name} --plies {plies}"
        + (f" --start {format_moves(start.moves, g)}" if start.moves else "") + (" --all-ties" if ties else "")
        + " (numba exact solver, solver_svc.solver; every entry solved, none assumed).",
    ]
    lines += notes or []
    return "\n".join(lines)


def opening_entries(g: Geometry, entries: dict[int, tuple[int, int]]) -> list[Entry]:
    """The book's entries as positions (for :func:`.crosscheck.cross_check`)."""
    return [Entry(position_from_key(key, g), col, score) for key, (col, score) in entries.items()]


def write_book(path: str | os.PathLike, entries: dict[int, tuple[int, int]], header: str) -> None:
    """Sorted by key, header first; written to a temporary file then renamed,
    so readers (the engine reloads on mtime) never see half a book."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        for line in header.splitlines():
            f.write(f"# {line}".rstrip() + "\n")
        for key in sorted(entries):
            col, score = entries[key]
            f.write(format_move_entry(key, col, score) + "\n")
    os.replace(tmp, path)
