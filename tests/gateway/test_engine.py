"""Games against the real engine service: REST, bridge and MCP replies after the
engine's answer, progress on the WebSocket, undo while the engine thinks, the
engine going down and coming back, gateway restarts and several gateways."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest
from websockets.sync.client import connect as ws_connect

from tests.gateway.conftest import Gateway, Service
from tests.gateway.helpers import error_of
from tests.gateway.test_watch_bridge_mcp import BridgeClient, _texts

pytestmark = pytest.mark.slow  # real services started as subprocesses


def create(api, **body):
    r = api.post("/api/v1/games", json=body)
    assert r.status_code == 201, r.text
    c = r.json()
    return c["state"]["id"], c["token"], c


# The engine answers every position of its first seven moves from the opening book (both
# sides' trees, books/7x6-opening.txt), so a test that needs a real search starts from
# OFF_BOOK: four stones, red (you) to move, and red's next stone leaves every book
# (test_the_off_book_start_is_off_every_book).
OFF_BOOK = [1, 1, 1, 1]


def off_book(api, **body):
    """A new game against ``body``'s opponent, replayed to OFF_BOOK: (id, token)."""
    gid, token, _ = create(api, **body)
    r = api.post(f"/api/v1/games/{gid}/replay", json={"moves": OFF_BOOK}, headers={"X-Player-Token": token})
    assert r.status_code == 200 and r.json()["moves"] == OFF_BOOK, r.text
    return gid, token


def test_the_off_book_start_is_off_every_book():
    from connect4 import Position
    from connect4.bookset import SHIPPED_BOOK_DIR, SHIPPED_MOVE_BOOKS, BookSet

    books = BookSet([*SHIPPED_MOVE_BOOKS, SHIPPED_BOOK_DIR / "7x6-analysis.txt"])
    for col in (1, 3, 5):
        pos = Position.from_moves([c - 1 for c in [*OFF_BOOK, col]])
        assert books.lookup(pos) is None and books.best_move(pos) is None, col


def move(api, gid, token, col, **kw):
    return api.post(f"/api/v1/games/{gid}/moves", json={"column": col, **kw}, headers={"X-Player-Token": token})


def legal(state) -> int:
    return next(c + 1 for c in (3, 2, 4, 1, 5, 0, 6) if state["rows"][0][c] == ".")


def poll(api, gid, until, timeout=60.0):
    """The game's state once ``until(state)`` holds (a bounded wait, not a timed assertion)."""
    deadline = time.monotonic() + timeout
    while True:
        state = api.get(f"/api/v1/games/{gid}").json()
        if until(state) or time.monotonic() > deadline:
            return state
        time.sleep(0.1)


def test_opponents_list(api):
    specs = [o["spec"] for o in api.get("/api/v1/opponents").json()["opponents"]]
    assert "random" in specs and specs[-2:] == ["perfect", "human"]
    # Every spec the engine would refuse is refused when the game is made, not at its first turn.
    for spec in ("nobody:3", "engine:fast", "nobody", "minimax:0", "minimax:99", "mcts:0", "engine:0",
                 "engine:", "random:5", "greedy:1", "engine:\u00b2", "minimax:-1", "engine:600001"):
        bad = api.post("/api/v1/games", json={"opponent": spec})
        assert bad.status_code == 400 and error_of(bad) == "bad_request", spec
    for spec in ("engine:150", "minimax:1", "minimax:12", "mcts:1", "engine", "random", "engine:600000"):
        assert api.post("/api/v1/games", json={"opponent": spec}).status_code == 201, spec
    ranges = {o["family"]: (o["param_min"], o["param_max"]) for o in api.get("/api/v1/opponents").json()["opponents"]
              if "family" in o}
    assert ranges["minimax"] == (1, 12) and ranges["random"] == (0, 0)


def test_a_whole_game_against_random(api):
    gid, token, _ = create(api, opponent="random")
    state = api.get(f"/api/v1/games/{gid}").json()
    while state["status"] != "over":
        before = state["ply"]
        r = move(api, gid, token, legal(state))
        assert r.status_code == 200, r.text
        state = r.json()
        assert state["ply"] in (before + 1, before + 2)
        if state["status"] != "over":
            assert state["ply"] == before + 2 and state["to_move"] == "red"
            assert state["last_search"]["player"].startswith("random")
            assert state["last_search"]["col"] == state["moves"][-1]
    assert state["result"]["reason"] in ("line", "draw")
    again = move(api, gid, token, 1)
    assert again.status_code == 409 and error_of(again) == "game_over"


def test_engine_starts_and_wait_false(api):
    gid, token, created = create(api, opponent="random", engine_starts=True)
    assert created["seat"] == "yellow" and created["state"]["ply"] == 1  # the engine opened
    r = move(api, gid, token, 4, wait=False)
    assert r.status_code == 200 and r.json()["ply"] == 2
    state = poll(api, gid, lambda s: s["ply"] == 3)
    assert state["ply"] == 3 and state["to_move"] == "yellow"


def test_progress_on_the_websocket_and_undo_while_thinking(api, gateway):
    gid, token = off_book(api, opponent="engine", think_ms=3000)
    with ws_connect(f"ws://127.0.0.1:{gateway.port}/api/v1/games/{gid}/ws", open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
        r = move(api, gid, token, 3, wait=False)  # off every book: a real search
        assert r.status_code == 200 and r.json()["status"] == "thinking"
        version = r.json()["version"]
        msgs = []
        while True:  # our move, then the engine's progress
            m = json.loads(ws.recv(timeout=30))
            msgs.append(m)
            if m["type"] == "progress":
                break
        p = msgs[-1]
        assert {"depth", "nodes", "score", "best_column", "elapsed_ms"} <= set(p) and p["version"] == version
        assert 1 <= p["best_column"] <= 7
        # Undo while the engine thinks: back to our turn; its answer is thrown away.
        u = api.post(f"/api/v1/games/{gid}/undo", headers={"X-Player-Token": token})
        assert u.status_code == 200 and u.json()["moves"] == OFF_BOOK and u.json()["status"] == "to_move"
        undone = u.json()["version"]
        # Wait past the engine's think time: the late answer must not land.
        while True:
            m = json.loads(ws.recv(timeout=30))
            if m["type"] == "state" and m["state"]["version"] >= undone:
                break
        # The search is stopped within a claim renewal (a second), not left to run for
        # nobody through its think time (the gateway logs it; the answer never lands).
        from tests.gateway.conftest import LOGS

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            log = (LOGS / "gateway.log").read_text()
            if any("opponent search stopped" in line and gid in line for line in log.splitlines()):
                break
            time.sleep(0.2)
        else:
            raise AssertionError("the engine's search of the undone move was not stopped")
    state = api.get(f"/api/v1/games/{gid}").json()
    assert state["moves"] == OFF_BOOK and state["version"] == undone and state["status"] == "to_move"
    # And the game goes on normally.
    r = move(api, gid, token, 3)
    assert r.status_code == 200 and r.json()["ply"] == 6


def test_an_engine_opponent_thinks_its_whole_budget(api):
    """engine:N without a think time thinks N ms, and a think time of N ms is N ms.
    The engine gives a search at most half the time left before the gRPC deadline
    (an iteration may run to twice its budget): with a deadline of the budget plus
    the quick-call timeout (5 s here), engine:6000 played as engine:2490."""
    for body in ({"opponent": "engine:6000"}, {"opponent": "engine", "think_ms": 6000}):
        gid, token, created = create(api, engine_starts=True, **body)  # a book answer: no wait
        assert created["state"]["last_search"]["player"] == "engine:6000", body


def test_undo_and_a_new_move_within_a_second_stop_the_first_search(api, gateway):
    """The new move's turn is claimed by the same gateway, so the claim alone does not
    tell the first search it is stale; the process's own record of the turn it plays does."""
    from tests.gateway.conftest import LOGS

    gid, token = off_book(api, opponent="engine", think_ms=20000)
    first = move(api, gid, token, 3, wait=False).json()["version"]  # off every book: a real search
    assert api.post(f"/api/v1/games/{gid}/undo", headers={"X-Player-Token": token}).status_code == 200
    assert move(api, gid, token, 5, wait=False).status_code == 200
    deadline = time.monotonic() + 30

    def stopped(line: str) -> bool:
        return "opponent search stopped" in line and gid in line and json.loads(line).get("version") == first

    while not any(stopped(line) for line in (LOGS / "gateway.log").read_text().splitlines()):
        assert time.monotonic() < deadline, "the search of the undone move went on"
        time.sleep(0.2)
    assert api.post(f"/api/v1/games/{gid}/undo", headers={"X-Player-Token": token}).status_code == 200


def test_a_waiting_move_is_searched_once(api, gateway):
    """A move sent with wait=true is played by its request alone: the sweeper (every
    0.3 s here) must not start a second search of the same turn, which would split
    the cores and stream a second, shallower line of progress to the watchers."""
    gid, token = off_book(api, opponent="engine", think_ms=2000)
    with ws_connect(f"ws://127.0.0.1:{gateway.port}/api/v1/games/{gid}/ws", open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
        r = move(api, gid, token, 3)  # off every book: a real search
        assert r.status_code == 200 and r.json()["ply"] == 6, r.text
        depths = []
        while True:
            m = json.loads(ws.recv(timeout=30))
            if m["type"] == "progress":
                depths.append(m["depth"])
            elif m["type"] == "state" and m["state"]["ply"] == 6:
                break
    assert depths, "the engine streamed no progress"
    assert depths == sorted(set(depths)), f"two searches of one turn: depths {depths}"


def test_hints_and_think_time_changes_keep_the_search(api, gateway):
    """Turning hints on or changing the think time while the engine thinks changes
    the game's version, not its position: the search goes on and its answer lands."""
    gid, token = off_book(api, opponent="engine", think_ms=2000)
    with ws_connect(f"ws://127.0.0.1:{gateway.port}/api/v1/games/{gid}/ws", open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
        assert move(api, gid, token, 3, wait=False).status_code == 200  # off every book: a real search
        depths, changed = [], False
        while True:
            m = json.loads(ws.recv(timeout=30))
            if m["type"] == "progress":
                depths.append(m["depth"])
                if not changed:
                    h = api.post(f"/api/v1/games/{gid}/hints", json={"on": True}, headers={"X-Player-Token": token})
                    assert h.status_code == 200 and h.json()["status"] == "thinking", h.text
                    t = api.post(f"/api/v1/games/{gid}/settings", json={"think_ms": 1500},
                                 headers={"X-Player-Token": token})
                    assert t.status_code == 200, t.text
                    changed = True
            elif m["type"] == "state" and m["state"]["ply"] == 6:
                final = m["state"]
                break
    assert depths == sorted(set(depths)), f"the search started again: depths {depths}"
    assert final["hints_on"] is True and final["think_ms"] == 1500 and final["last_search"]["depth"] == depths[-1]


def test_bridge_against_the_engine(gateway):
    b = BridgeClient(gateway.bridge_port)
    try:
        s = b.send({"cmd": "new", "engine_starts": True})
        assert s["human"] == "yellow" and len(s["history"]) == 1 and s["status"] == "human_to_move"
        assert s["to_move"] == "yellow"
        assert set(s["last_search"]) >= {"col", "score", "depth", "nodes", "millis"}
        while isinstance(s["status"], str) and s["status"] == "human_to_move":
            col = next(c + 1 for c in (3, 2, 4, 1, 5, 0, 6) if s["rows"][0][c] == ".")
            s2 = b.send({"cmd": "move", "col": col})
            assert "error" not in s2, s2
            assert len(s2["history"]) in (len(s["history"]) + 1, len(s["history"]) + 2)
            s = s2
        assert s["status"] == "draw" or s["status"] in ({"won": "human"}, {"won": "engine"})
        over = b.send({"cmd": "move", "col": 1})
        assert over["error"].startswith("illegal move (") and "state" in over
        r = b.send({"cmd": "replay", "moves": [4, 4, 3], "engine_starts": False})
        assert r["history"][:3] == [4, 4, 3] and len(r["history"]) == 4 and r["status"] == "human_to_move"
    finally:
        b.close()


def test_mcp_move_returns_the_board_after_the_engines_reply(gateway, pons_sets):
    from mcp import Client

    async def go():
        async with Client(f"{gateway.url}/mcp") as mcp:
            r = await mcp.call_tool("connect4_new", {"engine_starts": False, "game": "e1", "allow_analysis": True})
            assert not r.is_error
            m = await mcp.call_tool("connect4_move", {"col": 4, "game": "e1"})
            assert not m.is_error, _texts(m)
            state = m.structured_content
            assert len(state["history"]) == 2 and state["to_move"] == "red" and state["your_turn"]
            rows = _texts(m)[0].splitlines()[1:7]
            assert rows[5].split(" ").count("R") == 1 and sum(r.count("Y") for r in rows) == 1
            # An endgame (Pons' set) so the solver proves it at once: set up through REST, then
            # taken into the agent's namespace with the game's player token.
            made = httpx.post(f"{gateway.url}/api/v1/games", json={"opponent": "random"}, timeout=60).json()
            moves = (pons_sets / "Test_L3_R1").read_text().split()[0]
            httpx.post(f"{gateway.url}/api/v1/games/{made['state']['id']}/replay", json={"moves": moves[:-1]},
                       headers={"X-Player-Token": made["token"]}, timeout=60).raise_for_status()
            j = await mcp.call_tool("connect4_join", {"game_id": made["state"]["id"], "token": made["token"],
                                                      "game": "e2"})
            assert not j.is_error, _texts(j)
            a = await mcp.call_tool("connect4_analyze", {"game": "e2"})
            assert not a.is_error, _texts(a)
            text = _texts(a)[0]
            assert "column 1: " in text and ("win in" in text or "loss in" in text or "draw" in text)
            assert len(a.structured_content["columns"]) == 7

    asyncio.run(go())


def test_twenty_clients_against_the_engine(api, gateway):
    import concurrent.futures as cf

    gid, token, _ = create(api, opponent="random")
    with cf.ThreadPoolExecutor(20) as pool, httpx.Client(base_url=gateway.url, timeout=60,
                                                         limits=httpx.Limits(max_connections=40)) as shared:
        for _ in range(3):
            state = shared.get(f"/api/v1/games/{gid}").json()
            if state["status"] == "over":
                break
            # Every client sends the version it saw: all are moves for the same turn. (Without it a
            # request that arrives after the engine's fast answer is simply the next turn.)
            results = list(pool.map(lambda c, seen=state["version"]: move(shared, gid, token, c, version=seen),
                                    [legal(state)] * 10 + [1 + i % 7 for i in range(10)]))
            ok = [r for r in results if r.status_code == 200]
            assert len(ok) == 1
            assert all(error_of(r) in ("conflict", "not_your_turn", "full_column") for r in results
                       if r.status_code != 200)
    final = api.get(f"/api/v1/games/{gid}").json()
    assert final["ply"] % 2 == 0 or final["status"] == "over"
    reds = sum(row.count("R") for row in final["rows"])
    yellows = sum(row.count("Y") for row in final["rows"])
    assert reds - yellows in (0, 1) and reds + yellows == final["ply"]


# -- processes going away ------------------------------------------------------------

@pytest.fixture
def own_engine(redis_server):
    svc = Service("engine-own", "engine_svc", "C4_ENGINE_", redis_server.url).start()
    yield svc
    svc.stop()


def test_engine_down_then_back(redis_server, own_engine, solver_service):
    gw = Gateway(redis_server.db(4), own_engine.addr, solver_service.addr, name="gateway-engine-down").start()
    try:
        with httpx.Client(base_url=gw.url, timeout=60) as api:
            gid, token, _ = create(api, opponent="random")
            assert move(api, gid, token, 4).json()["ply"] == 2
            own_engine.stop()
            r = move(api, gid, token, 4)
            assert r.status_code == 503 and error_of(r) == "service_unavailable"
            assert r.json()["state"]["ply"] == 3  # our move is kept
            assert api.get("/readyz").status_code == 503
            own_engine.start()  # same port
            state = poll(api, gid, lambda s: s["ply"] == 4)
            assert state["ply"] == 4 and state["status"] == "to_move"  # the engine answered once it was back
            r = move(api, gid, token, 3)
            assert r.status_code == 200 and r.json()["ply"] == 6
            assert poll(api, gid, lambda s: False, timeout=0)["ply"] == 6
    finally:
        gw.stop()


def test_gateway_restart_and_crash_mid_think(redis_server, engine_service, solver_service):
    gw = Gateway(redis_server.url, engine_service.addr, solver_service.addr, name="gateway-restart").start()
    other = None
    try:
        with httpx.Client(base_url=gw.url, timeout=60) as api:
            gid, token, _ = create(api, opponent="random")
            for col in (4, 3):
                assert move(api, gid, token, col).status_code == 200
            before = api.get(f"/api/v1/games/{gid}").json()
        gw.restart()  # a clean restart: nothing is lost
        with httpx.Client(base_url=gw.url, timeout=60) as api:
            after = api.get(f"/api/v1/games/{gid}").json()
            assert after == {**before, "watch_url": after["watch_url"]}
            assert move(api, gid, token, 5).json()["ply"] == 6
            # A crash while the engine thinks: another gateway finishes the turn.
            g2, t2, _ = create(api, opponent="engine", think_ms=2000)
            assert move(api, g2, t2, 4, wait=False).json()["status"] == "thinking"
        gw.kill()
        other = Gateway(redis_server.url, engine_service.addr, solver_service.addr, name="gateway-other").start()
        with httpx.Client(base_url=other.url, timeout=60) as api:
            state = poll(api, g2, lambda s: s["ply"] == 2)
            assert state["ply"] == 2 and state["status"] == "to_move"
            assert api.get(f"/api/v1/games/{gid}").json()["ply"] == 6
    finally:
        gw.stop()
        if other:
            other.stop()


def test_two_gateways_play_each_turn_once(redis_server, engine_service, solver_service):
    a = Gateway(redis_server.url, engine_service.addr, solver_service.addr, name="gateway-a").start()
    b = Gateway(redis_server.url, engine_service.addr, solver_service.addr, name="gateway-b").start()
    try:
        with httpx.Client(base_url=a.url, timeout=60) as ca, httpx.Client(base_url=b.url, timeout=60) as cb:
            games = []
            for i in range(6):
                c = (ca, cb)[i % 2]
                gid, token, _ = create(c, opponent="random")
                games.append((gid, token))
                # The turn is pending in Redis for both gateways; whoever claims it plays it.
                assert move(c, gid, token, 4, wait=False).status_code == 200
            for gid, token in games:
                state = poll(ca, gid, lambda s: s["ply"] >= 2)
                assert state["ply"] == 2 and state["version"] == 3  # create, our move, one answer
                # and a waiting move through the other gateway works too
                assert move(cb, gid, token, 3).json()["ply"] == 4
    finally:
        a.stop()
        b.stop()


def test_perfect_falls_back_to_the_engine_when_it_cannot_prove(api):
    # 60 ms: the first answers come from the books; off them, at 5 stones, the solver
    # cannot prove its move in time, so the engine's move is played for that turn and
    # marked so.
    gid, token, _ = create(api, opponent="perfect", think_ms=60)
    r = move(api, gid, token, 1)
    assert r.status_code == 200, r.text
    state = r.json()
    assert state["ply"] == 2 and state["moves"][1] == 4  # b and d both keep the win: d, nearer the centre
    ls = state["last_search"]
    assert ls["source"] == "solver" and ls["proven"] is True and ls["book"] is True
    # a win by 2 for the second player: its 20th stone, ply 40, 39 plies from here
    assert (ls["score"], ls["outcome"], ls["plies_to_end"], ls["verdict"]) == (2, "win", 39, "win in 20")
    r = move(api, gid, token, 1)  # 3 stones: every position to 3 stones is booked
    assert r.status_code == 200, r.text
    assert r.json()["last_search"]["book"] is True
    # every position of the second player's first seven moves is booked now: off them,
    # 5 stones (the perfect player's answer to 1 1 1 1 1 needs tens of seconds), no proof in 60 ms
    r = api.post(f"/api/v1/games/{gid}/replay", json={"moves": OFF_BOOK}, headers={"X-Player-Token": token})
    assert r.status_code == 200, r.text
    r = move(api, gid, token, 1)
    assert r.status_code == 200, r.text
    state = r.json()
    ls = state["last_search"]
    assert state["ply"] == 6 and ls["source"] == "engine_fallback"
    assert "perfect could not prove" in ls["message"] and state["message"] == ls["message"]


def test_bench_gateway_prints_its_figures(gateway):
    import subprocess
    import sys

    from tests.conftest import REPO

    out = subprocess.run([sys.executable, "-m", "c4.main", "bench", "gateway", "--url", gateway.url,
                          "--bridge", f"127.0.0.1:{gateway.bridge_port}", "--games", "2", "--seconds", "1",
                          "--json"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    assert {"moves_per_s", "p50_ms", "p99_ms"} <= set(figures)
    for run in ("rest", "bridge"):
        assert figures[run]["errors"] == 0 and figures[run]["requests"] > 0
        assert figures[run]["moves"] >= figures[run]["requests"]  # each request: our move and usually the answer


def test_request_id_reaches_the_engine(api):
    from tests.gateway.conftest import LOGS

    gid, token, _ = create(api, opponent="random")
    r = api.post(f"/api/v1/games/{gid}/moves", json={"column": 4},
                 headers={"X-Player-Token": token, "x-request-id": f"rid-{gid}"})
    assert r.status_code == 200 and r.headers["x-request-id"] == f"rid-{gid}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        lines = [json.loads(x) for x in (LOGS / "engine.log").read_text().splitlines() if x.startswith("{")]
        if any(x.get("request_id") == f"rid-{gid}" for x in lines):
            break
        time.sleep(0.2)
    else:
        raise AssertionError("the engine's log never saw the gateway's request id")
    # The gateway's own line for the request carries the same id, its route template and status.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        lines = [json.loads(x) for x in (LOGS / "gateway.log").read_text().splitlines() if x.startswith("{")]
        mine = [x for x in lines if x.get("request_id") == f"rid-{gid}" and x.get("msg") == "request"]
        if mine:
            assert mine[0]["route"] == "/api/v1/games/{game_id}/moves" and mine[0]["status"] == 200
            assert mine[0]["ms"] > 0
            break
        time.sleep(0.2)
    else:
        raise AssertionError("the gateway logged no line for the request")
    api.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
             headers={"Accept": "application/json, text/event-stream"})
    assert 'route="/mcp"' in api.get("/metrics").text  # MCP requests are labelled by their route
