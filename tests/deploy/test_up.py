"""``c4 up`` end to end, on real parts: the command itself starts Redis, the
engine and solver services, the gateway and a bookgen worker on free ports
with a temporary data folder. Then a game is played through HTTP, the JSON
bridge and MCP (the SDK's own client over streamable HTTP); Redis is restarted
in the middle of a game and the game is still there; a killed child comes
back; and SIGINT leaves no process of the stack behind.

The tests of this module share one stack and run in file order.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from c4.stack.fault_clients import START as OFF_BOOK
from c4.stack.launch import REPO, UpProcess
from c4.stack.plan import free_port, port_is_free
from c4.stack.supervisor import stack_processes

START_TIMEOUT_S = 480  # per stage: a cold numba cache compiles every kernel first on two slow cores

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]


def _missing() -> str | None:
    for module in ("engine_svc", "solver_svc", "gateway"):
        if not (REPO / module / "__main__.py").exists():
            return f"{module} has no __main__ yet"
    return None


def has_bookgen_worker() -> bool:
    from c4.main import build_parser

    try:
        build_parser().parse_args(["bookgen", "worker"])
    except SystemExit:
        return False
    return True


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    why = _missing()
    if why:
        pytest.skip(why)
    # the engine answers fast and plays weakly enough for a game to end quickly
    fast = {"C4_GATEWAY_BRIDGE_OPPONENT": "engine:100", "C4_GATEWAY_DEFAULT_OPPONENT": "engine:100"}
    with UpProcess(tmp_path_factory.mktemp("c4up") / "data", workers=1 if has_bookgen_worker() else 0, env=fast,
                   start_timeout_s=START_TIMEOUT_S) as up:
        yield up.wait_ready()


@pytest.fixture
def api(stack):
    with httpx.Client(base_url=stack.url, timeout=120) as client:
        yield client


def legal_columns(rows: list[str]) -> list[int]:
    return [c + 1 for c, cell in enumerate(rows[0]) if cell == "."]


def choose(rows: list[str], turn: int) -> int:
    """A legal column, varied so the game is not always the same."""
    legal = legal_columns(rows)
    return legal[(turn * 3) % len(legal)]


def choose_from_moves(moves: list[int], turn: int, width: int = 7, height: int = 6) -> int:
    legal = [c for c in range(1, width + 1) if moves.count(c) < height]
    return legal[(turn * 3) % len(legal)]


def play_http_game(api: httpx.Client, start: list[int] | None = None) -> dict:
    """A whole game against engine:100 (50 ms), from ``start`` (a replayed move list) when given."""
    r = api.post("/api/v1/games", json={"opponent": "engine:100", "think_ms": 50})
    assert r.status_code == 201, r.text
    game = r.json()
    headers = {"X-Player-Token": game["token"]}
    state = game["state"]
    if start:
        r = api.post(f"/api/v1/games/{state['id']}/replay", json={"moves": start}, headers=headers)
        assert r.status_code == 200, r.text
        state = r.json()
    for turn in range(30):
        if state["status"] == "over":
            break
        assert state["status"] == "to_move", state
        r = api.post(f"/api/v1/games/{state['id']}/moves", json={"column": choose(state["rows"], turn)},
                     headers=headers)
        assert r.status_code == 200, r.text
        state = r.json()
        # think_ms overrides the spec's 100 ms: the engine names the budget that played
        assert state["last_search"] is None or state["last_search"]["player"] == "engine:50"
    assert state["status"] == "over", state
    return state


# ----------------------------------------------------------------------------- tests


def test_ready_and_announced(stack):
    state = stack.state()
    names = {"redis", "engine", "solver", "gateway", *(f"worker-{i}" for i in range(1, stack.workers + 1))}
    assert set(state["children"]) == names
    assert all(c["state"] == "ready" and c["pid"] for c in state["children"].values()), state["children"]
    out = stack.log_text()
    assert f"open      {stack.url}/" in out
    assert f"bridge    127.0.0.1:{stack.bridge_port}" in out
    assert f"MCP       {stack.url}/mcp" in out
    # Redis keeps its append-only file in the data folder
    redis_dir = stack.data / "redis"
    assert (redis_dir / "appendonlydir").is_dir() or (redis_dir / "appendonly.aof").is_file()  # Redis 7 / 6


def test_metrics_everywhere(stack, api):
    metrics = stack.state()["metrics"]
    text = api.get("/metrics").text
    assert "gateway_http_requests_total" in text
    for name in ("engine", "solver"):
        body = httpx.get(metrics[name], timeout=10).text
        assert "grpc_server_requests_total" in body or "grpc_server_latency_seconds" in body, name
    body = httpx.get(metrics["stack"], timeout=10).text
    assert 'bookgen_queue_length{queue="c4.bookgen"}' in body
    assert 'c4_stack_child_up{child="gateway"} 1.0' in body


def metric(url: str, name: str, having: str = "") -> float:
    """Sum of the samples of `name` whose labels contain `having`, from a /metrics page."""
    total = 0.0
    for line in httpx.get(url, timeout=10).text.splitlines():
        key, _, value = line.rpartition(" ")
        if key.split("{")[0] == name and having in key:
            total += float(value)
    return total


def test_named_metrics_move_with_play(stack, api):
    """Requests and latencies by route and RPC, games in play, engine nodes, solver cache hits."""
    urls = {**stack.state()["metrics"], "gateway": stack.url + "/metrics"}
    moves_route = 'route="/api/v1/games/{game_id}/moves"'
    before = {"moves": metric(urls["gateway"], "gateway_http_requests_total", moves_route),
              "latency": metric(urls["gateway"], "gateway_http_request_seconds_count", moves_route),
              "think": metric(urls["engine"], "grpc_server_requests_total", "EngineService/Think"),
              "nodes": metric(urls["engine"], "engine_nodes_total"),
              "hits": metric(urls["solver"], "solver_cache_hits_total")}
    state = play_http_game(api, start=OFF_BOOK)  # the book answers an opening without a search: off it
    ply = len(state["moves"]) - 1  # one move before the end: proved at once, then from the cache
    for _ in range(2):
        assert api.get(f"/api/v1/games/{state['id']}/analysis", params={"ply": ply}).status_code == 200
    played = (len(state["moves"]) - len(OFF_BOOK)) // 2
    assert metric(urls["gateway"], "gateway_http_requests_total", moves_route) >= before["moves"] + played
    assert metric(urls["gateway"], "gateway_http_request_seconds_count", moves_route) >= before["latency"] + played
    assert "gateway_games_in_play " in httpx.get(urls["gateway"], timeout=10).text
    assert metric(urls["engine"], "grpc_server_requests_total", "EngineService/Think") > before["think"]
    assert metric(urls["engine"], "engine_nodes_total") > before["nodes"]
    assert metric(urls["solver"], "solver_cache_hits_total") > before["hits"]


def test_game_over_http(stack, api):
    state = play_http_game(api)
    again = api.get(f"/api/v1/games/{state['id']}").json()
    assert again["moves"] == state["moves"] and again["status"] == "over"


def test_game_over_the_bridge(stack):
    with socket.create_connection(("127.0.0.1", stack.bridge_port), timeout=120) as sock:
        f = sock.makefile("rwb")

        def send(msg: dict) -> dict:
            f.write(json.dumps(msg).encode() + b"\n")
            f.flush()
            return json.loads(f.readline())

        state = send({"cmd": "new", "engine_starts": False})
        assert state["status"] == "human_to_move", state
        bad = send({"cmd": "move", "col": 9})
        assert bad == {"error": "col must be 1..7"} or bad.get("error", "").startswith("col must be")
        for turn in range(30):
            if state["status"] not in ("human_to_move", "thinking"):
                break
            state = send({"cmd": "move", "col": choose(state["rows"], turn)})
            assert "error" not in state, state
        assert state["status"] == "draw" or isinstance(state["status"], dict), state
        assert state["game"]


def test_game_over_mcp(stack):
    from mcp import Client

    async def play() -> tuple[list[str], str]:
        async with Client(f"{stack.url}/mcp") as mcp:
            names = {t.name for t in (await mcp.list_tools()).tools}
            assert {"connect4_new", "connect4_move", "connect4_state", "connect4_hints"} <= names
            result = await mcp.call_tool("connect4_new", {"engine_starts": False, "game": "deploy"})
            assert not result.is_error
            texts = [c.text for c in result.content]
            doc = result.structured_content
            for turn in range(30):
                if doc["status"] == "over":
                    break
                move = await mcp.call_tool("connect4_move", {"col": choose_from_moves(doc["history"], turn),
                                                             "game": "deploy"})
                texts = [c.text for c in move.content]
                assert not move.is_error, texts
                doc = move.structured_content
            state = await mcp.call_tool("connect4_state", {"game": "deploy"})
            assert state.structured_content["history"] == doc["history"]
            return texts, doc["status"]

    texts, status = asyncio.run(play())
    assert status == "over"
    assert any("1 2 3 4 5 6 7" in t for t in texts), texts


def test_request_id_follows_a_move_into_the_engine(stack, api):
    """One id from the HTTP request to the engine's log line of its search (servicekit logs)."""
    rid = "deploy" + os.urandom(6).hex()
    game = api.post("/api/v1/games", json={"opponent": "engine:100", "think_ms": 50}).json()
    r = api.post(f"/api/v1/games/{game['state']['id']}/moves", json={"column": 4},
                 headers={"X-Player-Token": game["token"], "X-Request-ID": rid})
    assert r.status_code == 200 and r.headers.get("x-request-id") == rid, r.text
    stack.wait(lambda: any(line.startswith("engine ") and f"request_id={rid}" in line
                           for line in stack.log_text().splitlines()),
               "the engine's log line with the request id", timeout=60)


def test_killed_child_comes_back(stack, api):
    old = stack.child("engine")
    os.kill(old["pid"], signal.SIGKILL)
    fresh = stack.wait_back("engine", old["pid"])
    assert fresh["restarts"] >= 1
    assert "engine exited (signal 9)" in stack.log_text()
    stack.wait(lambda: api.get("/readyz").status_code == 200, "the gateway to be ready again", timeout=120)
    assert play_http_game(api)["status"] == "over"


def test_redis_restart_keeps_the_game(stack, api):
    r = api.post("/api/v1/games", json={"opponent": "engine:100", "think_ms": 50})
    game = r.json()
    gid, headers = game["state"]["id"], {"X-Player-Token": game["token"]}
    state = api.post(f"/api/v1/games/{gid}/moves", json={"column": 4}, headers=headers).json()
    assert len(state["moves"]) == 2
    old = stack.child("redis")
    os.kill(old["pid"], signal.SIGTERM)  # as `docker compose restart redis` does; c4 up starts it again
    assert stack.wait_back("redis", old["pid"])["restarts"] >= 1

    def fetched():
        r = api.get(f"/api/v1/games/{gid}")
        return r.json() if r.status_code == 200 else None

    after = stack.wait(fetched, "the gateway to read the game again", timeout=60)
    assert after["moves"] == state["moves"]
    # The game goes on. A connection the gateway held to the old Redis may still
    # answer 503 once (the documented "service_unavailable: the game is kept");
    # a client then reloads and, if its move is not in, sends it again with the
    # version it saw, so a move is never doubled.
    move = {"column": choose(after["rows"], 1), "version": after["version"]}

    def moved():
        r = api.post(f"/api/v1/games/{gid}/moves", json=move, headers=headers)
        if r.status_code == 200:
            return True
        assert r.status_code in (503, 409), r.text
        return len(api.get(f"/api/v1/games/{gid}").json()["moves"]) > len(after["moves"])

    stack.wait(moved, "the move after the Redis restart", timeout=60)
    final = stack.wait(lambda: (lambda g: g if len(g["moves"]) == 4 and g["status"] != "thinking" else None)(
        api.get(f"/api/v1/games/{gid}").json()), "the engine's answer", timeout=120)
    assert final["moves"][:2] == state["moves"] and final["moves"][2] == move["column"]


def test_a_second_stack_must_choose_other_ports_and_folder(stack, tmp_path):
    """Two stacks run side by side only on their own ports and data folders: c4 up says so."""
    def up(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "c4.main", "up", "--color", "never", *args],
                              cwd=REPO, capture_output=True, text=True, timeout=120)

    busy = up("--http-port", str(stack.http_port), "--bridge-port", str(free_port()),
              "--data-dir", str(tmp_path / "other"))
    assert busy.returncode == 2 and f"HTTP port 127.0.0.1:{stack.http_port} is in use" in busy.stderr
    same = up("--http-port", str(free_port()), "--bridge-port", str(free_port()), "--data-dir", str(stack.data))
    assert same.returncode == 2 and f"uses {stack.data}" in same.stderr
    assert stack.proc.poll() is None and stack.state()["ready"]


def test_sigint_leaves_no_process(stack):
    state = stack.state()
    stack_id = state["stack_id"]
    pids = [c["pid"] for c in state["children"].values()]
    assert len(stack_processes(stack_id)) >= len(pids)
    stack.proc.send_signal(signal.SIGINT)
    assert stack.proc.wait(120) == 0, stack.tail()
    assert stack_processes(stack_id) == [], stack.tail()
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists() or ") Z " in Path(f"/proc/{pid}/stat").read_text()
    assert port_is_free(stack.http_port) and port_is_free(stack.bridge_port)
    assert "all processes stopped" in stack.tail()
