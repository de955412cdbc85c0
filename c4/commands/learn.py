"""``c4 learn MOVES``: trace the engine's moves of a finished game with the
solver and book every ply where it threw away a win or a draw in the
corrective book (see docs/bookgen.md)."""

from __future__ import annotations

import json
import sys

from c4 import argtypes


def register(sub) -> None:
    p = sub.add_parser("learn", help="learn from a lost game: book the engine's mistakes")
    p.add_argument("moves", help="the game's moves, e.g. 4453326 (1-based columns or letters)")
    p.add_argument("--size", default="7x6")
    p.add_argument("--engine", default="auto", choices=["auto", "first", "second"],
                   help="the engine's side (auto: the loser, else second)")
    p.add_argument("--book", help="corrective book to append to (default books/<size>-corrective.txt)")
    p.add_argument("--node-budget", type=argtypes.int_in(1), default=None,
                   help="solver nodes per ply before 'not proved' (default 20,000,000)")
    p.add_argument("--dry-run", action="store_true", help="report only, write nothing")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(run=run)


def run(args) -> int:
    from connect4 import Geometry
    from connect4.errors import Connect4Error
    from books.bookgen.learn import DEFAULT_NODE_BUDGET, learn_game

    if args.book and not args.dry_run:
        from c4.outputs import OutputError, check_file

        try:
            check_file(args.book)
        except OutputError as exc:
            print(f"c4 learn: --book: {exc}", file=sys.stderr)
            return 2
    try:
        g = Geometry.parse(args.size)
        book = args.book
        if book is None and not g.is_standard:
            from books.bookgen.config import BOOK_DIR

            book = BOOK_DIR / f"{g.name}-corrective.txt"
        report = learn_game(args.moves, g, engine=args.engine, book=book,
                            node_budget=args.node_budget or DEFAULT_NODE_BUDGET, write=not args.dry_run)
    except Connect4Error as exc:
        print(f"c4 learn: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        print(f"{report.moves}: {report.result} (engine: {report.engine})")
        print(report.verdict)
        if report.threw:
            print(f"book: {report.book}" + (" (dry run: not written)" if report.dry_run else ""))
    return 0
