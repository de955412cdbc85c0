"""``c4 bench net``: the learned players' speed on this machine.

For each runtime of the policy/value net installed here (ONNX Runtime and
numpy, side by side in one process, interleaved over ``--rounds`` rounds,
medians printed): forward passes per second at batch 1 and at ``--batch``
(CPU time of this process, so other load inflates it less than wall time),
and the milliseconds of an ``az:N`` move (``--sims``, default 800) from a few
opening positions with PUCT simulations per second. Then the DQN's forward
passes per second. ``runtime`` names the one the players use
(``C4_NET_RUNTIME``, docs/learned.md). ``--threads`` caps BLAS threads
(default 1: one core). ``--json`` prints one JSON object.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time

from c4 import argtypes

POSITIONS = ("", "4", "44", "4453", "445326", "4453267")


def register(sub) -> None:
    p = sub.add_parser("net", help="forward passes/s and PUCT simulations/s of the learned players",
                       description=__doc__)
    p.add_argument("--batch", type=argtypes.int_in(2, 4096), default=8, help="the batched size (default 8)")
    p.add_argument("--sims", type=argtypes.int_in(1, 100000), default=800, help="az simulations a move (default 800)")
    p.add_argument("--seconds", type=argtypes.float_in(0, lo_open=True), default=1.0,
                   help="CPU seconds per forward figure and round (default 1)")
    p.add_argument("--rounds", type=argtypes.int_in(1, 100), default=3, help="interleaved rounds (default 3)")
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


def _az_ms(evaluate, sims: int) -> tuple[float, float, float]:
    """(mean ms a move, max ms, simulations per second) over POSITIONS."""
    from connect4 import Position
    from engine_svc.learned import puct

    ms, done_all = [], 0
    for moves in POSITIONS:
        pos = Position.parse(moves) if moves else Position()
        t0 = time.process_time()
        _, done = puct.search(pos.current, pos.mask, pos.ply, sims, evaluate, batch=8)
        ms.append((time.process_time() - t0) * 1000)
        done_all += done
    return sum(ms) / len(ms), max(ms), done_all / (sum(ms) / 1000)


def run(args) -> int:
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(args.threads))  # read when numpy's BLAS first starts
    import numpy as np

    from connect4 import Position
    from engine_svc.learned import puct
    from engine_svc.learned.encode import planes
    from engine_svc.learned.players import PV_FILE, load_dqn, model_path
    from engine_svc.learned.runtime import chosen_runtime, make_pv, onnx_installed
    from engine_svc.learned.weights import WeightsError, read_weights

    try:
        runtime = chosen_runtime()
        meta, arrays = read_weights(model_path(PV_FILE), "pv")
        dqn = load_dqn()
    except WeightsError as exc:
        print(f"c4 bench net: {exc}", file=sys.stderr)
        return 2
    nets = {name: make_pv(meta, arrays, name) for name in ("onnxruntime", "numpy")
            if name == "numpy" or onnx_installed()}
    sample = Position.parse("4453")
    x1 = planes(sample.current, sample.mask)[None]
    xb = np.repeat(x1, args.batch, axis=0)
    rounds: dict[str, dict[str, list[float]]] = {name: {} for name in nets}
    for _ in range(args.rounds):
        for name, net in nets.items():  # A B A B: both runtimes see the same load
            figures = rounds[name]
            figures.setdefault("forward_per_s_batch1", []).append(_rate(lambda n=net: n.forward(x1), 1, args.seconds))
            figures.setdefault(f"forward_per_s_batch{args.batch}", []).append(
                _rate(lambda n=net: n.forward(xb), args.batch, args.seconds))
            mean, worst, sims = _az_ms(puct.net_evaluator(net), args.sims)
            figures.setdefault(f"az{args.sims}_ms_per_move_mean", []).append(mean)
            figures.setdefault(f"az{args.sims}_ms_per_move_max", []).append(worst)
            figures.setdefault("puct_simulations_per_s", []).append(sims)
    out: dict = {"weights": str(model_path(PV_FILE)), "meta": {k: meta[k] for k in ("channels", "blocks")},
                 "runtime": runtime, "rounds": args.rounds, "load_avg": os.getloadavg()[0]}
    for name, figures in rounds.items():
        for key, values in figures.items():
            out[f"{name}.{key}"] = statistics.median(values)
    out["dqn_forward_per_s_batch1"] = _rate(lambda: dqn.forward(x1), 1, args.seconds / 2)
    out["load_avg_end"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps({k: round(v, 1) if isinstance(v, float) else v for k, v in out.items()}))
    else:
        for k, v in out.items():
            print(f"{k:40} {v:,.1f}" if isinstance(v, float) else f"{k:40} {v}")
    return 0
