"""``c4 bench threads``: one position solved on 1, 2, ... threads, side by side.

Each round solves every position once with each thread count, interleaved
(position A on 1 thread, A on 2, B on 1, B on 2, ...), each from a fresh
table (``Solver.reset()``), strong unless ``--weak``. Printed per position
and thread count: the score, the nodes of all threads together, wall and
process CPU seconds (medians over the rounds) and the wall-time speed-up
over the first thread count. Wall time is what the parallel solve buys;
it counts waits for a core on a loaded machine, so run it on an idle one.
"""

from __future__ import annotations

import json
import statistics
import sys
import time

from c4 import argtypes

DEFAULT_MOVES = ("13712", "3246313")  # the first two lines of Pons' Test_L1_R3: 50 M and 4.4 M nodes


def register(sub) -> None:
    p = sub.add_parser("threads", help="one position solved on several threads (Solver.solve(threads=N))",
                       description=__doc__)
    p.add_argument("--moves", action="append", metavar="MOVES",
                   help="a position as 1-based moves ('' or 'start': the empty board); repeatable "
                        f"(default {' and '.join(DEFAULT_MOVES)})")
    p.add_argument("--threads", type=argtypes.int_list(1, 64), default=[1, 2], metavar="N,M",
                   help="thread counts to compare (default 1,2)")
    p.add_argument("--rounds", type=argtypes.int_in(1), default=1, help="rounds over the positions (default 1)")
    p.add_argument("--weak", action="store_true", help="win/draw/loss only")
    p.add_argument("--tt-log2", type=argtypes.tt_log2, default=None, metavar="N",
                   help="table of 2**N entries, N in 18..32 (default 23)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def run(args) -> int:
    from connect4 import Position
    from connect4.errors import Connect4Error
    from solver_svc.solver import Solver

    texts = args.moves or list(DEFAULT_MOVES)
    try:
        positions = [Position.parse("" if t.strip().lower() == "start" else t) for t in texts]
        for text, pos in zip(texts, positions, strict=True):
            if pos.is_over:
                raise Connect4Error(f"the game is over after {text!r}: there is nothing to solve")
    except Connect4Error as exc:
        print(f"c4 bench threads: --moves: {exc}", file=sys.stderr)
        return 2
    solver = Solver(tt_log2=args.tt_log2)
    solver.prefault()
    for n in args.threads:  # loads (or compiles) the kernels
        solver.solve(Position.parse("52753311433677442422121"), threads=n)
    runs: dict[tuple[int, int], list[tuple[int, int, float, float]]] = {}
    for r in range(args.rounds):
        for i, pos in enumerate(positions):
            for n in args.threads:
                solver.reset()
                wall, cpu = time.perf_counter(), time.process_time()
                res = solver.solve(pos, weak=args.weak, threads=n)
                row = (res.score, res.nodes, time.perf_counter() - wall, time.process_time() - cpu)
                runs.setdefault((i, n), []).append(row)
                print(f"round {r + 1}: {texts[i] or 'start'} on {n} thread(s): score {row[0]}, {row[1]:,} nodes, "
                      f"{row[2]:.2f} s wall, {row[3]:.2f} s CPU", file=sys.stderr, flush=True)
    figures = []
    for i, text in enumerate(texts):
        base = None
        for n in args.threads:
            rows = runs[(i, n)]
            wall = statistics.median(x[2] for x in rows)
            base = wall if base is None else base
            figures.append({"moves": text or "start", "threads": n, "score": rows[0][0],
                            "scores_agree": len({x[0] for x in runs[(i, args.threads[0])] + rows}) == 1,
                            "nodes": int(statistics.median(x[1] for x in rows)), "wall_s": round(wall, 6),
                            "cpu_s": round(statistics.median(x[3] for x in rows), 6),
                            "speedup": round(base / wall, 2) if wall > 0 else None})
    if args.json:
        print(json.dumps({"weak": args.weak, "rounds": args.rounds, "positions": figures}))
    else:
        print(f"{'position':<24} {'threads':>7} {'score':>5} {'nodes':>14} {'wall s':>9} {'CPU s':>9} {'speed-up':>8}")
        for f in figures:
            print(f"{f['moves']:<24} {f['threads']:>7} {f['score']:>5} {f['nodes']:>14,} {f['wall_s']:>9.2f} "
                  f"{f['cpu_s']:>9.2f} {f['speedup']:>8}")
    if not all(f["scores_agree"] for f in figures):
        print("c4 bench threads: the thread counts disagree on a score", file=sys.stderr)
        return 1
    return 0
