"""The perfect player with a deadline, measured over games against the ladder.

    c4 bench perfect [--games 20] [--deadline-ms 1000]
        [--unproved-out FILE] [--slow-out FILE] [--moves-out FILE] [--address HOST:PORT] [--json]

Plays games from the empty board: the perfect player (BestMove through the
gRPC solver service, with a deadline) against ladder players
(``engine_svc.players``), each opponent once in each seat. Every perfect
move is one BestMove call with a 1 s deadline; the search is deterministic
for a given table, so a move proved in at most 100 ms would also have been
proved with a 100 ms deadline. A move not proved within 1 s is played by the
engine instead (as the gateway does) and its position is listed in
``--unproved-out`` (``--slow-out`` adds the moves proved in over 100 ms): the
input of ``python -m books.analysis_gen --positions``, the deeper book that
closes the gap. ``--moves-out`` writes every perfect move as a JSON line.

Without ``--address`` a service is started in this process with the settings
of the environment (C4_SOLVER_*: the shipped books, the in-process cache).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections import Counter, defaultdict

import grpc

from c4proto.connect4.v1 import common_pb2, solver_pb2, solver_pb2_grpc
from connect4 import STANDARD, Position
from connect4.notation import format_moves

log = logging.getLogger("c4.bench.perfect")

OPPONENTS = ["random", "greedy", "gated", "easy", "medium", "hard", "minimax:6", "mcts:2000",
             "engine:100", "engine:300"]
FALLBACK = "engine:300"


def play_games(stub, games: int, deadline_ms: int, seed: int = 0, progress=None) -> dict:
    from engine_svc.players import make_player

    moves_log = []  # one row per perfect-player move
    results: Counter[str] = Counter()
    specs = [OPPONENTS[i % len(OPPONENTS)] for i in range(games)]
    for g_index, spec in enumerate(specs):
        perfect_first = g_index % 2 == 0 if games < 2 * len(OPPONENTS) else g_index < games // 2
        opponent = make_player(spec, STANDARD, seed + g_index)
        fallback = make_player(FALLBACK, STANDARD, seed + g_index)
        pos = Position(STANDARD)
        while not pos.is_over:
            perfect_to_move = (pos.to_move == 0) == perfect_first
            if perfect_to_move:
                req = solver_pb2.BestMoveRequest(
                    position=common_pb2.Position(moves=[c + 1 for c in pos.moves]), deadline_ms=deadline_ms)
                t0 = time.perf_counter()
                r = stub.BestMove(req, timeout=deadline_ms / 1000.0 + 10)
                ms = (time.perf_counter() - t0) * 1000.0
                row = {"game": g_index, "seat": "first" if perfect_first else "second", "opponent": spec,
                       "ply": pos.ply, "moves": format_moves(pos.moves), "ms": round(ms, 2),
                       "proven": r.proven, "source": r.source if r.proven else "unproved",
                       "score": r.score if r.proven else None}
                moves_log.append(row)
                col = r.column - 1 if r.proven else fallback.choose(pos).column
            else:
                col = opponent.choose(pos).column
            pos.play(col)
        outcome = "draw" if pos.is_draw else ("perfect" if (pos.winner == 0) == perfect_first else "opponent")
        results[outcome] += 1
        if progress:
            mine = [m for m in moves_log if m["game"] == g_index]
            progress(f"game {g_index + 1}/{games} vs {spec} ({'first' if perfect_first else 'second'}): "
                     f"{outcome}, {sum(m['proven'] for m in mine)}/{len(mine)} moves proved in {deadline_ms} ms")
    return {"moves": moves_log, "results": dict(results), "specs": specs}


def summarize(run: dict) -> dict:
    moves = run["moves"]
    n = len(moves)
    in100 = sum(1 for m in moves if m["proven"] and m["ms"] <= 100.0)
    in1s = sum(1 for m in moves if m["proven"] and m["ms"] <= 1000.0)
    by_ply: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for m in moves:
        band = f"{(m['ply'] // 4) * 4:02d}-{(m['ply'] // 4) * 4 + 3:02d}"
        by_ply[band][0] += 1
        by_ply[band][1] += m["proven"] and m["ms"] <= 100.0
        by_ply[band][2] += m["proven"]
    return {
        "games": len(run["specs"]),
        "results": run["results"],
        "perfect_moves": n,
        "proved_within_100ms": in100,
        "proved_within_1s": in1s,
        "share_100ms": round(in100 / n, 4) if n else 0.0,
        "share_1s": round(in1s / n, 4) if n else 0.0,
        "sources": dict(Counter(m["source"] for m in moves)),
        "by_ply": {k: {"moves": v[0], "within_100ms": v[1], "within_1s": v[2]} for k, v in sorted(by_ply.items())},
        "by_seat": {seat: _shares([m for m in moves if m["seat"] == seat]) for seat in ("first", "second")},
        # Stones on the board -> moves not proved within 100 ms (of them not within 1 s), by seat.
        "missed_by_stones": {seat: {str(ply): [sum(1 for m in ms if not _within(m, 100.0)),
                                               sum(1 for m in ms if not _within(m, 1000.0))]
                                    for ply, ms in sorted(_by_ply(moves, seat).items())
                                    if any(not _within(m, 100.0) for m in ms)}
                             for seat in ("first", "second")},
        "slowest_proved_ply": max((m["ply"] for m in moves if m["proven"] and m["ms"] > 100), default=None),
    }


def _within(move: dict, ms: float) -> bool:
    return move["proven"] and move["ms"] <= ms


def _shares(moves: list[dict]) -> dict:
    n = len(moves)
    return {"moves": n, "within_100ms": sum(_within(m, 100.0) for m in moves),
            "within_1s": sum(_within(m, 1000.0) for m in moves)}


def _by_ply(moves: list[dict], seat: str) -> dict[int, list[dict]]:
    out = defaultdict(list)
    for m in moves:
        if m["seat"] == seat:
            out[m["ply"]].append(m)
    return out


def register(sub) -> None:
    p = sub.add_parser("perfect", help="the perfect player with a deadline against the ladder",
                       description=__doc__.split("\n\n")[0])
    add_arguments(p)
    p.set_defaults(run=run)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--deadline-ms", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--address", help="a running solver service (default: start one here)")
    parser.add_argument("--unproved-out", help="write the positions not proved within the deadline here")
    parser.add_argument("--slow-out", help="write the positions not proved within 100 ms here")
    parser.add_argument("--moves-out", help="write every perfect move here, one JSON object a line")
    parser.add_argument("--json", action="store_true")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="c4 bench perfect", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


def run(args: argparse.Namespace) -> int:

    from servicekit.logs import configure_logging

    configure_logging("perfect_bench", "WARNING")
    server = None
    address = args.address
    if address is None:
        from solver_svc.server import start_server
        from solver_svc.settings import SolverSettings

        settings = SolverSettings(port=0, metrics_port=0)
        server, port, _ = start_server(settings)
        address = f"127.0.0.1:{port}"
    try:
        with grpc.insecure_channel(address) as channel:
            stub = solver_pb2_grpc.SolverServiceStub(channel)
            run = play_games(stub, args.games, args.deadline_ms, args.seed,
                             lambda msg: print(msg, file=sys.stderr, flush=True))
    finally:
        if server is not None:
            server.stop(0)
    summary = summarize(run)
    if args.unproved_out:
        with open(args.unproved_out, "w") as f:
            for m in run["moves"]:
                if not m["proven"]:
                    f.write(f"{m['moves']}\n")
    if args.slow_out:
        with open(args.slow_out, "w") as f:
            for m in run["moves"]:
                if not _within(m, 100.0):
                    f.write(f"{m['moves']}\n")
    if args.moves_out:
        with open(args.moves_out, "w") as f:
            for m in run["moves"]:
                f.write(json.dumps(m) + "\n")
    if args.json:
        print(json.dumps(summary))
    else:
        for k, v in summary.items():
            print(f"{k:22} {json.dumps(v) if isinstance(v, (dict, list)) else v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
