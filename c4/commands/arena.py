"""``c4 arena PLAYER PLAYER...``: a round robin from paired random openings."""

from __future__ import annotations

import shlex
import sys

from c4 import argtypes


def register(sub) -> None:
    p = sub.add_parser(
        "arena",
        help="round robin between players from paired random openings: scores, intervals, Elo, plots",
        description="Every pair of players plays --games games: --games/2 random openings of --opening-plies plies, "
        "each played once with each player making the first move after it. Writes games.json (raw and summary), "
        "report.md and PNG plots into --out; prints the Markdown report. Players: random, greedy, gated, "
        "minimax:D, easy, medium, hard, mcts:N, engine:MS, noisy_greedy[:P], alphabeta, expectimax, "
        "clairvoyant (bound to each opponent) or clairvoyant:SPEC, search, solver, perfect[:NODES].",
    )
    p.add_argument("players", nargs="+", metavar="PLAYER", help="player specs, at least two")
    p.add_argument("--games", type=argtypes.even_games, default=20,
                   help="games per pair, even: each opening is played from both seats (default 20)")
    p.add_argument("--opening-plies", type=argtypes.int_in(0), default=4,
                   help="random plies before the players take over, fewer than the board's cells (default 4)")
    p.add_argument("--seed", type=int, default=1, help="seed of the openings and the players (default 1)")
    p.add_argument("--workers", type=argtypes.int_in(1, 256), default=1, help="worker processes (default 1)")
    p.add_argument("--via-grpc", metavar="ENGINE_ADDR,SOLVER_ADDR", default=None,
                   help="play through the services instead of in-process, e.g. 127.0.0.1:50051,127.0.0.1:50052")
    p.add_argument("--books", default="default",
                   help="books of the in-process perfect player: default (the shipped books/), none, or paths (comma separated)")
    p.add_argument("--gauntlet", action="store_true",
                   help="the first player plays each of the others (no games among the others)")
    p.add_argument("--engine-books", default="default",
                   help="books of in-process engine players: default (opening + corrective), none, or paths (comma separated)")
    p.add_argument("--size", default="7x6", help="board WxH (default 7x6)")
    p.add_argument("--connect", type=int, default=4, help="stones in a row that win (default 4)")
    p.add_argument("--elo-prior", type=argtypes.float_in(0, lo_open=True), default=1.0,
                   help="virtual draws per pair in the Elo fit, more than 0 (default 1)")
    p.add_argument("--out", default="arena-out", help="folder for games.json, report.md and plots (default arena-out)")
    p.set_defaults(run=run)


def run(args) -> int:
    from connect4 import Connect4Error, Geometry

    from arena.players import PlayerError, Via, check_pairings, check_spec
    from arena.report import write_all
    from arena.runner import ArenaConfig, ArenaError, run_arena

    def fail(msg: str) -> int:
        print(f"c4 arena: {msg}", file=sys.stderr)
        return 2

    try:
        geometry = Geometry.parse(args.size, args.connect)
        via = Via.parse(args.via_grpc)
    except (Connect4Error, ValueError) as exc:
        return fail(str(exc))
    if len(args.players) < 2:
        return fail("give at least two players")
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:  # the plots come last: say so before the games
        return fail("the report's plots need matplotlib: pip install 'connect4-stack[reports]' (make installs it)")
    if len(set(args.players)) != len(args.players):
        return fail("every player may appear once")
    if args.opening_plies >= geometry.cells:
        return fail(f"--opening-plies must be in 0..{geometry.cells - 1} on a {geometry.name} board, "
                    f"got {args.opening_plies}")
    if via.in_process:
        for spec in args.players:
            try:
                check_spec(spec, geometry)
            except PlayerError as exc:
                return fail(f"player {spec!r}: {exc}")
    try:
        check_pairings(list(args.players), args.gauntlet)
    except PlayerError as exc:
        return fail(str(exc))
    from c4.bookpaths import BookPathError, explicit_book_paths
    from c4.outputs import OutputError, prepare_dir
    from c4.reach import Unreachable, require_services

    try:
        explicit_book_paths(args.books, "--books")
        explicit_book_paths(args.engine_books, "--engine-books")
    except BookPathError as exc:
        return fail(str(exc))
    try:
        prepare_dir(args.out)
    except OutputError as exc:
        return fail(f"--out: {exc}")
    try:
        require_services(via.engine_addr, via.solver_addr)
    except Unreachable as exc:
        print(f"c4 arena: {exc}", file=sys.stderr)
        return 1
    cfg = ArenaConfig(list(args.players), args.games, args.opening_plies, args.seed, args.workers, via, geometry,
                      args.books, args.engine_books, args.gauntlet)
    command = "c4 arena " + " ".join(shlex.quote(a) for a in sys.argv[2:]) if sys.argv[1:2] == ["arena"] else None
    try:
        raw = run_arena(cfg)
    except (ValueError, PlayerError, ArenaError) as exc:
        return fail(str(exc))
    if command is None:
        command = _rebuild(args)
    summary = write_all(raw, args.out, command, args.elo_prior)
    from arena.report import markdown

    print(markdown(raw, summary, command))
    print(f"written: {args.out}/games.json, report.md, scores.png, pairs.png, elo.png", file=sys.stderr)
    return 0


def _rebuild(args) -> str:
    parts = ["c4", "arena", *args.players, "--games", str(args.games), "--opening-plies", str(args.opening_plies),
             "--seed", str(args.seed)]
    if args.gauntlet:
        parts.append("--gauntlet")
    if args.workers != 1:
        parts += ["--workers", str(args.workers)]
    if args.via_grpc:
        parts += ["--via-grpc", args.via_grpc]
    if args.books != "default":
        parts += ["--books", args.books]
    if args.engine_books != "default":
        parts += ["--engine-books", args.engine_books]
    if args.size != "7x6" or args.connect != 4:
        parts += ["--size", args.size, "--connect", str(args.connect)]
    parts += ["--out", args.out]
    return " ".join(shlex.quote(p) for p in parts)
