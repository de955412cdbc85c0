"""``c4 values``: solve the empty board of each size (John Tromp's table).

``+`` the first player wins, ``=`` draw, ``-`` the second player wins. Each
row is printed when its size is solved, with the positions searched and time.
Boards past 64 bits (width*(height+1) > 64) are solved by the wide solver,
slower: there each size gets at most ``--nodes`` positions (WIDE_NODES by
default; 0 = no limit), and a size not proved within them is said so on its
row (value ``?``, exit status 1), never guessed.
"""

from __future__ import annotations

import sys
import time

from c4 import argtypes
from connect4 import Geometry, Position
from connect4.errors import Connect4Error

WIDE_NODES = 100_000_000  # the default node limit per size past 64 bits (minutes, not for ever)


def register(sub) -> None:
    p = sub.add_parser("values", help="solve the empty board for board sizes (+ = -)", description=__doc__)
    p.add_argument("sizes", nargs="+", help="board sizes like 4x4 5x4 7x6")
    p.add_argument("--connect", type=int, default=4, metavar="K", help="line length that wins (default 4)")
    p.add_argument("--strong", action="store_true", help="also the exact score (slower than win/draw/loss)")
    p.add_argument("--tt-log2", type=argtypes.tt_log2, default=None, metavar="N",
                  help="table of 2**N entries, N in 18..32 (default 23)")
    p.add_argument("--nodes", type=argtypes.int_in(0), default=None, metavar="N",
                   help=f"node limit per size, 0 = none (default: none up to 64 bits, {WIDE_NODES:,} past them); "
                        "a value not proved within it is reported, never guessed")
    p.set_defaults(run=run)


def symbol(score: int) -> str:
    return "+" if score > 0 else "-" if score < 0 else "="


def run(args) -> int:
    from solver_svc.solver import BudgetExceeded
    from solver_svc.wide_board import exact_solver

    try:
        geometries = [Geometry.parse(size, args.connect) for size in args.sizes]
    except Connect4Error as exc:
        print(f"c4 values: {exc}", file=sys.stderr)
        return 2
    header = f"{'size':>6} {'K':>2} {'value':>5} {'score':>5} {'nodes':>14} {'seconds':>9}"
    print(header, flush=True)
    unproved = 0
    for g in geometries:
        nodes = args.nodes if args.nodes is not None else (WIDE_NODES if g.wide else 0)
        t0 = time.perf_counter()
        try:
            result = exact_solver(g, args.tt_log2).solve(Position(g), weak=not args.strong, node_budget=nodes)
        except BudgetExceeded as exc:
            unproved += 1
            print(f"{g.width}x{g.height:<3} {g.k:>2} {'?':>5} {'':>5} {exc.nodes:>14,} {time.perf_counter() - t0:>9.2f}"
                  f"  not proved within {nodes:,} nodes", flush=True)
            continue
        seconds = time.perf_counter() - t0
        score = str(result.score) if args.strong else ""
        print(f"{g.width}x{g.height:<3} {g.k:>2} {symbol(result.score):>5} {score:>5} {result.nodes:>14,} {seconds:>9.2f}", flush=True)
    return 1 if unproved else 0
