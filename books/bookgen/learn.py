"""Learning from lost games: ``c4 learn MOVES`` and the ``bookgen.learn`` task.

The solver traces every move the engine made in a finished game. Where the
engine threw away a win (the position was won, its move was not) or a draw
(drawn, its move loses), the position goes into the corrective book with the
perfect move, its exact score and a provenance comment::

    # learned from 4453326 (threw win at ply 5)
    <key hex> <best column> <score>

The engine services reload the book when its mtime changes, so replaying the
opponent's line breaks at the corrected ply. A game the engine lost without
such a ply was won by the opponent on merit, and the report says so.

Early positions can be too hard to prove quickly: each ply gets a node budget
and a ply over it is reported as not proved (never guessed).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from connect4 import Geometry, Position
from connect4.book import BookWriter, MoveBook
from connect4.notation import format_moves, parse_moves

from .solving import BookSolver

OUTCOME = {1: "win", 0: "draw", -1: "loss"}
DEFAULT_NODE_BUDGET = 20_000_000  # per search; early plies beyond it are reported as not proved
DEFAULT_TOTAL_BUDGET = 60_000_000  # per game: once spent, the earlier plies are reported as not proved


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


@dataclass
class PlyVerdict:
    ply: int  # 1-based number of the engine's move in the game
    played: int  # 1-based column
    best: int | None  # 1-based perfect column (None: not proved)
    before: str | None  # "win"/"draw"/"loss" for the engine before its move
    after: str | None  # ... after it
    threw: str | None = None  # "win" or "draw" when thrown away
    booked: bool = False


@dataclass
class LearnReport:
    moves: str
    engine: str  # "first" or "second"
    result: str  # "engine lost", "engine won", "draw", "unfinished"
    verdict: str  # a sentence for a person
    threw: list[PlyVerdict] = field(default_factory=list)
    unproved: list[int] = field(default_factory=list)
    book: str = ""
    plies: list[PlyVerdict] = field(default_factory=list)
    dry_run: bool = False  # nothing written: ``would_book`` says how many entries would have been
    would_book: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


def learn_game(moves, g: Geometry, *, engine: str = "auto", book: str | Path | None = None,
               solver: BookSolver | None = None, node_budget: int = DEFAULT_NODE_BUDGET,
               known_books: list[Path] | None = None, write: bool = True,
               total_budget: int = DEFAULT_TOTAL_BUDGET) -> LearnReport:
    """Trace the engine's moves of a game; book every ply where it threw a result away.

    ``moves``: a string in any notation (1-based) or a list of 0-based columns."""
    from .config import settings

    cols = parse_moves(moves, g) if not isinstance(moves, list) else list(moves)
    game = Position.from_moves(cols, g)
    text = format_moves(cols, g)
    if engine == "auto":  # the engine is the loser of a lost game, else the second player
        engine = "first" if game.winner == 1 else "second"
    if engine not in ("first", "second"):
        raise ValueError(f"engine must be first, second or auto, not {engine!r}")
    side = 0 if engine == "first" else 1
    if game.winner is None:
        result = "draw" if game.is_draw else "unfinished"
    else:
        result = "engine won" if game.winner == side else "engine lost"
    book_path = Path(book) if book else settings().corrective_book
    bs = solver or BookSolver(g)
    bs.node_budget = node_budget
    from .corrective import known_from_books

    known = known_from_books(known_books if known_books is not None else
                             [settings().opening_book, book_path], g) if g.is_standard else {}
    existing = MoveBook.load(book_path, g) if book_path.exists() else MoveBook(g)
    report = LearnReport(text, engine, result, "", book=str(book_path), dry_run=not write)
    from solver_svc.solver import BudgetExceeded

    nodes0 = bs.nodes
    # the last moves first: their exact scores fill the solver's table and
    # make the earlier, harder positions cheaper
    for i in reversed(range(len(cols))):
        pos = Position.from_moves(cols[:i], g)
        col = cols[i]
        if pos.to_move != side:
            continue
        v = PlyVerdict(ply=i + 1, played=col + 1, best=None, before=None, after=None)
        if bs.nodes - nodes0 > total_budget:
            report.unproved.append(i + 1)
            report.plies.append(v)
            continue
        try:
            bm = bs.best_move(pos, known.get)
            known[pos.canonical_key()] = bm.score
            v.best, v.before = bm.column + 1, OUTCOME[_sign(bm.score)]
            after = _sign(bm.score) if col == bm.column else bs.move_outcome(pos, col, known.get)
            v.after = OUTCOME[after]
            if after < _sign(bm.score):
                v.threw = v.before
                report.threw.append(v)
        except BudgetExceeded:
            report.unproved.append(i + 1)
        report.plies.append(v)
    report.plies.reverse()
    report.threw.reverse()
    report.unproved.reverse()
    for v in report.threw:  # booked in game order
        assert v.best is not None  # a result thrown away was proved, its best column with it
        pos = Position.from_moves(cols[:v.ply - 1], g)
        if existing.lookup(pos) is not None:
            continue  # booked before
        if not write:
            report.would_book += 1
            continue
        with BookWriter(book_path) as w:
            w.move(pos.key(), v.best - 1, known[pos.canonical_key()],
                   comment=f"learned from {text} (threw {v.threw} at ply {v.ply})")
        v.booked = True
    report.verdict = _sentence(report)
    return report




def _sentence(r: LearnReport) -> str:
    if r.threw:
        parts = [f"threw {v.threw} at ply {v.ply} (played {v.played}, {v.best} keeps the {v.threw})" for v in r.threw]
        tail = f"; plies {', '.join(map(str, r.unproved))} not proved within the node budget" if r.unproved else ""
        if r.dry_run:
            n = r.would_book
            entries = f"; dry run: {n} new corrective entr{'y' if n == 1 else 'ies'} would be written, none was"
        else:
            n = sum(v.booked for v in r.threw)
            entries = f"; {n} new corrective entr{'y' if n == 1 else 'ies'}"
        return f"the engine ({r.engine}) " + "; ".join(parts) + entries + tail
    if r.unproved:
        return (f"no mistake of the engine proved; plies {', '.join(map(str, r.unproved))} were too hard "
                "to prove within the node budget")
    if r.result == "engine lost":
        return "the opponent won on merit: the engine never threw away a win or a draw"
    return f"{r.result}: the engine never threw away a win or a draw"
