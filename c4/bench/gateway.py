"""``c4 bench gateway``: games against ``random`` through the gateway's REST API
and through the JSON socket bridge, N at once.

Every request is one human move and the opponent's answer (HTTP or TCP,
Redis compare-and-sets, one gRPC call to the engine service), so the round
trip latency is what a client sees. ``moves_per_s`` counts every move played
on the boards (the client's and the opponent's); ``requests_per_s`` counts
round trips. ``--json`` prints one object with ``moves_per_s``, ``p50_ms`` and
``p99_ms`` of the REST run at the top level, and both runs in full.

By default it measures a running gateway (``--url``, ``--bridge``); ``--start``
starts its own redis-server, engine service and gateway on free ports first.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from c4 import argtypes
from servicekit.redis_binary import require_redis_server

REPO = Path(__file__).resolve().parents[2]


def register(sub) -> None:
    p = sub.add_parser("gateway", help="moves per second and latency through REST and the bridge",
                       description=__doc__)
    p.add_argument("--url", default="http://127.0.0.1:8000", help="gateway HTTP address")
    p.add_argument("--bridge", default="127.0.0.1:4444", help="gateway bridge address")
    p.add_argument("--games", type=argtypes.int_in(1, 1000), default=2, help="games played at once (default %(default)s)")
    p.add_argument("--seconds", type=argtypes.float_in(0, lo_open=True), default=10.0, help="measured time per run (default %(default)s)")
    p.add_argument("--opponent", default="random", help="opponent spec (default %(default)s)")
    p.add_argument("--only", choices=("rest", "bridge"), help="run one of the two")
    p.add_argument("--start", action="store_true", help="start redis-server, engine service and gateway first")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def _pct(sorted_ms: list[float], q: float) -> float:
    if not sorted_ms:
        return 0.0
    return sorted_ms[min(len(sorted_ms) - 1, int(q * len(sorted_ms)))]


def _legal(rows: list[str], rng: random.Random) -> int:
    return rng.choice([c + 1 for c, cell in enumerate(rows[0]) if cell == "."])


class Stats:
    def __init__(self):
        self.lat_ms: list[float] = []
        self.moves = 0
        self.errors = 0

    def summary(self, seconds: float) -> dict:
        lat = sorted(self.lat_ms)
        return {"moves_per_s": round(self.moves / seconds, 1), "requests_per_s": round(len(lat) / seconds, 1),
                "p50_ms": round(_pct(lat, 0.50), 3), "p99_ms": round(_pct(lat, 0.99), 3),
                "requests": len(lat), "moves": self.moves, "errors": self.errors, "seconds": round(seconds, 2)}


class HttpConn:
    """A minimal keep-alive HTTP/1.1 JSON client: the benchmark measures the
    gateway, not a client library (httpx costs about as much CPU per request as
    the gateway on this machine)."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader  # set by open()
        self.writer: asyncio.StreamWriter

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def request(self, method: str, path: str, body: dict | None = None,
                      headers: dict | None = None) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else b""
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}", f"Content-Length: {len(data)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        for k, v in (headers or {}).items():
            head.append(f"{k}: {v}")
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        payload = await self.reader.readexactly(length)
        return status, json.loads(payload) if payload else {}

    def close(self) -> None:
        if self.writer:
            self.writer.close()


async def _rest_worker(url: str, opponent: str, stop_at: float, stats: Stats, seed: int, measure_from: float):
    rng = random.Random(seed)
    host_port = url.split("://", 1)[1].rstrip("/")
    host, port = host_port.rsplit(":", 1)
    conn = HttpConn(host, int(port))
    await conn.open()
    state = None
    try:
        while time.monotonic() < stop_at:
            if state is None or state["status"] == "over":
                _, created = await conn.request("POST", "/api/v1/games", {"opponent": opponent})
                state, headers = created["state"], {"X-Player-Token": created["token"]}
                path = f"/api/v1/games/{state['id']}/moves"
            col = _legal(state["rows"], rng)
            t0 = time.perf_counter()
            status, new = await conn.request("POST", path, {"column": col}, headers)
            dt = (time.perf_counter() - t0) * 1000
            if status != 200:
                stats.errors += 1
                state = None
                continue
            if time.monotonic() >= measure_from:
                stats.lat_ms.append(dt)
                stats.moves += new["ply"] - state["ply"]
            state = new
    finally:
        conn.close()


async def _bridge_worker(host: str, port: int, opponent: str, stop_at: float, stats: Stats, seed: int,
                         measure_from: float):
    rng = random.Random(seed)
    reader, writer = await asyncio.open_connection(host, port)

    async def ask(msg: dict) -> dict:
        writer.write(json.dumps(msg).encode() + b"\n")
        await writer.drain()
        return json.loads(await reader.readline())

    state = await ask({"cmd": "new", "engine_starts": False, "opponent": opponent, "table": False})
    while time.monotonic() < stop_at:
        if isinstance(state.get("status"), dict) or state.get("status") == "draw" or "error" in state:
            state = await ask({"cmd": "new", "engine_starts": False, "opponent": opponent, "table": False})
            continue
        col = _legal(state["rows"], rng)
        t0 = time.perf_counter()
        new = await ask({"cmd": "move", "col": col})
        dt = (time.perf_counter() - t0) * 1000
        if "error" in new:
            stats.errors += 1
            state = await ask({"cmd": "new", "engine_starts": False, "opponent": opponent, "table": False})
            continue
        if time.monotonic() >= measure_from:
            stats.lat_ms.append(dt)
            stats.moves += len(new["history"]) - len(state["history"])
        state = new
    writer.close()


async def _run_rest(args) -> dict:
    stats = Stats()
    warm = 1.0
    start = time.monotonic()
    stop_at = start + warm + args.seconds
    await asyncio.gather(*(_rest_worker(args.url, args.opponent, stop_at, stats, i, start + warm)
                           for i in range(args.games)))
    return stats.summary(time.monotonic() - start - warm)


async def _run_bridge(args) -> dict:
    host, port = args.bridge.rsplit(":", 1)
    stats = Stats()
    warm = 1.0
    start = time.monotonic()
    stop_at = start + warm + args.seconds
    await asyncio.gather(*(_bridge_worker(host, int(port), args.opponent, stop_at, stats, 1000 + i, start + warm)
                           for i in range(args.games)))
    return stats.summary(time.monotonic() - start - warm)


# -- --start: a private stack on free ports -------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(check, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except Exception:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{what} did not start in {timeout}s")


class Stack:
    def __init__(self, opponent: str):
        self.procs: list[subprocess.Popen] = []
        self.tmp = tempfile.mkdtemp(prefix="c4-bench-gw-")

    def _spawn(self, args, env) -> subprocess.Popen:
        log = open(os.path.join(self.tmp, f"{len(self.procs)}.log"), "wb")  # noqa: SIM115 (held open past this block)
        p = subprocess.Popen(args, env={**os.environ, "PYTHONPATH": str(REPO), **env}, cwd=REPO,
                             stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(p)
        return p

    def start(self, args) -> None:
        import grpc
        import httpx
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        redis_port, engine_port, http_port, bridge_port = (_free_port() for _ in range(4))
        self._spawn([require_redis_server(), "--port", str(redis_port), "--save", "",
                     "--appendonly", "no", "--dir", self.tmp], {})
        redis_url = f"redis://127.0.0.1:{redis_port}/0"
        self._spawn([sys.executable, "-m", "engine_svc"], {"C4_ENGINE_PORT": str(engine_port),
                                                           "C4_ENGINE_METRICS_PORT": "0", "REDIS_URL": redis_url})
        channel = grpc.insecure_channel(f"127.0.0.1:{engine_port}")
        stub = health_pb2_grpc.HealthStub(channel)
        _wait(lambda: stub.Check(health_pb2.HealthCheckRequest(), timeout=1).status == 1, 300, "engine service")
        channel.close()
        self._spawn([sys.executable, "-m", "gateway"], {
            "REDIS_URL": redis_url, "C4_GATEWAY_PORT": str(http_port), "C4_GATEWAY_BRIDGE_PORT": str(bridge_port),
            "C4_GATEWAY_ENGINE_ADDR": f"127.0.0.1:{engine_port}", "C4_GATEWAY_LOG_LEVEL": "WARNING",
            "C4_GATEWAY_BRIDGE_OPPONENT": args.opponent,
            # one client making games as fast as it can: the per-address limits would measure themselves
            "C4_GATEWAY_CREATES_PER_MINUTE": "0", "C4_GATEWAY_ANALYSES_PER_MINUTE": "0"})
        args.url = f"http://127.0.0.1:{http_port}"
        args.bridge = f"127.0.0.1:{bridge_port}"
        _wait(lambda: httpx.get(args.url + "/healthz", timeout=1).status_code == 200, 60, "gateway")

    def stop(self) -> None:
        for p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)


def run(args) -> int:
    stack = Stack(args.opponent) if args.start else None
    try:
        if stack:
            print("starting redis-server, engine service and gateway ...", file=sys.stderr)
            stack.start(args)
        out: dict = {"games": args.games, "opponent": args.opponent}
        if args.only in (None, "rest"):
            print(f"REST: {args.games} games for {args.seconds:g} s ...", file=sys.stderr)
            out["rest"] = asyncio.run(_run_rest(args))
        if args.only in (None, "bridge"):
            print(f"bridge: {args.games} games for {args.seconds:g} s ...", file=sys.stderr)
            out["bridge"] = asyncio.run(_run_bridge(args))
        top = out.get("rest") or out.get("bridge")
        assert top is not None  # --only names one of the two
        out.update(moves_per_s=top["moves_per_s"], p50_ms=top["p50_ms"], p99_ms=top["p99_ms"])
    finally:
        if stack:
            stack.stop()
    if args.json:
        print(json.dumps(out))
    else:
        for name in ("rest", "bridge"):
            if name in out:
                s = out[name]
                print(f"{name:7s} {s['moves_per_s']:8.1f} moves/s  {s['requests_per_s']:8.1f} requests/s  "
                      f"p50 {s['p50_ms']:.2f} ms  p99 {s['p99_ms']:.2f} ms  ({s['requests']} requests, "
                      f"{s['errors']} errors)")
    return 0
