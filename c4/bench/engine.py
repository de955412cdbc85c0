"""``c4 bench engine``: nodes per second of the engine's search, and the depth
it reaches from the empty board in 0.5 s and 2 s.

Nodes per second: one thread, the full evaluation and a 64 MB table, a
fixed-depth search of each of 100 fixed middle-game positions
(engine_svc.benchset), total nodes over total time. The CPU time of the
searching thread is reported beside the wall clock, because on a shared
machine the wall clock also counts other processes' turns.

``--size 8x8`` (any board, e.g. 16x16; boards past 64 bits run the
multi-word search): the same figures on that board's own fixed positions
(the same seed), and the depth reached from its empty board in 1 s.
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
    p.add_argument("--size", default="7x6", help="board WxH (default 7x6; up to 16x16, e.g. 8x8)")
    p.add_argument("--connect", type=int, default=4, help="line length (default 4)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def run(args) -> int:
    from connect4 import Connect4Error, Geometry, Position
    from engine_svc.benchset import middle_game_positions
    from engine_svc.search import Engine

    try:
        g = Geometry.parse(args.size, args.connect)
    except Connect4Error as exc:
        print(f"c4 bench engine: {exc}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    engine = Engine(g, tt_mb=args.tt_mb, driver=args.driver)
    engine.search(Position.from_moves([3, 3, 4, 2], g) if g.width >= 5 else Position(g), max_depth=6)  # loads every kernel
    warm_s = time.perf_counter() - t0
    positions = middle_game_positions(args.positions, geometry=g)
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
    for budget in (500, 2000) if g.is_standard else (1000,):
        engine.tt.new_search()  # a timed search keeps the table: measure each from an empty one
        r = engine.search(Position(g), budget_ms=budget)
        depths[budget] = r.depth
    out = {
        "nodes_per_s": round(nodes / cpu) if cpu else 0,
        "nodes_per_s_wall": round(nodes / wall) if wall else 0,
        "nodes": nodes,
        "positions": len(positions),
        "depth": args.depth,
        "driver": args.driver,
        **{f"depth_{budget}ms": d for budget, d in depths.items()},
        "warmup_s": round(warm_s, 2),
    }
    if not g.is_standard:
        out["size"] = g.name
    if args.json:
        print(json.dumps(out))
    else:
        board = "" if g.is_standard else f" on {g.name}"
        print(f"engine search{board}, {out['positions']} middle-game positions at depth {out['depth']} ({args.driver}, "
              f"{args.tt_mb:g} MB table, one thread):")
        print(f"  {out['nodes']} nodes, {out['nodes_per_s'] / 1e6:.2f} M nodes/s by thread CPU time, "
              f"{out['nodes_per_s_wall'] / 1e6:.2f} M nodes/s by wall clock")
        print("  depth from the empty board: " + ", ".join(f"{d} in {b / 1000:g} s" for b, d in depths.items()))
        print(f"  (kernel load/compile {out['warmup_s']} s, not counted)")
    return 0
