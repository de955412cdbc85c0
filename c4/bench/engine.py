"""``c4 bench engine``: nodes per second of the engine's search, and the depth
it reaches from the empty board in 0.5 s and 2 s.

Nodes per second: one thread, the full evaluation and a 64 MB table, a
fixed-depth search of each of 100 fixed middle-game positions
(engine_svc.benchset), total nodes over total time. The CPU time of the
searching thread is reported beside the wall clock, because on a shared
machine the wall clock also counts other processes' turns.
"""

from __future__ import annotations

import json
import sys
import time

from c4 import argtypes

BENCH_POSITIONS = 100  # the fixed set of engine_svc.benchset the figures are quoted on


def register(sub) -> None:
    p = sub.add_parser("engine", help="engine search speed (nodes/s) and depth reached in 0.5 s / 2 s",
                       description=__doc__)
    p.add_argument("--depth", type=argtypes.int_in(1, 42), default=12,
                   help="fixed depth of the nodes/s run, 1..42 (default 12)")
    p.add_argument("--positions", type=argtypes.int_in(1, BENCH_POSITIONS, note=" (the fixed set)"),
                   default=BENCH_POSITIONS,
                   help=f"the first N of the {BENCH_POSITIONS} fixed middle-game positions (default all)")
    p.add_argument("--tt-mb", type=argtypes.table_mb, default=64.0, help="table size in MB (default 64)")
    p.add_argument("--driver", choices=("mtdf", "pvs"), default="mtdf")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def run(args) -> int:
    from connect4 import Position
    from engine_svc.benchset import middle_game_positions
    from engine_svc.search import Engine

    t0 = time.perf_counter()
    engine = Engine(tt_mb=args.tt_mb, driver=args.driver)
    engine.search(Position.parse("4453"), max_depth=6)  # loads every kernel
    warm_s = time.perf_counter() - t0
    positions = middle_game_positions(args.positions)
    nodes = 0
    wall = cpu = 0.0
    for i, pos in enumerate(positions, 1):
        w, c = time.perf_counter(), time.thread_time()
        r = engine.search(pos, max_depth=args.depth)
        cpu += time.thread_time() - c
        wall += time.perf_counter() - w
        nodes += r.nodes
        if not args.json and i % 10 == 0:
            print(f"  {i}/{len(positions)} positions, {nodes / cpu / 1e6:.2f} M nodes/s (cpu)", file=sys.stderr, flush=True)
    depths = {}
    for budget in (500, 2000):
        engine.tt.new_search()  # a timed search keeps the table: measure each from an empty one
        r = engine.search(Position(), budget_ms=budget)
        depths[budget] = r.depth
    out = {
        "nodes_per_s": round(nodes / cpu) if cpu else 0,
        "nodes_per_s_wall": round(nodes / wall) if wall else 0,
        "nodes": nodes,
        "positions": len(positions),
        "depth": args.depth,
        "driver": args.driver,
        "depth_500ms": depths[500],
        "depth_2000ms": depths[2000],
        "warmup_s": round(warm_s, 2),
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(f"engine search, {out['positions']} middle-game positions at depth {out['depth']} ({args.driver}, "
              f"{args.tt_mb:g} MB table, one thread):")
        print(f"  {out['nodes']} nodes, {out['nodes_per_s'] / 1e6:.2f} M nodes/s by thread CPU time, "
              f"{out['nodes_per_s_wall'] / 1e6:.2f} M nodes/s by wall clock")
        print(f"  depth from the empty board: {out['depth_500ms']} in 0.5 s, {out['depth_2000ms']} in 2 s")
        print(f"  (kernel load/compile {out['warmup_s']} s, not counted)")
    return 0
