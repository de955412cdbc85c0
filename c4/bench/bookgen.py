"""``c4 bench bookgen``: positions per second with 1 and with 2 workers.

The same batch of positions (the first ``--n`` lines of one of Pascal Pons'
test sets, default Test_L1_R2: positions of the opening) is sent as
``bookgen.best`` tasks, the real task of ``c4 bookgen opening``, first to one
local Celery worker and then, after the results are forgotten, to two. The
clock runs from the first task sent to the last result stored; starting the
workers and compiling is excluded (a warm-up task goes first). Prints
``pps_1``, ``pps_2`` and ``scaling = pps_2 / pps_1`` (``--json``: one JSON
object). Needs ``redis-server`` (a private one is started).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

from c4 import argtypes


def register(sub) -> None:
    p = sub.add_parser("bookgen", help="bookgen throughput with 1 and 2 workers", description=__doc__)
    p.add_argument("--set", default="Test_L1_R2", help="Pons test set name or file (default Test_L1_R2)")
    p.add_argument("--n", type=argtypes.int_in(1), default=40, help="positions in the batch (default 40)")
    p.add_argument("--workers", type=argtypes.int_list(1, 64), default="1,2",
                   help="worker counts to measure (default 1,2)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def _batch(name: str, n: int) -> list[str]:
    """The moves of the first ``n`` lines of a Pons test set; ValueError for a
    missing or bad set, or one with fewer than ``n`` positions."""
    from .solver import read_set, resolve_set

    try:
        path = resolve_set(name)
    except FileNotFoundError as exc:
        raise ValueError(str(exc)) from None
    rows = read_set(path, n)
    if len(rows) < n:
        raise ValueError(f"--n {n}: test set {name} has only {len(rows)} positions")
    return [moves for moves, _ in rows]


def measure(url: str, batch: list[str], workers: int, log_dir: Path) -> float:
    """Seconds for ``workers`` local workers to run ``bookgen.best`` on the batch."""
    import redis

    from connect4 import Position
    from books.bookgen.app import make_app
    from books.bookgen.store import ResultStore
    from books.bookgen.workers import LocalWorkers

    g = Position().geometry
    client = redis.Redis.from_url(url)
    client.flushall()
    store = ResultStore(client, g)
    app = make_app(url)

    def send(moves: str) -> None:
        app.send_task("bookgen.best", args=[g.name, [int(c) for c in moves]], queue="c4.bookgen")

    with LocalWorkers(workers, url, log_dir / f"w{workers}", extra_env={"C4_BOOKGEN_WARM": "7x6"}) as lw:
        warm = ["4444443333", "4444443332"][:workers]  # one tiny task per worker: processes are up
        for m in warm:
            send(m)
        while any(store.best(Position.parse(m)) is None for m in warm):
            lw.check()
            time.sleep(0.05)
        positions = [Position.parse(m) for m in batch]
        t0 = time.perf_counter()
        for m in batch:
            send(m)
        keys = [p.canonical_key() for p in positions]
        while True:
            if all(b is not None for b in store.bests(keys)):
                break
            lw.check()
            time.sleep(0.02)
        return time.perf_counter() - t0


def run(args) -> int:
    from books.bookgen.workers import LocalRedis

    try:
        batch = _batch(args.set, args.n)
    except ValueError as exc:
        print(f"c4 bench bookgen: {exc}", file=sys.stderr)
        return 2
    counts = args.workers
    tmp = Path(tempfile.mkdtemp(prefix="c4-bench-bookgen-"))
    server = LocalRedis(tmp / "redis").start()
    try:
        out = {"set": args.set, "positions": len(batch)}
        for k in counts:
            secs = measure(server.url, batch, k, tmp)
            out[f"seconds_{k}"] = round(secs, 3)
            out[f"pps_{k}"] = round(len(batch) / secs, 3)
            if not args.json:
                print(f"{k} worker(s): {len(batch)} positions in {secs:.2f} s = {len(batch) / secs:.2f} positions/s",
                      file=sys.stderr)
        if "pps_1" in out and "pps_2" in out:
            out["scaling"] = round(out["pps_2"] / out["pps_1"], 3)
        out["cores"] = os.cpu_count()
        out["load_average_1min"] = round(os.getloadavg()[0], 2)
    finally:
        server.stop()
    if args.json:
        print(json.dumps(out))
    else:
        print(f"pps_1 {out.get('pps_1')}  pps_2 {out.get('pps_2')}  scaling {out.get('scaling')}  "
              f"(load average {out['load_average_1min']} on {out['cores']} cores)")
    return 0
