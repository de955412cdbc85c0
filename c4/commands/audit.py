"""``c4 audit PLAYER --games N``: each move's regret against the exact solver."""

from __future__ import annotations

import json
import sys

from c4 import argtypes


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
    p.add_argument("--opening-plies", type=argtypes.int_in(0, 41), default=12,
                   help="random plies before the game starts, 0..41 (default 12)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--worst", type=argtypes.int_in(0), default=5,
                   help="how many of the worst moves to show with boards (default 5; 0: none)")
    p.add_argument("--books", default="default",
                   help="solver books: default (the shipped books/), none, or files and folders (comma separated)")
    p.add_argument("--engine-books", default="default",
                   help="books of an in-process engine player: default, none, or paths")
    p.add_argument("--solver-nodes", type=argtypes.int_in(0), default=0,
                   help="node budget per position (0 = unlimited); unproved positions are counted and left out")
    p.add_argument("--via-grpc", metavar="ENGINE_ADDR,SOLVER_ADDR", default=None)
    p.add_argument("--deadline-ms", type=argtypes.int_in(0), default=0,
                   help="solver service deadline per call with --via-grpc (0: the service's own)")
    p.add_argument("--json", dest="json_out", default=None, metavar="FILE", help="write every audited move as JSON")
    p.set_defaults(run=run)


def run(args) -> int:
    from connect4 import STANDARD

    from arena.audit import report, run_audit
    from arena.board import use_colour
    from arena.oracle import GrpcOracle, Oracle
    from arena.players import PlayerError, PlayerFactory, Via, check_spec

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
    try:
        if via.engine_addr is None:
            check_spec(args.player)
            if args.opponent:
                check_spec(args.opponent)
        from connect4.bookset import load_setting

        books = load_setting(args.books)
        factory = PlayerFactory(STANDARD, via, books, engine_books=args.engine_books)
        if via.solver_addr:
            oracle: GrpcOracle | Oracle = GrpcOracle(via.solver_addr, STANDARD, args.deadline_ms)
        else:
            oracle = Oracle(STANDARD, args.solver_nodes, books, solver=factory.solver())
        res = run_audit(args.player, args.games, args.opening_plies, args.seed, oracle, factory,
                        opponent=args.opponent, progress_stream=sys.stderr)
    except (PlayerError, ValueError) as exc:
        return fail(str(exc))
    print(report(res, args.worst, colour=use_colour(sys.stdout)))
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"summary": res.summary(), "moves": [m.to_json() for m in res.moves]}, f, indent=1)
    factory.close()
    return 0
