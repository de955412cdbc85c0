"""``c4 bench faults``: faults injected into a real ``c4 up`` under load.

A stack is started (``c4 up --workers 2``, its own Redis and data folder);
for each fault, careful clients (:mod:`c4.stack.fault_clients`) play games and ask for
analyses while the fault is injected mid-request; then every game is read
back. One row per fault: requests in flight when it struck, the answers
of every request that ran between the fault and the recovery, by kind, the
time to recover (until the gateway is ready again, the struck child is
running again and a fresh request is answered), and games lost, with a
write lost, doubled or orphaned (target 0 each).

Faults: ``engine``, ``solver``, ``gateway``, ``redis`` (kill -9 of that
child mid-request), ``redis-stop`` (SIGSTOP until the supervisor restarts
it), ``worker`` (kill -9 of a whole bookgen worker mid-task while
``c4 bookgen opening`` runs against the stack; recovered when the killed
task's result is stored), and the gateway-level ones ``reply-drop`` (a
second stack whose Redis is behind :class:`~c4.stack.fault_proxy.ReplyDropProxy`:
three saves land and their replies are cut), ``maxmemory`` (Redis
full: maxmemory set just above its use for a few seconds) and ``slowloris``
(many connections that never finish their headers; recovered when the
gateway has closed them all, else the row says how many were still held).

    c4 bench faults [--faults engine,redis-stop,...] [--players 3] [--json]
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from c4.stack.fault_clients import (
    Audit,
    Player,
    answers_between,
    audit,
    game_ids_in_redis,
    in_flight_at,
)
from c4.stack.launch import REPO, UpProcess

KILLS = ("engine", "solver", "gateway", "redis")
ALL = (*KILLS, "redis-stop", "worker", "reply-drop", "maxmemory", "slowloris")
# The worker kill's book: a tree of 8 positions with 7 and 9 stones, a second or more of solving
# each, so a task is caught mid-way (from 35612337464, 11 and 13 stones, they took 2-40 ms).
BOOK_START, BOOK_PLIES = "3561233", "4"


@dataclass
class FaultResult:
    fault: str
    in_flight: int
    answers: Counter
    recover_s: float | None
    audit: Audit
    unanswered_creates: int
    note: str = ""
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"fault": self.fault, "in_flight": self.in_flight, "answers": dict(self.answers),
                "recover_s": None if self.recover_s is None else round(self.recover_s, 2),
                **self.audit.as_dict(), "unanswered_creates": self.unanswered_creates, "note": self.note,
                **self.extra}


# --------------------------------------------------------------------------- helpers


def wait_until(predicate, what: str, timeout: float, every: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise TimeoutError(f"gave up waiting for {what} after {timeout:g}s")


def wait_in_flight(players: list[Player], ops: tuple[str, ...], min_age_s: float = 0.05, timeout: float = 60):
    """Until a request of one of ``ops`` has been running for ``min_age_s`` (mid-request)."""
    def busy():
        now = time.monotonic()
        for p in players:
            with p.lock:
                if any(op in ops and now - t0 >= min_age_s for op, t0 in p.in_flight.items()):
                    return True
        return False
    wait_until(busy, f"a {'/'.join(ops)} request in flight", timeout)


def in_flight_now(players: list[Player]) -> int:
    total = 0
    for p in players:
        with p.lock:
            total += len(p.in_flight)
    return total


def answered_again(up: UpProcess, timeout: float = 120.0) -> float:
    """When the gateway is ready and a fresh create and read are answered."""
    def ok():
        try:
            with httpx.Client(base_url=up.url, timeout=10) as c:
                if c.get("/readyz").status_code != 200:
                    return False
                r = c.post("/api/v1/games", json={"opponent": "engine:100"})
                if r.status_code != 201:
                    return False
                probe_games.append(r.json()["state"]["id"])
                return c.get(f"/api/v1/games/{r.json()['state']['id']}").status_code == 200
        except httpx.HTTPError:
            return False
    wait_until(ok, "the stack to answer again", timeout, every=0.1)
    return time.monotonic()


probe_games: list[str] = []  # games made by answered_again: known, not orphans


# --------------------------------------------------------------------------- faults
# Each takes the stack and the running players and returns (t_fault, t_recovered, in_flight, note).

Fault = Callable[[UpProcess, list[Player]], tuple[float, float | None, int, str]]


def kill_child(name: str, ops: tuple[str, ...]) -> Fault:
    def inject(up: UpProcess, players: list[Player]):
        wait_in_flight(players, ops, min_age_s=0.1)
        old = up.child(name)["pid"]
        t0 = time.monotonic()
        n = in_flight_now(players)
        os.kill(old, signal.SIGKILL)
        up.wait_back(name, old, timeout=300)
        return t0, answered_again(up), n, ""
    return inject


def stop_redis(up: UpProcess, players: list[Player]):
    wait_in_flight(players, ("move", "get", "create"))
    old = up.child("redis")["pid"]
    t0 = time.monotonic()
    n = in_flight_now(players)
    os.kill(old, signal.SIGSTOP)
    silent = up.wait(lambda: up.child("redis").get("state") == "unresponsive", "the stopped Redis reported", 60)
    reported = time.monotonic() - t0
    up.wait_back("redis", old, timeout=300)
    return t0, answered_again(up), n, f"reported unresponsive after {reported:.1f}s" if silent else ""


def bookgen_opening(up: UpProcess, out: Path, fresh: bool = True) -> subprocess.Popen:
    """``c4 bookgen opening`` on the stack's workers (none of its own)."""
    return subprocess.Popen(
        [sys.executable, "-m", "c4.main", "bookgen", "opening", "--size", "7x6", "--start", BOOK_START,
         "--plies", BOOK_PLIES, "--guess-depth", "0", "--redis-url", up.redis_url, "--out", str(out),
         *(["--fresh"] if fresh else [])],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def kill_worker_mid_task(up: UpProcess, out: Path) -> tuple[float, float, int, str, int]:
    """Run the opening book on the stack, kill -9 the worker (its whole group)
    that holds a task mid-way; (t_fault, t_its_result, tasks in flight, note, exit code)."""
    from books.bookgen.store import ResultStore
    from connect4 import Position

    store = ResultStore.from_url(up.redis_url, Position().geometry)
    run = bookgen_opening(up, out)
    try:
        def running_task():
            for wid, what in store.running().items():
                key = int(what.split()[1], 16)
                if store.bests([key])[0] is None:
                    return int(wid.rsplit(":", 1)[1]), key
            return None
        pool_pid, key = wait_until(running_task, "a bookgen task running", 300, every=0.02)
        n = len(store.running())
        worker = _parent_of(pool_pid)
        name = next((k for k, c in up.state()["children"].items() if c.get("pid") == worker), "a worker")
        t0 = time.monotonic()
        os.killpg(os.getpgid(worker), signal.SIGKILL)
        wait_until(lambda: store.bests([key])[0] is not None, "the killed task's result", 300, every=0.2)
        t1 = time.monotonic()
        run.communicate(timeout=600)
        return t0, t1, n, f"{name} killed; the task ran again {t1 - t0:.1f}s later", run.returncode
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()


def fill_redis(up: UpProcess, players: list[Player], hold_s: float = 4.0):
    import redis

    client = redis.Redis.from_url(up.redis_url, socket_timeout=10)
    try:
        wait_in_flight(players, ("move", "create", "get"))
        used = int(client.info("memory")["used_memory"])
        t0 = time.monotonic()
        n = in_flight_now(players)
        client.config_set("maxmemory-policy", "noeviction")
        client.config_set("maxmemory", str(used + 64 * 1024))
        filler = 0
        try:  # use up the rest, so every write now meets a full Redis
            while filler < 10_000:
                client.set(f"c4:bench:filler:{filler}", "x" * 1024)
                filler += 1
        except redis.exceptions.ResponseError:
            pass
        time.sleep(hold_s)  # the fault lasts this long: the clients' answers meanwhile are the figure
        client.config_set("maxmemory", "0")
        client.delete(*[f"c4:bench:filler:{i}" for i in range(filler)] or ["c4:bench:filler:none"])
        return t0, answered_again(up), n, f"full for {hold_s:g}s"
    finally:
        client.close()


def slowloris(up: UpProcess, players: list[Player], sockets: int = 300, watch_s: float = 30.0):
    wait_in_flight(players, ("move", "create", "get"))
    t0 = time.monotonic()
    n = in_flight_now(players)
    held: list[socket.socket] = []
    for _ in range(sockets):
        try:
            s = socket.create_connection(("127.0.0.1", up.http_port), timeout=5)
            s.sendall(b"GET /api/v1/opponents HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # never finished
            s.setblocking(False)
            held.append(s)
        except OSError:
            break
    opened = len(held)

    def open_ones() -> int:
        alive = 0
        for s in held:
            try:
                if s.recv(1, socket.MSG_PEEK) == b"":
                    continue  # closed by the server
            except BlockingIOError:
                pass
            except OSError:
                continue
            alive += 1
        return alive

    deadline = t0 + watch_s
    while time.monotonic() < deadline and open_ones():
        time.sleep(0.25)
    still = open_ones()
    for s in held:
        s.close()
    t1 = answered_again(up)
    released = time.monotonic() if not still else None
    note = (f"{opened} half-open connections, all closed by the gateway" if not still
            else f"{opened} half-open connections, {still} still held after {watch_s:g}s")
    return t0, (t1 if released else None), n, note


def drop_replies(proxy, times: int = 3) -> Fault:
    def inject(up: UpProcess, players: list[Player]):
        wait_in_flight(players, ("move", "create"), min_age_s=0.0)
        t0 = time.monotonic()
        n = in_flight_now(players)
        before = proxy.dropped
        proxy.arm(times)
        wait_until(lambda: proxy.dropped >= before + times, f"{times} replies dropped", 120)
        return t0, answered_again(up), n, f"{times} save replies dropped after the save landed"
    return inject


FAULTS: dict[str, Fault] = {
    "engine": kill_child("engine", ("move",)),
    "solver": kill_child("solver", ("analysis",)),
    "gateway": kill_child("gateway", ("move", "create", "get", "analysis")),
    "redis": kill_child("redis", ("move", "create", "get")),
    "redis-stop": stop_redis,
    "maxmemory": fill_redis,
    "slowloris": slowloris,
}


# --------------------------------------------------------------------------- one measured fault


def measure(up: UpProcess, name: str, players: int = 3, think_ms: int = 300, fault: Fault | None = None) -> FaultResult:
    """Players play; the fault strikes; they go on until the stack answers again; the games are read back."""
    known = game_ids_in_redis(up.redis_url)
    stop = threading.Event()
    crowd = [Player(up.url, i, stop, think_ms=think_ms) for i in range(players)]
    for p in crowd:
        p.start()
    try:
        wait_until(lambda: all(p.games for p in crowd), "every player to have a game", 120)
        t0, t1, n, note = (fault or FAULTS[name])(up, crowd)
        end = t1 if t1 is not None else time.monotonic()
        # let every player get one more answer after the recovery, so the last ones are counted
        after = time.monotonic()
        wait_until(lambda: all(any(r.start >= after and r.kind in ("200", "201") for r in p.requests)
                               for p in crowd), "an answer for every player after the fault", 120)
    finally:
        stop.set()
        for p in crowd:
            p.join(120)
    result = audit(up.url, crowd, known | set(probe_games), up.redis_url)
    return FaultResult(name, n, answers_between(crowd, t0, end), None if t1 is None else t1 - t0, result,
                       sum(p.unanswered_creates for p in crowd), note,
                       {"in_flight_at_fault": in_flight_at(crowd, t0)})


def measure_worker(up: UpProcess, tmp: Path) -> FaultResult:
    """The worker fault: the opening book on the stack, clean and with a worker killed mid-task."""
    clean = bookgen_opening(up, tmp / "clean.txt")
    clean.communicate(timeout=900)
    t0, t1, n, note, code = kill_worker_mid_task(up, tmp / "killed.txt")
    same = (tmp / "killed.txt").exists() and (tmp / "killed.txt").read_bytes() == (tmp / "clean.txt").read_bytes()
    note += "; book byte-identical to a clean run" if same and code == 0 else f"; run exit {code}, same book {same}"
    return FaultResult("worker", n, Counter({"bookgen run finished" if code == 0 else f"bookgen exit {code}": 1}),
                       t1 - t0, Audit(0, [], [], [], []), 0, note, {"same_book": same})


def measure_reply_drop(tmp: Path, players: int, think_ms: int) -> FaultResult:
    from books.bookgen.workers import LocalRedis
    from c4.stack.fault_proxy import ReplyDropProxy

    server = LocalRedis(tmp / "proxied-redis").start()
    proxy = ReplyDropProxy(server.port)
    try:
        with UpProcess(tmp / "proxied-stack", workers=0, extra_args=("--redis-url", proxy.url),
                       env={"C4_GATEWAY_DEFAULT_OPPONENT": "engine:100"}) as up:
            up.wait_ready()
            return measure(up, "reply-drop", players, think_ms, fault=drop_replies(proxy))
    except (TimeoutError, RuntimeError) as err:
        return FaultResult("reply-drop", 0, Counter(), None, Audit(0, [], [], [], []), 0, f"not measured: {err}"[:300])
    finally:
        proxy.close()
        server.stop()


# --------------------------------------------------------------------------- the command


def register(sub) -> None:
    from c4 import argtypes

    p = sub.add_parser("faults", help="faults injected into a real c4 up under load: answers, recovery, games lost",
                       description=__doc__, formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    p.add_argument("--faults", default=",".join(ALL), help=f"comma-separated, of {', '.join(ALL)} (default all)")
    p.add_argument("--players", type=argtypes.int_in(1, 64), default=3, help="clients playing meanwhile (default 3)")
    p.add_argument("--think-ms", type=argtypes.int_in(10, 10000), default=300,
                   help="the engine's think time per move (default 300: a move is mid-request for that long)")
    p.add_argument("--redis-hang-restart", type=argtypes.float_in(0, lo_open=True), default=5.0,
                   help="c4 up's --redis-hang-restart for the redis-stop fault (default 5)")
    p.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    p.add_argument("--markdown", action="store_true", help="the table in Markdown")
    p.set_defaults(run=run)


def table(rows: list[FaultResult], markdown: bool) -> str:
    head = ["fault", "in flight", "answers by kind", "recover s", "lost", "lost writes", "doubled", "orphaned",
            "note"]
    body = [[r.fault, str(r.in_flight), ", ".join(f"{k}: {v}" for k, v in sorted(r.answers.items())),
             "-" if r.recover_s is None else f"{r.recover_s:.1f}", str(len(r.audit.lost)),
             str(len(r.audit.lost_writes)), str(len(r.audit.doubled)),
             f"{len(r.audit.orphaned)}" + (f" ({r.unanswered_creates} creates unanswered)" if r.unanswered_creates
                                           else ""), r.note] for r in rows]
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(row) + " |" for row in body]
        return "\n".join(lines)
    widths = [max(len(x) for x in col) for col in zip(head, *body, strict=True)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join([fmt.format(*head), *(fmt.format(*row) for row in body)])


def run(args) -> int:
    names = [n.strip() for n in args.faults.split(",") if n.strip()]
    unknown = [n for n in names if n not in ALL]
    if unknown or not names:
        print(f"c4 bench faults: unknown fault(s) {', '.join(unknown) or '(none given)'}; "
              f"choose from {', '.join(ALL)}", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="c4-bench-faults-"))
    rows: list[FaultResult] = []
    load_before = os.getloadavg()[0]
    on_main = [n for n in names if n != "reply-drop"]
    if on_main:
        with UpProcess(tmp / "stack", workers=2, extra_args=("--redis-hang-restart", str(args.redis_hang_restart)),
                       env={"C4_GATEWAY_DEFAULT_OPPONENT": "engine:100"}) as up:
            up.wait_ready()
            for name in on_main:  # reply-drop runs on a stack of its own, below
                print(f"c4 bench faults: {name} ...", file=sys.stderr)
                try:
                    row = measure_worker(up, tmp) if name == "worker" else measure(up, name, args.players, args.think_ms)
                except (TimeoutError, RuntimeError) as err:
                    row = FaultResult(name, 0, Counter(), None, Audit(0, [], [], [], []), 0, f"not measured: {err}"[:300])
                rows.append(row)
                if not args.json:
                    print(table([row], False), file=sys.stderr)
    if "reply-drop" in names:
        print("c4 bench faults: reply-drop (a second stack, its Redis behind a proxy) ...", file=sys.stderr)
        rows.append(measure_reply_drop(tmp, args.players, args.think_ms))
        if not args.json:
            print(table(rows[-1:], False), file=sys.stderr)
    out = {"faults": [r.as_dict() for r in rows], "players": args.players, "think_ms": args.think_ms,
           "cores": os.cpu_count(), "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    if args.json:
        print(json.dumps(out))
    else:
        print(table(rows, args.markdown))
        print(f"(load average {out['load_average_1min'][0]} -> {out['load_average_1min'][1]} on {out['cores']} cores)")
    return 0
