"""The corrective book: where the engine, playing second, throws a result away.

``c4 bookgen corrective --stones N --depths 12,13``: every position with at
most N stones where the second player is to move (from the empty board, or
from ``--start``), a position and its mirror image once, is audited:

* the engine's move: the real engine search (:class:`engine_svc.search.Engine`)
  with a fresh table, at each fixed depth of ``--depths`` (deterministic)
  and at each time budget of ``--movetime-ms`` (as ``engine:MS`` plays it:
  iterative deepening on the clock, so the move may differ between runs
  and machines; the journal keeps each audit as it was made);
* the verdict, cheapest first: the weak outcome (win, draw or loss) of the
  engine's moves; only when one of them is not a win are the other columns
  tested, and only when one of those does better is the position solved
  exactly (the perfect move and score of its entry). Scores already known
  from the opening and analysis books are used as they are and preloaded
  into the solver's table;
* an entry (``<key> <best column> <score>``, the Connect4-rs format) only
  where the engine's move at one of those settings throws away a win (the
  position is won, the move is not) or a draw (drawn, the move loses).

The engine service loads this book beside the opening book and plays the
book move there. ``c4 learn`` appends to the same file (:mod:`.learn`).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass, field
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from connect4 import Geometry, Position
from connect4.book import MoveBook
from connect4.notation import format_moves

from .crosscheck import Entry, check_before_writing
from .opening import canonical_position
from servicekit.progress import Progress
from .solving import BookSolver


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


OUTCOME = {1: "win", 0: "draw", -1: "loss"}
ENGINE_TABLE_MB = 64.0  # the table of engine:MS (engine_svc.players.ladder.EnginePlayer)


@dataclass(frozen=True)
class Setting:
    """One way the engine is run in the audit: a fixed depth or a time budget."""

    depth: int | None = None
    movetime_ms: int | None = None

    @property
    def label(self) -> str:
        return f"depth {self.depth}" if self.depth is not None else f"{self.movetime_ms} ms"

    def play(self, pos: Position) -> tuple[int, int]:
        """(column, depth of the last finished iteration), from a fresh table."""
        from engine_svc.search import Engine

        if self.depth is not None:
            return Engine(pos.geometry, tt_mb=4).search(pos, max_depth=self.depth).column, self.depth
        r = Engine(pos.geometry, tt_mb=ENGINE_TABLE_MB).search(pos, budget_ms=self.movetime_ms)
        return r.column, r.depth


def settings_of(depths: Iterable[int], movetimes: Iterable[int] = ()) -> list[Setting]:
    return [Setting(depth=d) for d in depths] + [Setting(movetime_ms=ms) for ms in movetimes]


@dataclass
class Finding:
    key: int
    moves: list[int]
    best_column: int | None  # the perfect move; None when no entry is needed
    score: int | None  # the position's exact score; None when no entry is needed
    engine_moves: dict[str, int]  # setting label ("depth 12", "2000 ms") -> column (0-based)
    engine_outcomes: dict[str, int]  # setting label -> sign of the engine move's score
    outcome: int = -1  # the position's outcome (sign), as far as the audit needed it
    reached: dict[str, int] = field(default_factory=dict)  # setting label -> depth the search finished

    @property
    def thrown(self) -> bool:
        return any(o < self.outcome for o in self.engine_outcomes.values())

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, line: str) -> Finding:
        d = json.loads(line)
        for name in ("engine_moves", "engine_outcomes", "reached"):
            d[name] = {str(k): int(v) for k, v in d.get(name, {}).items()}
        return cls(**d)

    def comment(self, g: Geometry) -> str:
        parts = [f"{label}{self._depth_note(label)} plays {c + 1} ({OUTCOME[self.engine_outcomes[label]]})"
                 for label, c in self.engine_moves.items()]
        best_column, _ = self.entry()
        return f"{format_moves(self.moves, g) or 'start'}: {OUTCOME[self.outcome]} with {best_column + 1}; " + ", ".join(parts)

    def _depth_note(self, label: str) -> str:
        d = self.reached.get(label)
        return f" (depth {d})" if d is not None and not label.startswith("depth ") else ""

    def entry(self) -> tuple[int, int]:
        """(perfect column, exact score): the book entry of a finding the engine throws away."""
        if self.best_column is None or self.score is None:
            raise ValueError(f"position {self.key:x} needs no entry: the engine keeps its result")
        return self.best_column, self.score


class Audit(NamedTuple):
    """What :func:`generate` did: the findings where the engine throws a result
    away, the positions audited, and the positions it had to audit."""

    findings: list[Finding]
    audited: int
    planned: int  # audited < planned: stopped by max_seconds


def engine_move(pos: Position, depth: int) -> int:
    """The engine's move at a fixed depth, from a fresh table (deterministic)."""
    return Setting(depth=depth).play(pos)[0]


def positions(g: Geometry, stones: int, start: Position | None = None) -> list[Position]:
    """Every position reachable from ``start`` with at most ``stones`` stones,
    the second player to move, game not over; mirror images once; by key."""
    start = start or Position(g)
    seen: dict[int, Position] = {}
    frontier = [canonical_position(start)]
    done: set[int] = set()
    while frontier:
        nxt: list[Position] = []
        for pos in frontier:
            if pos.is_over or pos.key() in done:
                continue
            done.add(pos.key())
            if pos.ply % 2 == 1:
                seen[pos.key()] = pos
            if pos.ply < stones:
                nxt.extend(canonical_position(pos.played(c)) for c in pos.legal_moves())
        frontier = nxt
    return [seen[k] for k in sorted(seen)]


def positions_along(book: MoveBook, stones: int, deviate: bool = False, min_stones: int = 0) -> list[Position]:
    """The positions the engine (second player) meets against the book's
    first player: every entry's position after its best move (``deviate``:
    after each of its other moves instead, where the engine gets chances),
    with ``min_stones`` to ``stones`` stones, game not over; mirror images
    once; by key."""
    from connect4.keys import position_from_key

    seen: dict[int, Position] = {}
    for key, e in book.entries.items():
        p = position_from_key(key, book.geometry)
        cols = [c for c in p.legal_moves() if c != e.column] if deviate else [e.column]
        for c in cols:
            q = p.played(c)
            if not q.is_over and min_stones <= q.ply <= stones and q.ply % 2 == 1:
                q = canonical_position(q)
                seen[q.key()] = q
    return [seen[k] for k in sorted(seen)]


def known_from_books(paths: Iterable[Path], g: Geometry) -> dict[int, int]:
    """Exact position scores from move and analysis books, by canonical key.

    A move book gives its positions' scores; an analysis book also gives
    every child's (the negated column score), except where the column wins
    at once or fills the board (those children are over)."""
    from connect4.book import AnalysisBook, child_scores
    from connect4.bookset import is_analysis_file
    from connect4.keys import mirror_key, position_from_key

    known: dict[int, int] = {}
    for p in paths:
        if not Path(p).exists():
            continue
        if not is_analysis_file(Path(p), g):
            for key, e in MoveBook.load(p, g).entries.items():
                known[min(key, mirror_key(key, g))] = e.score
            continue
        for key, scores in AnalysisBook.load(p, g).entries.items():
            present = [s for s in scores if s is not None]
            if not present:
                continue
            pos = position_from_key(key, g)
            known[pos.canonical_key()] = max(present)
            known.update(child_scores(pos, scores))
    return known


def audit(pos: Position, settings: list[Setting], bs: BookSolver, known: dict[int, int]) -> Finding:
    """Engine moves and verdict for one position (second player to move).

    Weak outcomes first; an exact solve only for a position that gets an entry."""
    played = {s.label: s.play(pos) for s in settings}
    moves = {label: c for label, (c, _) in played.items()}
    reached = {label: d for label, (_, d) in played.items()}
    exact = known.get(pos.canonical_key())
    if exact is not None and exact < 0:  # lost whatever the engine plays: nothing to throw away
        return Finding(pos.key(), list(pos.moves), None, exact, moves, dict.fromkeys(moves, -1), -1, reached)
    outcome_of: dict[int, int] = {}

    def outcome(c: int) -> int:
        if c not in outcome_of:
            outcome_of[c] = bs.move_outcome(pos, c, known.get)
        return outcome_of[c]

    outcomes = {d: outcome(c) for d, c in moves.items()}
    worst = min(outcomes.values())
    if exact is not None:
        better = sign(exact) > worst
    else:
        better = worst < 1 and any(outcome(c) > worst for c in pos.geometry.center_order() if pos.can_play(c))
    if not better:
        return Finding(pos.key(), list(pos.moves), None, None, moves, outcomes, worst, reached)
    bm = bs.best_move(pos, known.get)
    known[pos.canonical_key()] = bm.score
    return Finding(pos.key(), list(pos.moves), bm.column, bm.score, moves, outcomes, sign(bm.score), reached)


def load_journal(path: Path | None, settings: list[Setting]) -> dict[int, Finding]:
    """Audits of an interrupted run (same settings), by key; unreadable lines are skipped."""
    labels = sorted(s.label for s in settings)
    done: dict[int, Finding] = {}
    if path is None or not path.exists():
        return done
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            f = Finding.from_json(line)
        except (ValueError, TypeError, KeyError, AttributeError):
            continue
        if sorted(f.engine_moves) == labels:
            done[f.key] = f
    return done


def generate(g: Geometry, stones: int, settings: list[Setting] | list[int], *, start: Position | None = None,
             known: dict[int, int] | None = None, progress: Progress | None = None,
             tt_log2: int | None = None, along: MoveBook | None = None, deviate: bool = False,
             min_stones: int = 0, max_seconds: float | None = None,
             journal: Path | None = None, shard: tuple[int, int] = (0, 1)) -> Audit:
    """Audit the engine's moves against the solver (see :class:`Audit`);
    ``settings``: :class:`Setting` values, or whole numbers for fixed depths.

    ``max_seconds``: audit no new position after that long; the positions
    audited count (the caller says so in the header). ``journal``: every
    audit is appended there as it finishes, and a rerun takes the audits it
    holds instead of doing them again (delete it when the engine changes).
    ``shard`` (i, n): only every n-th position from the i-th (several
    processes, each with its own journal; a run over the joined journals
    then writes the whole book)."""
    runs = [s if isinstance(s, Setting) else Setting(depth=s) for s in settings]
    bs = BookSolver(g, tt_log2=tt_log2)
    known = dict(known or {})
    done = load_journal(journal, runs)
    for journaled in done.values():
        if journaled.score is not None:
            known[Position.from_moves(journaled.moves, g).canonical_key()] = journaled.score
    bs.preload(known)
    todo = (positions_along(along, stones, deviate, min_stones) if along is not None
            else [p for p in positions(g, stones, start) if p.ply >= min_stones])
    # deepest first: their exact scores (kept in ``known`` and in the solver's
    # table) make the shallower verdicts cheaper
    todo.sort(key=lambda p: (-p.ply, p.key()))
    todo = todo[shard[0]::shard[1]]
    findings: list[Finding] = []
    t0 = time.monotonic()
    audited = 0
    out = open(journal, "a", encoding="utf-8") if journal is not None else None  # noqa: SIM115 (held open past this block)
    try:
        for i, pos in enumerate(todo):
            f = done.get(pos.key())
            if f is None:
                if max_seconds is not None and time.monotonic() - t0 > max_seconds:
                    continue  # out of time: journaled audits still count
                f = audit(pos, runs, bs, known)
                if out is not None:
                    out.write(f.to_json() + "\n")
                    out.flush()
            audited += 1
            if f.thrown:
                findings.append(f)
            if progress:
                progress.update(i + 1, len(todo), f"audited {audited}, entries {len(findings)}")
    finally:
        if out is not None:
            out.close()
    if progress:
        progress.finish(len(todo), len(todo), f"audited {audited}, entries {len(findings)}")
    findings.sort(key=lambda f: f.key)
    return Audit(findings, audited, len(todo))


def _options(runs: list[Setting]) -> str:
    depths = [str(s.depth) for s in runs if s.depth is not None]
    times = [str(s.movetime_ms) for s in runs if s.movetime_ms is not None]
    return ((f" --depths {','.join(depths)}" if depths else "") + (f" --movetime-ms {','.join(times)}" if times else ""))


def _searches(runs: list[Setting]) -> str:
    depths = [str(s.depth) for s in runs if s.depth is not None]
    times = [str(s.movetime_ms) for s in runs if s.movetime_ms is not None]
    parts = ([f"at fixed depths {','.join(depths)}"] if depths else []) + (
        [f"as engine:MS plays, MS = {','.join(times)} (clock, {ENGINE_TABLE_MB:.0f} MB table)"] if times else [])
    return " and ".join(parts)


def header(g: Geometry, stones: int, settings: list[Setting] | list[int], audited: int, n: int,
           start: Position | None, notes: list[str], along: str | None = None, deviate: bool = False,
           min_stones: int = 0) -> str:
    runs = [s if isinstance(s, Setting) else Setting(depth=s) for s in settings]
    where = "the empty board" if start is None or not start.moves else f"the position {format_moves(start.moves, g)}"
    scope = (f"Audit: every position with {min_stones} to {stones} stones that the second player (the engine)\n"
             f"meets when the first player follows the book {along}"
             + (" except for one move (each other column of a book position)" if deviate else "")
             + f": {audited} positions (mirror images once).")
    if along is None:
        scope = (f"Audit: every position reachable from {where} with at most {stones} stones where the second\n"
                 f"player (the engine) is to move: {audited} positions (mirror images once).")
    return "\n".join([
        f"Connect Four corrective book, {g.name} (Connect4-rs format: <key hex> <best column 1-{g.width}> <score>).",
        scope,
        "An entry only where the engine's search (engine_svc.search.Engine, a fresh table a position)",
        f"{_searches(runs)}, throws away a win or a draw;",
        "the entry is the solver's perfect move and the position's exact score.",
        f"Entries: {n}. Made by: c4 bookgen corrective --stones {stones}{_options(runs)}"
        + (f" --start {format_moves(start.moves, g)}" if start is not None and start.moves else "")
        + (f" --along {along}" if along else "") + (" --deviate" if deviate else "")
        + (f" --min-stones {min_stones}" if min_stones else "") + ".",
        "Lines after the sorted entries may be appended by `c4 learn` (with a provenance comment).",
        *notes,
    ])


def write(path, g: Geometry, findings: list[Finding], head: str) -> None:
    """Sorted entries, each after a comment saying what the engine does there."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    from connect4.book import format_move_entry

    with open(tmp, "w", encoding="utf-8") as f:
        for line in head.splitlines():
            f.write(f"# {line}".rstrip() + "\n")
        for x in findings:
            f.write(f"# {x.comment(g)}\n")
            f.write(format_move_entry(x.key, *x.entry()) + "\n")
    tmp.replace(path)


def parse_shard(text: str) -> tuple[int, int]:
    """``I/N`` -> (I, N) with 0 <= I < N."""
    i, sep, n = text.partition("/")
    if not sep or not i.strip().isdigit() or not n.strip().isdigit() or not 0 <= int(i) < int(n):
        raise ValueError(f"--shard wants I/N with 0 <= I < N, got {text!r}")
    return int(i), int(n)


def check_counts(g: Geometry, stones: int, min_stones: int, depths: list[int],
                 movetimes: Sequence[int] = ()) -> None:
    """ValueError naming the option when the audit's bounds make no sense on ``g``."""
    if not depths and not movetimes:
        raise ValueError("give --depths or --movetime-ms (or both): the engine settings to audit")
    if not 1 <= stones < g.cells:
        raise ValueError(f"--stones must be in 1..{g.cells - 1} on a {g.name} board, got {stones}")
    if not 0 <= min_stones <= stones:
        raise ValueError(f"--min-stones must be in 0..{stones} (at most --stones), got {min_stones}")
    if any(not 1 <= d <= g.cells for d in depths):
        raise ValueError(f"--depths must be search depths in 1..{g.cells}, got {depths}")


def main(args) -> int:
    from connect4.errors import Connect4Error
    from connect4.kernels import require_single_word

    from .config import BOOK_DIR

    try:
        g = Geometry.parse(args.size)
        require_single_word(g, "the corrective book (the exact solver)")
        start = Position.parse(args.start, g) if getattr(args, "start", "") else None
        movetimes = list(getattr(args, "movetime_ms", None) or [])
        depths = args.depths if args.depths is not None else ([] if movetimes else [12, 13])
        if not isinstance(depths, list):
            depths = [int(d) for d in depths.split(",") if d.strip()]
        shard = parse_shard(getattr(args, "shard", None) or "0/1")
        check_counts(g, args.stones, args.min_stones, depths, movetimes)
        runs = settings_of(depths, movetimes)
    except (Connect4Error, ValueError) as exc:
        print(f"c4 bookgen corrective: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else BOOK_DIR / f"{g.name}-corrective.txt"
    books = (args.books if args.books is not None
             else [BOOK_DIR / f"{g.name}-opening.txt", BOOK_DIR / f"{g.name}-analysis.txt"])
    t0 = time.monotonic()
    along = MoveBook.load(args.along, g) if getattr(args, "along", None) else None
    if along is not None and not len(along):
        print(f"c4 bookgen corrective: --along: {args.along} has no {g.name} book entries "
              f"({len(along.problems)} lines not understood)", file=sys.stderr)
        return 2
    if along is not None:
        books = list(books) + [args.along]
    journal = out.with_name(out.name + ".journal")
    findings, audited, planned = generate(g, args.stones, runs, start=start, known=known_from_books(books, g),
                                 progress=Progress("positions"), along=along, deviate=args.deviate,
                                 min_stones=args.min_stones, max_seconds=args.max_seconds,
                                 journal=journal, shard=shard)
    if shard != (0, 1):
        args.note.append(f"Shard {shard[0]}/{shard[1]}: every {shard[1]}-th position from the {shard[0]}-th "
                         "(deepest first, then by key).")
    if audited < planned:
        args.note.append(f"Partial: {audited} of {planned} positions audited (stopped after "
                         f"{args.max_seconds:.0f} s); the others are not audited in this book.")
    checked = [Entry(Position.from_moves(f.moves, g), *f.entry()) for f in findings]
    if not check_before_writing(args, checked, "c4 bookgen corrective"):
        print(f"c4 bookgen corrective: the audits stay in {journal}", file=sys.stderr)
        return 1
    write(out, g, findings, header(g, args.stones, runs, audited, len(findings), start, args.note,
                                   Path(args.along).name if along is not None else None, args.deviate,
                                   args.min_stones))
    if audited == planned and shard == (0, 1):
        journal.unlink(missing_ok=True)  # complete: the book holds it all (a shard's journal is kept for the join)
    print(f"c4 bookgen corrective: wrote {out}: {len(findings)} entries from {audited} positions, "
          f"{time.monotonic() - t0:.1f} s", file=sys.stderr)
    return 0
