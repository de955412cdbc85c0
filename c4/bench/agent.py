"""``c4 bench agent``: an MCP agent plays N games through the gateway's ``/mcp``
and through ``c4 mcp-stdio``, with the SDK's own client and a policy that
follows the hints (make four, else block, else a column that does not lose at
once, centre first). Prints p50/p99 of each tool's round trip, the results,
and for ``connect4_move`` its time beyond the engine's own search
(``last_search.millis``).

By default it measures a running gateway (``--url``); ``--start`` starts its
own redis-server, engine service and gateway on free ports first.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field

from c4 import argtypes

from .gateway import Stack, _pct

CENTRE_FIRST = (4, 3, 5, 2, 6, 1, 7)


def register(sub) -> None:
    p = sub.add_parser("agent", help="an MCP agent's games through /mcp and c4 mcp-stdio: p50/p99 per tool",
                       description=__doc__)
    p.add_argument("--url", default="http://127.0.0.1:8000", help="gateway HTTP address")
    p.add_argument("--games", type=argtypes.int_in(1, 1000), default=3,
                   help="games per transport (default %(default)s)")
    p.add_argument("--opponent", default="random", help="opponent spec (default %(default)s)")
    p.add_argument("--only", choices=("http", "stdio"), help="run one of the two")
    p.add_argument("--start", action="store_true", help="start redis-server, engine service and gateway first")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def choose(state: dict) -> int:
    """The hints-following policy."""
    h = state.get("hints") or {}
    free = [c + 1 for c, cell in enumerate(state["rows"][0]) if cell == "."]
    for key in ("winning_moves", "must_block"):
        if h.get(key):
            return h[key][0]
    losing = set(h.get("losing_moves") or ())
    safe = [c for c in CENTRE_FIRST if c in free and c not in losing]
    return safe[0] if safe else next(c for c in CENTRE_FIRST if c in free)


@dataclass
class Tally:
    """What the games on one transport measured."""

    times: defaultdict[str, list[float]] = field(default_factory=lambda: defaultdict(list))  # tool -> ms per call
    results: defaultdict[str, int] = field(default_factory=lambda: defaultdict(int))  # win/draw/loss -> games
    overhead: list[float] = field(default_factory=list)  # ms of each connect4_move beyond the engine's search


async def play_one(client, g: int, opponent: str, tally: Tally) -> None:
    async def call(tool: str, args: dict):
        t0 = time.perf_counter()
        r = await client.call_tool(tool, args)
        tally.times[tool].append((time.perf_counter() - t0) * 1000)
        if r.is_error:
            raise RuntimeError(f"{tool} {args}: {r.content[0].text}")
        return r.structured_content

    name = f"bench-{g}"
    engine_starts = g % 2 == 1
    state = await call("connect4_new", {"game": name, "opponent": opponent, "engine_starts": engine_starts})
    state = await call("connect4_hints", {"on": True, "game": name})
    while not state["game_over"]:
        state = await call("connect4_state", {"game": name})
        t0 = time.perf_counter()
        state = await call("connect4_move", {"col": choose(state), "game": name})
        engine_moved_last = len(state["history"]) % 2 == (1 if engine_starts else 0)
        if state["last_search"] and engine_moved_last:
            tally.overhead.append((time.perf_counter() - t0) * 1000 - state["last_search"]["millis"])
    r = state["result"]
    tally.results["draw" if r["winner"] is None else "win" if r["you_won"] else "loss"] += 1


def first_answer_ms(url: str) -> dict:
    """Start ``c4 mcp-stdio`` and time its answer to ``initialize`` (wall and the process's CPU)."""
    import resource
    import subprocess

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "c4.main", "mcp-stdio", "--url", f"{url}/mcp"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert p.stdin is not None and p.stdout is not None  # both are pipes
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
    p.stdin.write(json.dumps(init).encode() + b"\n")
    p.stdin.flush()
    line = p.stdout.readline()
    wall = (time.perf_counter() - t0) * 1000
    p.stdin.close()
    p.wait(10)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
    ok = b'"serverInfo"' in line
    return {"wall_ms": round(wall, 1), "process_cpu_ms": round(cpu, 1), "answered": ok}


async def run_both(url: str, games: int, opponent: str, only: str | None) -> dict:
    """The games of both transports interleaved (one game on each in turn), so load moves both alike."""
    from contextlib import AsyncExitStack

    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "c4.main", "mcp-stdio", "--url", f"{url}/mcp"])
    out: dict[str, object] = {}
    async with AsyncExitStack() as stack:
        clients = {}
        if only in (None, "http"):
            clients["http"] = await stack.enter_async_context(Client(f"{url}/mcp"))
        if only in (None, "stdio"):
            t0 = time.perf_counter()
            clients["stdio"] = await stack.enter_async_context(Client(params))
            out["stdio_sdk_connect_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        tallies = {k: Tally() for k in clients}
        for g in range(games):
            for k, client in clients.items():
                await play_one(client, g, opponent, tallies[k])
        for k in clients:
            out[k] = summary(tallies[k])
    return out


def summary(tally: Tally) -> dict:
    tools = {}
    for tool, times in sorted(tally.times.items()):
        ms = sorted(times)
        tools[tool] = {"calls": len(ms), "p50_ms": round(_pct(ms, 0.5), 2), "p99_ms": round(_pct(ms, 0.99), 2)}
    ov = sorted(tally.overhead)
    return {"tools": tools, "results": dict(tally.results),
            "move_beyond_engine_ms": {"p50": round(_pct(ov, 0.5), 2), "p99": round(_pct(ov, 0.99), 2),
                                      "moves": len(ov)}}


def run(args) -> int:
    import os

    stack = Stack(args.opponent) if args.start else None
    out: dict = {"games": args.games, "opponent": args.opponent, "load_average": list(os.getloadavg())}
    try:
        if stack:
            print("starting redis-server, engine service and gateway ...", file=sys.stderr)
            args.bridge = ""
            stack.start(args)
        if args.only in (None, "stdio"):
            out["stdio_first_answer"] = first_answer_ms(args.url)
        print(f"{args.games} games on each transport, interleaved ...", file=sys.stderr)
        out.update(asyncio.run(run_both(args.url, args.games, args.opponent, args.only)))
        out["load_average_after"] = list(os.getloadavg())
    finally:
        if stack:
            stack.stop()
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"load average {out['load_average'][0]:.1f} -> {out['load_average_after'][0]:.1f}")
    if "stdio_first_answer" in out:
        f = out["stdio_first_answer"]
        print(f"c4 mcp-stdio answers initialize {f['wall_ms']:.0f} ms after its start "
              f"({f['process_cpu_ms']:.0f} ms of its CPU)")
    for transport in ("http", "stdio"):
        if transport not in out:
            continue
        s = out[transport]
        print(f"{transport}: results {s['results']}; connect4_move beyond the engine's search: "
              f"p50 {s['move_beyond_engine_ms']['p50']:.2f} ms, p99 {s['move_beyond_engine_ms']['p99']:.2f} ms")
        for tool, t in s["tools"].items():
            print(f"  {tool:20s} {t['calls']:5d} calls  p50 {t['p50_ms']:8.2f} ms  p99 {t['p99_ms']:8.2f} ms")
    return 0
