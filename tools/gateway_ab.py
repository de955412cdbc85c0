"""Two or more gateway checkouts side by side under ``c4 bench gateway``,
interleaved: one redis-server and one engine service (from ``--bench-tree``),
one gateway process per checkout (its own Redis database), and the same
benchmark client (``--bench-tree``'s ``c4 bench gateway --only MODE``) against
each in turn, the order reversed every round. One JSON line per run: moves/s,
p50 and the gateway process's CPU time per move (a figure the machine's load
moves less than wall clock).

    python tools/gateway_ab.py --tree before=/tmp/old --tree now=. --rounds 6 --seconds 8

Make the older checkout with ``git worktree add --detach /tmp/old COMMIT``.
Round 0 warms every gateway up; the closing lines give the medians of the later rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH of a checkout (twice or more)")
    ap.add_argument("--bench-tree", default=str(REPO), help="the checkout whose engine and bench client run")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--games", type=int, default=2)
    args = ap.parse_args()
    trees = dict(t.split("=", 1) for t in args.tree)
    bench = args.bench_tree
    tmp = tempfile.mkdtemp(prefix="gateway-ab-")
    procs: list[subprocess.Popen[bytes]] = []

    def spawn(argv: list[str], env: dict[str, str], tree: str, name: str) -> subprocess.Popen[bytes]:
        with open(f"{tmp}/{name}.log", "wb") as log:
            p = subprocess.Popen(argv, env={**os.environ, "PYTHONPATH": tree, **env}, cwd=tree, stdout=log,
                                 stderr=subprocess.STDOUT)
        procs.append(p)
        return p

    rows = []
    try:
        redis_port, engine_port = free_port(), free_port()
        spawn([shutil.which("redis-server") or "redis-server", "--port", str(redis_port), "--save", "",
               "--appendonly", "no", "--dir", tmp], {}, bench, "redis")
        url = f"redis://127.0.0.1:{redis_port}"
        spawn([sys.executable, "-m", "engine_svc"], {"C4_ENGINE_PORT": str(engine_port), "C4_ENGINE_METRICS_PORT": "0",
                                                     "REDIS_URL": url + "/0"}, bench, "engine")
        gateways = {}
        for i, (name, tree) in enumerate(trees.items()):
            http, bridge = free_port(), free_port()
            env = {"REDIS_URL": f"{url}/{i + 1}", "C4_GATEWAY_PORT": str(http), "C4_GATEWAY_BRIDGE_PORT": str(bridge),
                   "C4_GATEWAY_ENGINE_ADDR": f"127.0.0.1:{engine_port}", "C4_GATEWAY_LOG_LEVEL": "WARNING",
                   "C4_GATEWAY_BRIDGE_OPPONENT": "random"}
            if "creates_per_minute" in Path(tree, "gateway/settings.py").read_text():  # a checkout that knows them
                env.update(C4_GATEWAY_CREATES_PER_MINUTE="0", C4_GATEWAY_ANALYSES_PER_MINUTE="0")
            gateways[name] = (spawn([sys.executable, "-m", "gateway"], env, tree, f"gateway-{name}"), http, bridge)
        import httpx

        for name, (_p, http, _b) in gateways.items():
            deadline = time.monotonic() + 600
            while True:
                try:
                    if httpx.get(f"http://127.0.0.1:{http}/readyz", timeout=2).json().get("engine") == "ok":
                        break
                except (httpx.HTTPError, ValueError):
                    pass
                if time.monotonic() > deadline:
                    raise SystemExit(f"gateway {name} not ready; see {tmp}/gateway-{name}.log")
                time.sleep(0.5)
        names = list(gateways)
        for r in range(args.rounds):
            order = names if r % 2 == 0 else names[::-1]
            for mode in ("rest", "bridge"):
                for name in order:
                    proc, http, bridge = gateways[name]
                    load = os.getloadavg()[0]
                    before = cpu_s(proc.pid)
                    out = subprocess.run(
                        [sys.executable, "-m", "c4.main", "bench", "gateway", "--url", f"http://127.0.0.1:{http}",
                         "--bridge", f"127.0.0.1:{bridge}", "--seconds", str(args.seconds), "--games",
                         str(args.games), "--only", mode, "--json"],
                        env={**os.environ, "PYTHONPATH": bench}, cwd=bench, capture_output=True, text=True, check=True)
                    spent = cpu_s(proc.pid) - before
                    res = json.loads(out.stdout.strip().splitlines()[-1])[mode]
                    row = {"round": r, "tree": name, "mode": mode, "load": round(load, 1),
                           "moves_per_s": res["moves_per_s"], "p50_ms": res["p50_ms"],
                           "cpu_ms_per_move": round(spent * 1000 / max(1, res["moves"]), 3)}
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    by: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in rows:
        if row["round"] > 0:
            by[(row["mode"], row["tree"])].append(row)
    for (mode, name), runs in sorted(by.items()):
        print(f"{mode:6s} {name:10s} {len(runs)} runs: moves/s median {statistics.median(r['moves_per_s'] for r in runs):.0f}, "
              f"CPU ms a move median {statistics.median(r['cpu_ms_per_move'] for r in runs):.3f} "
              f"(load {min(r['load'] for r in runs)}-{max(r['load'] for r in runs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
