"""``c4 match A B``: a match between two ladder players from paired random openings."""

from __future__ import annotations

import json
import sys
import time

from c4 import argtypes


def register(sub) -> None:
    p = sub.add_parser("match", help="play a match between two engine ladder players (paired random openings)")
    p.add_argument("a", help="player spec, e.g. minimax:5")
    p.add_argument("b", help="player spec, e.g. greedy")
    p.add_argument("--games", type=argtypes.even_games, default=200,
                   help="number of games, even: each opening is played from both seats (default 200)")
    p.add_argument("--opening-plies", type=argtypes.int_in(0, 41), default=4,
                   help="random plies before the players take over, 0..41 (default 4)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--size", default="7x6", help="board WxH, 1..16 a side (default 7x6)")
    p.add_argument("--connect", type=int, default=4, help="stones in a row that win, 2..max(W, H) (default 4)")
    p.add_argument("--budget-ms", type=argtypes.float_in(0, lo_open=True), default=None,
                   help="overrides engine:MS budgets (milliseconds, more than 0)")
    p.add_argument("--tt-mb", type=argtypes.table_mb, default=64.0, help="table size of engine players in MB (default 64)")
    p.add_argument("--books", default="none",
                   help="move books of engine players: comma-separated paths, 'default' (the shipped "
                        "opening and corrective books, whichever exist) or 'none' (default)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no per-game progress on stderr")
    p.set_defaults(run=run)


def run(args) -> int:
    from engine_svc.match import play_match
    from engine_svc.players import InvalidSpec, bind_opponent, parse_spec

    for spec, other in ((args.a, args.b), (args.b, args.a)):
        try:
            parse_spec(bind_opponent(spec, other))  # a bare clairvoyant plays against its opponent's policy
        except InvalidSpec as exc:
            print(f"c4 match: {exc}", file=sys.stderr)
            return 2
    from connect4.openings import random_openings
    from connect4 import STANDARD, Geometry, InvalidGeometry
    from connect4.bookset import SHIPPED_MOVE_BOOKS, BookSet

    from c4.bookpaths import BookPathError, explicit_book_paths

    try:
        geometry = Geometry.parse(args.size, args.connect)
    except InvalidGeometry as exc:
        print(f"c4 match: {exc}", file=sys.stderr)
        return 2
    if not geometry.is_standard and args.books.strip().lower() != "none":
        print("c4 match: --books are 7x6 books: use --books none on another board", file=sys.stderr)
        return 2
    try:
        random_openings(args.games // 2, args.opening_plies, args.seed, geometry)  # cheap: refuses impossible openings now
        paths = explicit_book_paths(args.books, "--books")
    except (ValueError, BookPathError) as exc:
        print(f"c4 match: {exc}", file=sys.stderr)
        return 2
    books = None
    if args.books.strip().lower() == "default":
        books = BookSet(SHIPPED_MOVE_BOOKS, STANDARD)
    elif paths:
        books = BookSet(paths, STANDARD)
    start = time.perf_counter()

    def progress(n, record, result):
        if not args.quiet:
            s = result.summary()
            print(f"game {n}/{args.games}: {record.winner or 'draw'} ({'A' if record.a_first else 'B'} first)"
                  f"  A {s['wins_a']} B {s['wins_b']} draws {s['draws']}"
                  f"  {time.perf_counter() - start:.0f}s", file=sys.stderr, flush=True)

    try:
        result = play_match(args.a, args.b, args.games, args.opening_plies, args.seed,
                            geometry=geometry, budget_ms=args.budget_ms, on_game=progress, tt_mb=args.tt_mb,
                            books=books)
    except InvalidSpec as exc:  # a player made for the board refuses it (e.g. a learned one past 7x6)
        print(f"c4 match: {exc}", file=sys.stderr)
        return 2
    from arena.stats import wilson

    summary = result.summary()
    summary["seconds"] = round(time.perf_counter() - start, 1)
    games = summary["games"]
    score = summary["wins_a"] + summary["draws"] / 2  # a draw counts half a win
    summary.update(win_rate_a_95=[round(v, 4) for v in wilson(summary["wins_a"], games).as_list()],
                   score_a=round(score / games, 4) if games else None,
                   score_a_95=[round(v, 4) for v in wilson(score, games).as_list()])
    summary.update(opening_plies=args.opening_plies, seed=args.seed, size=geometry.name,
                   book_entries=len(books) if books is not None else 0)
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{args.a} vs {args.b}: {summary['wins_a']} wins, {summary['wins_b']} losses, "
              f"{summary['draws']} draws in {summary['games']} games "
              f"({100 * summary['win_rate_a']:.1f}% wins for {args.a}, 95% Wilson "
              f"{100 * summary['win_rate_a_95'][0]:.1f}-{100 * summary['win_rate_a_95'][1]:.1f}); "
              f"{summary['seconds']}s")
    return 0
