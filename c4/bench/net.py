"""``c4 bench net``: the learned players' speed on this machine.

Prints forward passes per second of the shipped policy/value net at batch 1
and at ``--batch`` (CPU time of this process, so other load inflates it
less than wall time), PUCT simulations per second and the milliseconds of an
``az:N`` move (``--sims``, default 800) from a few opening positions, and the
DQN's forward passes per second. ``--threads`` caps BLAS threads (default 1:
one core). ``--json`` prints one JSON object.
"""

from __future__ import annotations

import json
import os
import sys
import time

from c4 import argtypes

POSITIONS = ("", "4", "44", "4453", "445326", "4453267")


def register(sub) -> None:
    p = sub.add_parser("net", help="forward passes/s and PUCT simulations/s of the learned players",
                       description=__doc__)
    p.add_argument("--batch", type=argtypes.int_in(2, 4096), default=8, help="the batched size (default 8)")
    p.add_argument("--sims", type=argtypes.int_in(1, 100000), default=800, help="az simulations a move (default 800)")
    p.add_argument("--seconds", type=argtypes.float_in(0, lo_open=True), default=2.0,
                   help="CPU seconds per forward figure (default 2)")
    p.add_argument("--threads", type=argtypes.int_in(1, 64), default=1, help="BLAS threads (default 1)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def _rate(fn, items: int, seconds: float) -> float:
    fn()  # warm
    calls, t0 = 0, time.process_time()
    while time.process_time() - t0 < seconds:
        fn()
        calls += 1
    return calls * items / (time.process_time() - t0)


def run(args) -> int:
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(args.threads))  # read when numpy's BLAS first starts
    import numpy as np

    from connect4 import Position
    from engine_svc.learned import puct
    from engine_svc.learned.encode import planes
    from engine_svc.learned.players import load_dqn, load_pv, model_path, PV_FILE
    from engine_svc.learned.weights import WeightsError

    try:
        net = load_pv()
        dqn = load_dqn()
    except WeightsError as exc:
        print(f"c4 bench net: {exc}", file=sys.stderr)
        return 2
    sample = Position.parse("4453")
    x1 = planes(sample.current, sample.mask)[None]
    xb = np.repeat(x1, args.batch, axis=0)
    out = {"weights": str(model_path(PV_FILE)), "meta": {k: net.meta[k] for k in ("channels", "blocks")},
           "load_avg": os.getloadavg()[0]}
    out["forward_per_s_batch1"] = _rate(lambda: net.forward(x1), 1, args.seconds)
    out[f"forward_per_s_batch{args.batch}"] = _rate(lambda: net.forward(xb), args.batch, args.seconds)
    out["dqn_forward_per_s_batch1"] = _rate(lambda: dqn.forward(x1), 1, args.seconds / 2)
    evaluate = puct.net_evaluator(net)
    ms, sims = [], 0
    for moves in POSITIONS:
        pos = Position.parse(moves) if moves else Position()
        t0 = time.process_time()
        _, done = puct.search(pos.current, pos.mask, pos.ply, args.sims, evaluate, batch=8)
        ms.append((time.process_time() - t0) * 1000)
        sims += done
    out[f"az{args.sims}_ms_per_move_mean"] = sum(ms) / len(ms)
    out[f"az{args.sims}_ms_per_move_max"] = max(ms)
    out["puct_simulations_per_s"] = sims / (sum(ms) / 1000)
    out["load_avg_end"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps({k: round(v, 1) if isinstance(v, float) else v for k, v in out.items()}))
    else:
        for k, v in out.items():
            print(f"{k:32} {v:,.1f}" if isinstance(v, float) else f"{k:32} {v}")
    return 0
