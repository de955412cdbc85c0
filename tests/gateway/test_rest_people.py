"""REST between two people (no engine needed): every bad input gets its clear
error and leaves the game intact; 20 clients at once leave a consistent game."""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import json

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect

from tests.gateway.helpers import error_of, new_pvp, play


def test_create_join_play_and_win(client):
    r = client.post("/api/v1/games", json={"opponent": "human"})
    created = r.json()
    gid = created["state"]["id"]
    assert created["state"]["status"] == "to_move"
    assert created["state"]["seats"]["yellow"]["joined"] is False
    assert created["invite_url"].endswith(f"/?game={gid}&invite={created['invite']}")
    assert created["watch_url"].endswith(f"/?game={gid}")
    red = created["token"]
    # Red moves, then yellow's seat is still open.
    assert play(client, gid, red, "d").json()["status"] == "waiting_for_player"
    j = client.post(f"/api/v1/games/{gid}/join", json={"invite": created["invite"]})
    yellow = j.json()["token"]
    assert j.json()["seat"] == "yellow"
    again = client.post(f"/api/v1/games/{gid}/join", json={"invite": created["invite"]})
    assert again.status_code == 409 and error_of(again) == "invite_used"
    # red: d d d d ; yellow: a b c
    for col, tok in [("a", yellow), (4, red), (2, yellow), ("4", red), (3, yellow)]:
        assert play(client, gid, tok, col).status_code == 200
    final = play(client, gid, red, 4).json()
    assert final["status"] == "over"
    assert final["result"] == {"winner": "red", "reason": "line"}
    assert final["winning_cells"] == [[4, 1], [4, 2], [4, 3], [4, 4]]
    assert final["rows"][-1] == "YYYR..."
    assert final["moves"] == [4, 1, 4, 2, 4, 3, 4]
    assert final["last_move"] == {"column": 4, "row": 4, "color": "red"}
    over = play(client, gid, yellow, 5)
    assert over.status_code == 409 and error_of(over) == "game_over"
    assert over.json()["state"]["moves"] == final["moves"]


@pytest.mark.parametrize("body,code,status", [
    ({"column": 8}, "illegal_column", 400),
    ({"column": 0}, "illegal_column", 400),
    ({"column": "z"}, "illegal_column", 400),
    ({"column": None}, "bad_request", 400),
    ({}, "bad_request", 400),
    ({"column": True}, "bad_request", 400),  # JSON true is not column 1
    ({"column": 3.0}, "bad_request", 400),
    ({"column": [3]}, "bad_request", 400),
    ({"column": 3, "version": True}, "bad_request", 400),
    ({"column": 3, "wait": "yes"}, "bad_request", 400),
    ({"column": 4, "version": 99}, "conflict", 409),
])
def test_bad_moves_leave_the_game_intact(client, body, code, status):
    gid, red, yellow = new_pvp(client)
    play(client, gid, red, 4)
    before = client.get(f"/api/v1/games/{gid}").json()
    r = client.post(f"/api/v1/games/{gid}/moves", json=body, headers={"X-Player-Token": yellow})
    assert r.status_code == status, r.text
    assert error_of(r) == code
    after = client.get(f"/api/v1/games/{gid}").json()
    assert after["moves"] == before["moves"] == [4]
    assert after["version"] == before["version"]
    assert play(client, gid, yellow, 3).status_code == 200  # the game goes on


def test_every_kind_of_refusal(client):
    gid, red, yellow = new_pvp(client)
    bad_json = client.post(f"/api/v1/games/{gid}/moves", content=b'{"column": 4',
                           headers={"X-Player-Token": red, "content-type": "application/json"})
    assert bad_json.status_code == 400 and error_of(bad_json) == "bad_request"
    assert "JSON" in bad_json.json()["error"]["message"]
    no_token = client.post(f"/api/v1/games/{gid}/moves", json={"column": 4})
    assert no_token.status_code == 403 and error_of(no_token) == "bad_token"
    wrong = play(client, gid, "not-a-token", 4)
    assert wrong.status_code == 403 and error_of(wrong) == "bad_token"
    turn = play(client, gid, yellow, 4)
    assert turn.status_code == 409 and error_of(turn) == "not_your_turn"
    unknown = play(client, "nosuchgame", red, 4)
    assert unknown.status_code == 404 and error_of(unknown) == "unknown_game"
    assert client.get("/api/v1/games/nosuchgame").status_code == 404
    # Fill column 1 and try once more.
    for i in range(6):
        assert play(client, gid, red if i % 2 == 0 else yellow, 1).status_code == 200
    full = play(client, gid, red, 1)
    assert full.status_code == 400 and error_of(full) == "full_column"
    assert "full" in full.json()["error"]["message"]
    nothing = client.post(f"/api/v1/games/{gid}/hints", json={"on": "maybe"}, headers={"X-Player-Token": red})
    assert nothing.status_code == 400 and error_of(nothing) == "bad_request"
    state = client.get(f"/api/v1/games/{gid}").json()
    assert state["moves"] == [1] * 6 and state["to_move"] == "red"
    assert play(client, gid, red, 2).status_code == 200
    assert client.get("/api/v1/no/such/route").json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("body", [
    {"width": True}, {"height": "6"}, {"k": 4.5}, {"hints": "yes"}, {"engine_starts": 1},
    {"think_ms": False}, {"allow_analysis": "false"}, {"opponent": 5},
])
def test_create_takes_json_types_as_documented(client, body):
    r = client.post("/api/v1/games", json={"opponent": "human", **body})
    assert r.status_code == 400 and error_of(r) == "bad_request", r.text
    assert next(iter(body)) in r.json()["error"]["message"]


def test_flags_and_numbers_of_a_running_game_are_checked(client):
    gid, red, _ = new_pvp(client)
    for route, body in (("hints", {"on": "yes"}), ("hints", {"on": 1}), ("settings", {"think_ms": True}),
                        ("settings", {"think_ms": "500"}), ("join", {"invite": 7})):
        r = client.post(f"/api/v1/games/{gid}/{route}", json=body, headers={"X-Player-Token": red})
        assert r.status_code == 400 and error_of(r) == "bad_request", (route, body, r.text)
    assert client.get(f"/api/v1/games/{gid}").json()["hints_on"] is False


def test_a_huge_body_is_refused_before_it_is_read(client):
    gid, red, _ = new_pvp(client)
    big = b'{"moves": "' + b"4" * (2 << 20) + b'"}'
    r = client.post(f"/api/v1/games/{gid}/replay", content=big,
                    headers={"X-Player-Token": red, "Content-Type": "application/json"})
    assert r.status_code == 413 and error_of(r) == "too_large"

    def chunks():  # no Content-Length: counted as it arrives
        yield b'{"moves": "'
        for _ in range(40):
            yield b"4" * 65536
        yield b'"}'

    r = client.post(f"/api/v1/games/{gid}/replay", content=chunks(),
                    headers={"X-Player-Token": red, "Content-Type": "application/json"})
    assert r.status_code == 413 and error_of(r) == "too_large"
    assert client.get(f"/api/v1/games/{gid}").json()["moves"] == []
    assert play(client, gid, red, 4).status_code == 200


def test_undo_hints_and_replay(client):
    gid, red, yellow = new_pvp(client)
    for col, tok in [(4, red), (4, yellow), (5, red)]:
        play(client, gid, tok, col)
    # Between people a player takes back only their own last move, before the other replied.
    r = client.post(f"/api/v1/games/{gid}/undo", headers={"X-Player-Token": yellow})
    assert r.status_code == 409 and error_of(r) == "not_allowed"
    assert r.json()["state"]["moves"] == [4, 4, 5]
    s = client.post(f"/api/v1/games/{gid}/undo", headers={"X-Player-Token": red}).json()
    assert s["moves"] == [4, 4] and s["to_move"] == "red"
    r = client.post(f"/api/v1/games/{gid}/undo", headers={"X-Player-Token": red})
    assert r.status_code == 409 and error_of(r) == "not_allowed"
    # Replay would rewrite the other player's moves too.
    r = client.post(f"/api/v1/games/{gid}/replay", json={"moves": "1 1"}, headers={"X-Player-Token": yellow})
    assert r.status_code == 409 and error_of(r) == "not_allowed"
    assert client.get(f"/api/v1/games/{gid}").json()["moves"] == [4, 4]
    # A finished game between people stays finished.
    for col, tok in [(5, red), (5, yellow), (6, red), (6, yellow), (7, red)]:
        play(client, gid, tok, col)
    r = client.post(f"/api/v1/games/{gid}/undo", headers={"X-Player-Token": red})
    assert r.status_code == 409 and error_of(r) == "game_over"

    # Before the invite is used, the creator sets a position up with replay.
    made = client.post("/api/v1/games", json={"opponent": "human"}).json()
    gid, red = made["state"]["id"], made["token"]
    s = client.post(f"/api/v1/games/{gid}/replay", json={"moves": "4 4 5 5 6"},
                    headers={"X-Player-Token": red}).json()
    assert s["moves"] == [4, 4, 5, 5, 6] and s["to_move"] == "yellow"
    yellow = client.post(f"/api/v1/games/{gid}/join", json={"invite": made["invite"]}).json()["token"]
    # Hints: red threatens on the bottom row.
    s = client.post(f"/api/v1/games/{gid}/hints", json={"on": True}, headers={"X-Player-Token": yellow}).json()
    assert s["hints_on"] is True
    assert s["hints"]["must_block"] == [3, 7]
    assert s["hints"]["next_row"] == [1, 1, 1, 3, 3, 2, 1]
    assert set(s["hints"]["losing_moves"]) == {1, 2, 3, 4, 5, 6, 7}
    # Red's own last move, not yet replied to, can be taken back.
    s = client.post(f"/api/v1/games/{gid}/undo", headers={"X-Player-Token": red}).json()
    assert s["moves"] == [4, 4, 5, 5]

    solo = client.post("/api/v1/games", json={"opponent": "human"}).json()
    gid, red = solo["state"]["id"], solo["token"]
    bad = client.post(f"/api/v1/games/{gid}/replay", json={"moves": "4 4 4 4 4 4 4"},
                      headers={"X-Player-Token": red})
    assert bad.status_code == 400 and error_of(bad) == "full_column"
    assert "move 7" in bad.json()["error"]["message"]
    assert client.get(f"/api/v1/games/{gid}").json()["moves"] == []
    notation = client.post(f"/api/v1/games/{gid}/replay", json={"moves": "x y z"}, headers={"X-Player-Token": red})
    assert notation.status_code == 400


def test_settings_changes_at_once_all_land(client):
    """Hints and think-time changes name no version, so one that loses the race to
    another change is made again on the newer game: 48 at once all answer 200 and
    each lands once (the version counts them); the move is untouched."""
    gid, red, yellow = new_pvp(client)
    before = play(client, gid, red, 4).json()["version"]

    def change(i):
        tok = red if i % 2 else yellow
        if i % 3 == 0:
            return client.post(f"/api/v1/games/{gid}/hints", json={"on": bool(i % 2)}, headers={"X-Player-Token": tok})
        return client.post(f"/api/v1/games/{gid}/settings", json={"think_ms": 100 + i}, headers={"X-Player-Token": tok})

    with cf.ThreadPoolExecutor(16) as pool:
        replies = list(pool.map(change, range(48)))
    assert [r.status_code for r in replies] == [200] * 48, [r.text for r in replies if r.status_code != 200][:1]
    after = client.get(f"/api/v1/games/{gid}").json()
    assert after["moves"] == [4] and after["version"] == before + 48


def test_a_join_while_the_creator_changes_settings(client):
    """The invited player joins while the creator toggles hints: the join lands
    (made again on the newer game) instead of answering `conflict`; a second
    join of the same invite is `invite_used`."""
    for _ in range(3):
        made = client.post("/api/v1/games", json={"opponent": "human"}).json()
        gid, red = made["state"]["id"], made["token"]

        def act(i, gid=gid, made=made, red=red):
            if i == 10:
                return client.post(f"/api/v1/games/{gid}/join", json={"invite": made["invite"]})
            return client.post(f"/api/v1/games/{gid}/hints", json={"on": bool(i % 2)}, headers={"X-Player-Token": red})

        with cf.ThreadPoolExecutor(21) as pool:
            replies = list(pool.map(act, range(21)))
        assert [r.status_code for r in replies] == [200] * 21, [r.text for r in replies if r.status_code != 200][:1]
        assert replies[10].json()["seat"] == "yellow"
        again = client.post(f"/api/v1/games/{gid}/join", json={"invite": made["invite"]})
        assert again.status_code == 409 and error_of(again) == "invite_used"


def test_unreadable_bodies_and_specs_are_bad_requests(client):
    deep = client.post("/api/v1/games", content=b"[" * 100000, headers={"content-type": "application/json"})
    assert deep.status_code == 400 and error_of(deep) == "bad_request", deep.text
    long = client.post("/api/v1/games", json={"opponent": "\u00e9" * 100000})
    assert long.status_code == 400 and error_of(long) == "bad_request"
    assert len(long.text) < 500  # the spec is not echoed back whole


def open_columns_that_do_not_end_the_game(state: dict) -> list[int]:
    """The columns (1-based) the side to move can play without filling past the
    top or completing a line, read from the state's rows (top row first)."""
    width, height, k = state["width"], state["height"], state["k"]
    grid = [list(row) for row in reversed(state["rows"])]  # grid[r][c]: r = 0 is the bottom row
    me = "R" if state["to_move"] == "red" else "Y"

    def run(c: int, r: int, dc: int, dr: int) -> int:
        n = 0
        c, r = c + dc, r + dr
        while 0 <= c < width and 0 <= r < height and grid[r][c] == me:
            n, c, r = n + 1, c + dc, r + dr
        return n

    out = []
    for c in range(width):
        r = next((r for r in range(height) if grid[r][c] == "."), None)
        if r is None:
            continue
        grid[r][c] = me
        if all(1 + run(c, r, dc, dr) + run(c, r, -dc, -dr) < k for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1))):
            out.append(c + 1)
        grid[r][c] = "."
    return out


def test_twenty_clients_at_once_leave_a_consistent_game(client, bare_gateway):
    gid, red, yellow = new_pvp(client)
    accepted = []
    with cf.ThreadPoolExecutor(20) as pool, httpx.Client(base_url=bare_gateway.url, timeout=30,
                                                         limits=httpx.Limits(max_connections=40)) as shared:
        for turn in range(8):
            token = red if turn % 2 == 0 else yellow
            before = shared.get(f"/api/v1/games/{gid}").json()
            version = before["version"]
            # Every client sends a move that is legal in the position all of them
            # read: whichever is first, the others lose only the race (409), never
            # to a full column (400 full_column) or a finished game (409 game_over)
            # that the test itself brought about. The first requests sent usually
            # win, so a fixed spread of columns would soon fill column 1.
            playable = open_columns_that_do_not_end_the_game(before)
            cols = [playable[i % len(playable)] for i in range(20)]
            futures = [pool.submit(play, shared, gid, token, c) for c in cols]
            results = [f.result() for f in futures]
            ok = [r for r in results if r.status_code == 200]
            assert len(ok) == 1, [r.text for r in results if r.status_code != 409]
            for r in results:
                if r.status_code != 200:
                    assert r.status_code == 409 and error_of(r) in ("conflict", "not_your_turn")
            state = ok[0].json()
            assert state["version"] == version + 1
            accepted.append(state["moves"][-1])
    final = client.get(f"/api/v1/games/{gid}").json()
    assert final["moves"] == accepted
    assert final["ply"] == 8
    reds = sum(row.count("R") for row in final["rows"])
    yellows = sum(row.count("Y") for row in final["rows"])
    assert (reds, yellows) == (4, 4)


def test_openapi_health_and_metrics(client):
    spec = client.get("/openapi.json").json()
    for path in ("/api/v1/games", "/api/v1/games/{game_id}/moves", "/api/v1/games/{game_id}/undo",
                 "/api/v1/games/{game_id}/hints", "/api/v1/games/{game_id}/replay",
                 "/api/v1/games/{game_id}/analysis", "/api/v1/opponents"):
        assert path in spec["paths"]
    assert client.get("/healthz").json()["status"] == "ok"
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json()["redis"] == "ok" and ready.json()["engine"].startswith("down")
    r = client.get("/api/v1/games/nope", headers={"x-request-id": "abc123"})
    assert r.headers["x-request-id"] == "abc123"
    text = client.get("/metrics").text
    assert 'gateway_http_requests_total{method="GET",route="/api/v1/games/{game_id}",status="404"}' in text
    assert "gateway_games_in_play" in text
    down = client.get("/api/v1/opponents")
    assert down.status_code == 503 and error_of(down) == "service_unavailable"


def test_web_page_static_files_and_version(client):
    from tests.conftest import REPO

    assert client.get("/healthz").json()["version"]
    if not (REPO / "web" / "index.html").exists():
        return
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert page.headers["cache-control"] == "no-cache"
    js = sorted((REPO / "web").rglob("*.js"))
    if js:
        rel = js[0].relative_to(REPO / "web").as_posix()
        r = client.get(f"/static/{rel}")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/javascript")
        assert r.headers["cache-control"] == "no-cache"
    assert client.get("/static/nope.js").status_code == 404


def test_analysis_of_an_earlier_ply_is_checked(client):
    gid, red, yellow = new_pvp(client)
    for tok in (red, yellow):  # between two people, analysis in play takes both players' yes
        assert client.post(f"/api/v1/games/{gid}/settings", json={"allow_analysis": True},
                           headers={"X-Player-Token": tok}).status_code == 200
    play(client, gid, red, 4)
    r = client.get(f"/api/v1/games/{gid}/analysis", params={"ply": 5})
    assert r.status_code == 400 and error_of(r) == "bad_request"
    down = client.get(f"/api/v1/games/{gid}/analysis", params={"ply": 0})
    assert down.status_code == 503 and error_of(down) == "service_unavailable"
    assert down.json()["state"]["moves"] == [4]


def test_games_expire_after_idle_time(redis_server):
    import time

    import redis

    from tests.gateway.conftest import DEAD, Gateway

    gw = Gateway(redis_server.db(3), DEAD, DEAD, name="gateway-ttl", C4_GATEWAY_GAME_TTL_S=3).start()
    try:
        with httpx.Client(base_url=gw.url, timeout=30) as c:
            created = c.post("/api/v1/games", json={"opponent": "human"}).json()
            gid, red = created["state"]["id"], created["token"]
            assert play(c, gid, red, 4).status_code == 200  # a change refreshes the idle time
            r = redis.Redis.from_url(redis_server.db(3))
            ttl = r.ttl(f"c4:game:{gid}")
            assert 0 < ttl <= 3
            deadline = time.monotonic() + 30  # wait for Redis to expire it (a state, not a fixed time)
            while r.exists(f"c4:game:{gid}") and time.monotonic() < deadline:
                time.sleep(0.1)
            assert not r.exists(f"c4:game:{gid}")
            gone = c.get(f"/api/v1/games/{gid}")
            assert gone.status_code == 404 and error_of(gone) == "unknown_game"
            assert play(c, gid, red, 4).status_code == 404
        # An MCP agent's game name lives as long as its game is played, not TTL seconds.
        import asyncio

        from mcp import Client

        async def agent():
            async with Client(f"{gw.url}/mcp") as mcp:
                r = await mcp.call_tool("connect4_new", {"engine_starts": False, "game": "keeps"})
                first = r.structured_content["game_id"]
                for i in range(5):  # 5 s of play against a 3 s idle time
                    await asyncio.sleep(1)
                    h = await mcp.call_tool("connect4_hints", {"on": i % 2 == 0, "game": "keeps"})
                    assert not h.is_error, h.content[0].text
                s = await mcp.call_tool("connect4_state", {"game": "keeps"})
                assert not s.is_error and s.structured_content["game_id"] == first

        asyncio.run(agent())
    finally:
        gw.stop()


def test_think_time_of_a_running_game(client):
    gid, red, yellow = new_pvp(client)
    r = client.post(f"/api/v1/games/{gid}/settings", json={"think_ms": 2500}, headers={"X-Player-Token": red})
    assert r.status_code == 200 and r.json()["think_ms"] == 2500
    for bad in (10, 70000, "fast", None):
        b = client.post(f"/api/v1/games/{gid}/settings", json={"think_ms": bad}, headers={"X-Player-Token": red})
        assert b.status_code == 400 and error_of(b) == "bad_request"
    no = client.post(f"/api/v1/games/{gid}/settings", json={"think_ms": 100})
    assert no.status_code == 403 and error_of(no) == "bad_token"
    assert client.get(f"/api/v1/games/{gid}").json()["think_ms"] == 2500


def test_redis_down_gives_503_then_the_game_is_back(tmp_path):
    from tests.conftest import RedisServer
    from tests.gateway.conftest import DEAD, Gateway

    own = RedisServer(tmp_path / "redis").start()  # appendonly: data survives a restart
    gw = Gateway(own.url, DEAD, DEAD, name="gateway-redis-down").start()
    try:
        with httpx.Client(base_url=gw.url, timeout=30) as c, contextlib.ExitStack() as stack:
            gid, red, yellow = new_pvp(c)
            assert play(c, gid, red, 4).status_code == 200
            watcher = stack.enter_context(ws_connect(f"ws://127.0.0.1:{gw.port}/api/v1/games/{gid}/ws", open_timeout=10))
            assert json.loads(watcher.recv(timeout=10))["state"]["moves"] == [4]
            own.stop()
            down = c.get(f"/api/v1/games/{gid}")
            assert down.status_code == 503 and error_of(down) == "service_unavailable"
            refused = play(c, gid, yellow, 3)
            assert refused.status_code == 503
            ready = c.get("/readyz")
            assert ready.status_code == 503 and ready.json()["redis"].startswith("down")
            # A new watcher is told why and closed as "try again later" (it was dropped
            # without a close frame).
            with ws_connect(f"ws://127.0.0.1:{gw.port}/api/v1/games/{gid}/ws", open_timeout=10) as late:
                said = json.loads(late.recv(timeout=30))
                assert said["type"] == "error" and said["error"]["code"] == "service_unavailable", said
                with pytest.raises(ConnectionClosed):
                    late.recv(timeout=30)
                assert late.close_code == 1013
            own.start()  # same port, same data folder
            # Every request after the restart works at once (dead pooled connections are
            # replaced, not reported): several, so that each pooled connection is used.
            for _ in range(5):
                back = c.get(f"/api/v1/games/{gid}")
                assert back.status_code == 200 and back.json()["moves"] == [4]
            assert play(c, gid, yellow, 3).json()["moves"] == [4, 3]
            # The watcher outlived the restart and sees the move made after it.
            seen = json.loads(watcher.recv(timeout=30))
            while seen.get("type") != "state" or seen["state"]["moves"] != [4, 3]:
                seen = json.loads(watcher.recv(timeout=30))
            # A quick restart with pooled connections open (no request in between): the
            # first requests after it must not fail on the dead connections.
            import concurrent.futures as cf

            with cf.ThreadPoolExecutor(8) as pool, httpx.Client(base_url=gw.url, timeout=30) as many:
                assert all(r.status_code == 200 for r in pool.map(
                    lambda _: many.get(f"/api/v1/games/{gid}"), range(16)))
            own.restart()
            for _ in range(12):
                r = c.get(f"/api/v1/games/{gid}")
                assert r.status_code == 200, r.text
            assert play(c, gid, red, 5).json()["moves"] == [4, 3, 5]
    finally:
        gw.stop()
        own.stop()
