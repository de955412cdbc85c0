"""``c4 audit PLAYER --games N``: each move's regret against the exact solver."""

from __future__ import annotations

import json
import sys

from c4 import argtypes

WIDE_NODES = 2_000_000  # the default node budget per position on boards past 64 bits (8x8, 9x7 ...)


def register(sub) -> None:
    p = sub.add_parser(
        "audit",
        help="audit a player's moves against the exact solver: regret, agreement, worst moves",
        description="PLAYER plays --games games from random openings (against --opponent, default itself; the "
        "audited side alternates). Every move it makes is scored by the exact solver: regret = outcome of the best "
        "move - outcome of the move played (win 1, draw 0, loss -1); agreement = it played a best-scoring column. "
        "Positions the solver books hold (the shipped books/ by default: every position of up to 3 stones and the "
        "opening tree) are answered at once; elsewhere near the empty board the solver is slow: use "
        "--opening-plies (e.g. 12+) or --solver-nodes.",
    )
    p.add_argument("player", metavar="PLAYER")
    p.add_argument("--games", type=argtypes.int_in(1), default=10, help="games to play (default 10)")
    p.add_argument("--opponent", default=None, help="the other side (default: the player itself, both sides audited)")
    p.add_argument("--size", default="7x6", help="board WxH, 1..16 a side (default 7x6)")
    p.add_argument("--connect", type=int, default=4, help="stones in a row that win, 2..max(W, H) (default 4)")
    p.add_argument("--opening-plies", type=argtypes.int_in(0), default=12,
                   help="random plies before the game starts, below the board's cells (default 12)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--worst", type=argtypes.int_in(0), default=5,
                   help="how many of the worst moves to show with boards (default 5; 0: none)")
    p.add_argument("--books", default="default",
                   help="solver books: default (the shipped books/), none, or files and folders (comma separated)")
    p.add_argument("--engine-books", default="default",
                   help="books of an in-process engine player: default, none, or paths")
    p.add_argument("--solver-nodes", type=argtypes.int_in(0), default=None,
                   help="node budget per position (0 = unlimited; default unlimited on boards of up to 64 bits, "
                   f"{WIDE_NODES:,} past them); unproved positions are counted and left out")
    p.add_argument("--via-grpc", metavar="ENGINE_ADDR,SOLVER_ADDR", default=None)
    p.add_argument("--deadline-ms", type=argtypes.int_in(0), default=0,
                   help="solver service deadline per call with --via-grpc (0: the service's own)")
    p.add_argument("--json", dest="json_out", default=None, metavar="FILE", help="write every audited move as JSON")
    p.set_defaults(run=run)


def _board(args):
    """(geometry, books setting, node budget) or an error message: books are 7x6 books."""
    from connect4 import Geometry, InvalidGeometry

    try:
        g = Geometry.parse(args.size, args.connect)
    except InvalidGeometry as exc:
        return str(exc)
    if args.opening_plies >= g.cells:
        return f"--opening-plies {args.opening_plies} must be below the {g.cells} cells of a {g.name} board"
    books = args.books
    if not g.is_standard:
        if books.strip().lower() not in ("default", "none"):
            return "--books are 7x6 books: use --books none on another board"
        books = "none"
    nodes = args.solver_nodes if args.solver_nodes is not None else (WIDE_NODES if g.wide else 0)
    return g, books, nodes


def run(args) -> int:

    from arena.audit import report, run_audit
    from arena.board import use_colour
    from arena.oracle import GrpcOracle, Oracle
    from arena.players import PlayerError, PlayerFactory, Via, check_spec
    from arena.protocols import ExactOracle

    def fail(msg: str) -> int:
        print(f"c4 audit: {msg}", file=sys.stderr)
        return 2

    try:
        via = Via.parse(args.via_grpc)
    except ValueError as exc:
        return fail(str(exc))
    from c4.preflight import check_game_inputs

    bad = check_game_inputs("audit", args, via)
    if bad is not None:
        return bad
    board = _board(args)
    if isinstance(board, str):
        return fail(board)
    geometry, books_setting, nodes = board
    try:
        if via.engine_addr is None:
            check_spec(args.player)
            if args.opponent:
                check_spec(args.opponent)
        from connect4.bookset import load_setting

        books = load_setting(books_setting)
        engine_books = args.engine_books if geometry.is_standard else "none"
        factory = PlayerFactory(geometry, via, books, engine_books=engine_books)
        if via.solver_addr:
            oracle: ExactOracle = GrpcOracle(via.solver_addr, geometry, args.deadline_ms)
        else:
            oracle = Oracle(geometry, nodes, books, solver=factory.solver())
        res = run_audit(args.player, args.games, args.opening_plies, args.seed, oracle, factory,
                        opponent=args.opponent, progress_stream=sys.stderr)
    except (PlayerError, ValueError) as exc:
        return fail(str(exc))
    print(report(res, args.worst, colour=use_colour(sys.stdout)))
    if nodes and not via.solver_addr:
        print(f"solver budget: {nodes:,} nodes per position on {geometry.name}; a position it cannot prove within "
              "it is counted as unproved and left out, never guessed")
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"summary": res.summary(), "moves": [m.to_json() for m in res.moves]}, f, indent=1)
    factory.close()
    return 0
