"""``c4 versus PLAYER --solver-seat first|second``: a game against the perfect player."""

from __future__ import annotations

import json
import sys

from c4 import argtypes


def register(sub) -> None:
    p = sub.add_parser(
        "versus",
        help="a game against the perfect player, with the solver's verdict after every move",
        description="PLAYER plays the perfect player (the exact solver). After every move the solver says who wins "
        "with best play and at which ply; the game ends with a line such as 'theoretical win held to ply 41' or "
        "'lost the win at ply 12 (e instead of c)' and the move list. The solver books (the shipped books/ by "
        "default) answer early positions; without them (--books none) the exact solver alone is slow near the "
        "empty board: give a node budget (--solver-nodes) or start later (--from).",
    )
    p.add_argument("player", metavar="PLAYER", help="player spec, e.g. engine:2000, minimax:5, or you (type the moves)")
    p.add_argument("--solver-seat", choices=["first", "second"], required=True,
                   help="the colour the perfect player plays: first (moves first) or second")
    p.add_argument("--from", dest="start", default="", metavar="MOVES",
                   help="start from these moves (e.g. 4453 or 'd d e c'), default the empty board")
    p.add_argument("--books", default="default",
                   help="solver books for early positions: default (the shipped books/), none, or files and folders "
                   "(comma separated)")
    p.add_argument("--engine-books", default="default",
                   help="books of an in-process engine player: default (opening + corrective), none, or paths")
    p.add_argument("--solver-nodes", type=argtypes.int_in(0), default=0,
                   help="node budget of each solver call (0 = unlimited); past it the game stops, unproved")
    p.add_argument("--via-grpc", metavar="ENGINE_ADDR,SOLVER_ADDR", default=None,
                   help="use the services, e.g. 127.0.0.1:50051,127.0.0.1:50052")
    p.add_argument("--deadline-ms", type=argtypes.int_in(0), default=0,
                   help="solver service deadline per call with --via-grpc (0: the service's own)")
    p.add_argument("--seed", type=int, default=1, help="the player's seed (default 1)")
    p.add_argument("--json", dest="json_out", default=None, metavar="FILE", help="also write the result as JSON")
    p.set_defaults(run=run)


def run(args) -> int:
    from connect4 import Connect4Error, Position

    from arena.board import render, use_colour
    from arena.oracle import GrpcOracle, Oracle
    from arena.players import PlayerError, PlayerFactory, Via, check_spec
    from arena.protocols import ExactOracle, Player
    from arena.versus import play_versus

    def fail(msg: str) -> int:
        print(f"c4 versus: {msg}", file=sys.stderr)
        return 2

    try:
        via = Via.parse(args.via_grpc)
        start = Position.parse(args.start)
    except (Connect4Error, ValueError) as exc:
        return fail(str(exc))
    if start.is_over:
        return fail(f"the game after {args.start!r} is already over")
    from c4.preflight import check_game_inputs

    bad = check_game_inputs("versus", args, via)
    if bad is not None:
        return bad
    try:
        if via.engine_addr is None and args.player.strip().lower() != "you":
            check_spec(args.player)
        from connect4.bookset import load_setting

        books = load_setting(args.books)
        factory = PlayerFactory(start.geometry, via, books, engine_books=args.engine_books)
        if args.player.strip().lower() == "you":
            from arena.play import HumanPlayer

            player: Player = HumanPlayer(sys.stdin, sys.stdout, use_colour(sys.stdout))
        else:
            player = factory.make(args.player, seed=args.seed)
    except PlayerError as exc:
        return fail(str(exc))
    if via.solver_addr:
        oracle: ExactOracle = GrpcOracle(via.solver_addr, start.geometry, args.deadline_ms)
    else:
        oracle = Oracle(start.geometry, args.solver_nodes, books, solver=factory.solver())
    solver_color = 0 if args.solver_seat == "first" else 1
    colour = use_colour(sys.stdout)
    res = play_versus(player, oracle, solver_color, start, out=sys.stdout,
                      render_board=lambda pos: render(pos, colour=colour))
    factory.close()
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(res.to_json(), f, indent=1)
    return 1 if res.error else 0
