"""Generate an analysis book: the exact score of every column, by the real solver.

    python -m books.analysis_gen --plies 4 --out books/7x6-analysis.txt
    python -m books.analysis_gen --min-ply 10 --max-ply 12 --out ...
    python -m books.analysis_gen --positions unproved.txt --out ...   # one move list a line
    python -m books.analysis_gen --tree books/7x6-opening.txt --min-ply 6 --known books/7x6-opening.txt

Positions are enumerated from the empty board, read from a file, or walked on
a move book's tree (``--tree``: the book side's book move, every reply of the
other side, as far as the book reaches), mirror images kept once (the
canonical key, the smaller of a position's key and its mirror's), finished
games skipped. They are solved deepest first, so the cheap deep positions
fill the transposition table the shallow ones then use.

A column's score is minus its child position's exact score. That score is
taken from ``--known`` books (exact scores our solver proved earlier, e.g.
the opening book) or from this run's own results when there is one, and
solved by the real solver otherwise; nothing is ever assumed.
Every line is flushed as soon as it is proved (:class:`BookWriter`), and a
rerun skips keys already in the file, so an interrupted run resumes where it
stopped. ``--max-seconds`` gives up on a position that takes longer (it is
counted and named in the log, never written unproved).
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
import time
from pathlib import Path

import numpy as np

from connect4 import STANDARD, Geometry, Position
from connect4.book import AnalysisBook, BookWriter
from connect4.keys import canonical
from connect4.notation import format_moves

log = logging.getLogger("books.analysis_gen")

SLOW_CHILD_S = 10.0  # a child solve at least this long is logged on its own


def enumerate_positions(g: Geometry, min_ply: int, max_ply: int) -> list[Position]:
    """One position per mirror pair for every ply in [min_ply, max_ply], games in play only."""
    out: list[Position] = []
    layer = {canonical(Position(g))[0]: Position(g)}
    for ply in range(max_ply + 1):
        if ply >= min_ply:
            out.extend(layer.values())
        if ply == max_ply:
            break
        nxt: dict[int, Position] = {}
        for pos in layer.values():
            for c in pos.legal_moves():
                child = pos.played(c)
                if child.is_over:
                    continue
                key = canonical(child)[0]
                if key not in nxt:
                    nxt[key] = child
        layer = nxt
    return out


def tree_positions(book, g: Geometry, min_ply: int = 0, max_ply: int | None = None,
                   sides: str = "both", start: Position | None = None) -> list[Position]:
    """The positions of a move book's tree from ``start`` (the empty board by
    default): the book side's book move, then every reply of the other side,
    as long as the book has the position. ``sides``: ``book`` (the positions with a book
    entry), ``other`` (the positions right after a book move) or ``both``;
    one position per mirror pair, games in play only, ``min_ply..max_ply``."""
    out: dict[int, Position] = {}
    seen: set[int] = set()
    layer = [start if start is not None else Position(g)]  # positions with the book side to move
    while layer:
        nxt: list[Position] = []
        for pos in layer:
            entry = book.lookup(pos)
            key = canonical(pos)[0]
            if entry is None or key in seen:
                continue
            seen.add(key)
            after = pos.played(entry.column)
            for role, p in (("book", pos), ("other", after)):
                in_range = p.ply >= min_ply and (max_ply is None or p.ply <= max_ply)
                if in_range and not p.is_over and sides in (role, "both"):
                    out.setdefault(canonical(p)[0], p)
            if not after.is_over:
                nxt.extend(r for r in (after.played(c) for c in after.legal_moves()) if not r.is_over)
        layer = nxt
    return list(out.values())


def read_positions(path: str, g: Geometry) -> list[Position]:
    out, seen = [], set()
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        try:
            pos = Position.parse(body.split()[0], g)
        except ValueError as exc:
            log.warning("position skipped", extra={"line": number, "error": str(exc)})
            continue
        key = canonical(pos)[0]
        if not pos.is_over and key not in seen:
            seen.add(key)
            out.append(pos)
    return out


class ChildScores:
    """Exact scores of child positions: this run's, the known books', else
    the solver's (which are remembered for the next position)."""

    def __init__(self, solver, known=None):
        self.solver = solver
        self.known = known  # a BookSet or None
        self.proved: dict[int, int] = {}
        self.from_books = self.solved = self.nodes = 0

    def column_scores(self, pos: Position, stop) -> list[int | None]:
        g = pos.geometry
        win_now = (g.cells + 1 - pos.ply) // 2
        out: list[int | None] = []
        for c in range(g.width):
            if not pos.can_play(c):
                out.append(None)
            elif pos.is_winning_move(c):
                out.append(win_now)
            else:
                child = pos.played(c)
                out.append(0 if child.is_over else -self.score(child, stop))  # over: the last cell, a draw
        return out

    def score(self, pos: Position, stop) -> int:
        key = canonical(pos)[0]
        s = self.proved.get(key)
        if s is None and self.known is not None:
            s = self.known.score(pos)
            self.from_books += s is not None
        if s is None:
            started = time.perf_counter()
            try:
                result = self.solver.solve(pos, stop=stop)
            finally:
                self.nodes += self.solver.last_nodes
            s = result.score
            self.solved += 1
            seconds = time.perf_counter() - started
            if seconds >= SLOW_CHILD_S:  # a long run shows its progress child by child
                log.info("child solved", extra={"moves": format_moves(pos.moves, pos.geometry), "score": s,
                                                "nodes": self.solver.last_nodes, "seconds": round(seconds, 1)})
        self.proved[key] = s
        return s

    def learn(self, pos: Position, scores) -> None:
        """An analysed position's own exact score, for its parents."""
        known = [s for s in scores if s is not None]
        if known:
            self.proved[canonical(pos)[0]] = max(known)


def generate(positions: list[Position], out: Path, g: Geometry, max_seconds: float | None,
             tt_log2: int | None, header: str, known=None) -> dict:
    from solver_svc.solver import BudgetExceeded, Solver

    done = AnalysisBook.load(out, g).entries if out.exists() else {}
    todo = [p for p in positions if canonical(p)[0] not in done]
    todo.sort(key=lambda p: -p.ply)  # deepest first
    solver = Solver(g, tt_log2)
    children = ChildScores(solver, known)
    for key, known in done.items():
        children.proved[key] = max(s for s in known if s is not None)
    stop = np.zeros(1, dtype=np.uint8)
    stats = {"positions": len(positions), "already": len(positions) - len(todo), "written": 0,
             "gave_up": 0, "nodes": 0, "seconds": 0.0}
    started = last_report = time.perf_counter()
    log.info("analysis book: start", extra={"todo": len(todo), "already": stats["already"], "out": str(out)})
    with BookWriter(out, header) as writer:
        for i, pos in enumerate(todo, 1):
            stop[0] = 0
            timer = threading.Timer(max_seconds, stop.__setitem__, (0, 1)) if max_seconds else None
            if timer:
                timer.start()
            try:
                scores = children.column_scores(pos, stop)
            except BudgetExceeded:
                stats["gave_up"] += 1
                log.warning("gave up", extra={"moves": format_moves(pos.moves, g), "ply": pos.ply,
                                              "max_seconds": max_seconds})
                continue
            finally:
                if timer:
                    timer.cancel()
                stats["nodes"] = children.nodes
            children.learn(pos, scores)
            key, mirrored = canonical(pos)
            writer.analysis(key, reversed(scores) if mirrored else scores)
            stats["written"] += 1
            now = time.perf_counter()
            if now - last_report > 10 or i == len(todo):
                last_report = now
                log.info("analysis book: progress", extra={
                    "done": i, "todo": len(todo), "ply": pos.ply, "written": stats["written"],
                    "gave_up": stats["gave_up"], "seconds": round(now - started, 1)})
        stats["seconds"] = round(time.perf_counter() - started, 1)
        stats["children_from_books"], stats["children_solved"] = children.from_books, children.solved
        writer._write(f"# run finished: {stats['written']} written, {stats['already']} already there, "
                      f"{stats['gave_up']} given up, {stats['nodes']} nodes, {stats['seconds']} s")
    return stats


def probe(g: Geometry, plies: list[int], per_ply: int, max_seconds: float, tt_log2: int | None, seed: int = 1) -> list[dict]:
    """Time full analyses of random positions at each ply (a fresh table each):
    how deep a complete book can start in a given time."""
    import random

    from solver_svc.solver import BudgetExceeded, Solver

    rng = random.Random(seed)
    solver = Solver(g, tt_log2)
    stop = np.zeros(1, dtype=np.uint8)
    rows = []
    for ply in plies:
        times, gave_up = [], 0
        for _ in range(per_ply):
            while True:  # a random game in play at this ply
                pos = Position(g)
                while pos.ply < ply and not pos.is_over:
                    pos.play(rng.choice(pos.legal_moves()))
                if not pos.is_over and pos.ply == ply:
                    break
            solver.reset()
            stop[0] = 0
            timer = threading.Timer(max_seconds, stop.__setitem__, (0, 1))
            timer.start()
            t0 = time.perf_counter()
            try:
                solver.analyze(pos, stop=stop)
                times.append(time.perf_counter() - t0)
            except BudgetExceeded:
                gave_up += 1
            finally:
                timer.cancel()
        row = {"ply": ply, "n": per_ply, "proved": len(times), "gave_up": gave_up,
               "median_s": round(sorted(times)[len(times) // 2], 3) if times else None,
               "max_s": round(max(times), 3) if times else None}
        log.info("probe", extra=row)
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m books.analysis_gen", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "7x6-analysis.txt"))
    parser.add_argument("--size", default="7x6", help="board, e.g. 7x6 (default)")
    parser.add_argument("--plies", type=int, help="every position of 0..N stones")
    parser.add_argument("--min-ply", type=int, default=0)
    parser.add_argument("--max-ply", type=int)
    parser.add_argument("--positions", help="a file of move lists (1-based digits), one a line")
    parser.add_argument("--tree", metavar="BOOK", help="the positions of this move book's tree (see --side)")
    parser.add_argument("--start", default="", help="with --tree: the tree's root (moves; default the empty board)")
    parser.add_argument("--side", choices=("book", "other", "both"), default="both",
                        help="with --tree: positions with a book move, right after one, or both (default)")
    parser.add_argument("--known", metavar="BOOKS",
                        help="books whose exact scores answer child positions (files or folders, comma separated)")
    parser.add_argument("--max-seconds", type=float, default=None, help="give up on a position after this long")
    parser.add_argument("--tt-log2", type=int, default=None)
    parser.add_argument("--probe", help="time analyses of random positions at these plies (e.g. 6,8,10) instead")
    parser.add_argument("--per-ply", type=int, default=5, help="positions a ply for --probe")
    args = parser.parse_args(argv)

    from servicekit.logs import configure_logging

    configure_logging("analysis_gen")
    g = Geometry.parse(args.size) if args.size != "7x6" else STANDARD
    if args.probe:
        rows = probe(g, [int(p) for p in args.probe.split(",")], args.per_ply, args.max_seconds or 60.0, args.tt_log2)
        for row in rows:
            print(" ".join(f"{k}={v}" for k, v in row.items()))
        return 0
    if args.positions:
        positions = read_positions(args.positions, g)
        how = f"the positions listed in {Path(args.positions).name}"
    elif args.tree:
        from connect4.book import MoveBook

        root = Position.parse(args.start, g)
        positions = tree_positions(MoveBook.load(args.tree, g), g, args.min_ply, args.max_ply, args.side, root)
        how = (f"the tree of {Path(args.tree).name} from {args.start or 'the empty board'} ({args.side} side"
               f"{'s' if args.side == 'both' else ''}, {args.min_ply}..{args.max_ply if args.max_ply is not None else 'end'} stones)")
    else:
        top = args.plies if args.plies is not None else args.max_ply
        if top is None:
            parser.error("give --plies N, --max-ply N or --positions FILE")
        positions = enumerate_positions(g, args.min_ply, top)
        how = f"every position of {args.min_ply}..{top} stones (mirror images once)"
    header = (
        f"Analysis book {g.name}: <key hex> <score of column 1> .. <score of column {g.width}>, x = full.\n"
        f"Pons' keys and scores (positive: the side to move wins, larger = sooner; 0 = draw).\n"
        f"Made by `python -m books.analysis_gen` with the numba exact solver (solver_svc.solver): {how}.\n"
        f"Only proved values are written; lookups also find the mirror image."
    )
    known = None
    if args.known:
        from connect4.bookset import BookSet

        known = BookSet.load(args.known)
        header += f"\nChild scores from {', '.join(b.name for b in known.books)} where known (exact, proved earlier)."
    stats = generate(positions, Path(args.out), g, args.max_seconds, args.tt_log2, header, known)
    print(" ".join(f"{k}={v}" for k, v in stats.items()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
