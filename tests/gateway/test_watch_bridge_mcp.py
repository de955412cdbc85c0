"""WebSocket watchers, the bridge's protocol and errors, and the MCP endpoint
(through the SDK's own client over HTTP and through ``c4 mcp-stdio``), on a
gateway whose engine and solver are down (what needs them is in test_services)."""

from __future__ import annotations

import asyncio
import json
import socket
import sys

import httpx
import pytest
from websockets.sync.client import connect as ws_connect

from tests.gateway.helpers import new_pvp, play


class BridgeClient:
    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.file = self.sock.makefile("rwb")

    def raw(self, line: bytes) -> dict:
        self.file.write(line + b"\n")
        self.file.flush()
        return json.loads(self.file.readline())

    def send(self, msg: dict) -> dict:
        return self.raw(json.dumps(msg).encode())

    def close(self):
        self.file.close()
        self.sock.close()


@pytest.fixture
def bridge(bare_gateway):
    """A connection at the table (the bridge's one shared game), with a new game on it."""
    c = BridgeClient(bare_gateway.bridge_port)
    c.send({"cmd": "new", "engine_starts": False})
    yield c
    c.close()


def test_websocket_state_on_connect_then_every_move(client, bare_gateway):
    gid, red, yellow = new_pvp(client)
    url = f"ws://127.0.0.1:{bare_gateway.port}/api/v1/games/{gid}/ws"
    with ws_connect(url, open_timeout=10) as ws:
        first = json.loads(ws.recv(timeout=10))
        assert first["type"] == "state" and first["state"]["id"] == gid and first["state"]["moves"] == []
        play(client, gid, red, 4)
        play(client, gid, yellow, 3)
        seen = [json.loads(ws.recv(timeout=10)) for _ in range(2)]
        assert [m["state"]["moves"] for m in seen] == [[4], [4, 3]]
        assert all(m["state"]["you"] is None for m in seen)
        client.post(f"/api/v1/games/{gid}/undo", headers={"X-Player-Token": yellow})
        assert json.loads(ws.recv(timeout=10))["state"]["moves"] == [4]
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(timeout=10)) == {"type": "pong"}
    with ws_connect(f"ws://127.0.0.1:{bare_gateway.port}/api/v1/games/nope/ws", open_timeout=10) as ws:
        msg = json.loads(ws.recv(timeout=10))
        assert msg["type"] == "error" and msg["error"]["code"] == "unknown_game"


def test_a_watcher_of_a_game_gone_meanwhile_is_told_and_closed(client, bare_gateway, redis_server):
    """The game expires while watched, and the watcher reloads it (messages were lost:
    here the hub's pub/sub connection is killed): it gets `unknown_game` and the 4404
    close, as on connect (it was dropped without a close frame)."""
    import redis
    from websockets.exceptions import ConnectionClosed

    gid, _red, _yellow = new_pvp(client)
    with ws_connect(f"ws://127.0.0.1:{bare_gateway.port}/api/v1/games/{gid}/ws", open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
        with redis.Redis.from_url(redis_server.db(1)) as r:
            assert r.delete(f"c4:game:{gid}") == 1  # as the idle TTL does
            r.client_kill_filter(_type="pubsub")
        said = json.loads(ws.recv(timeout=30))
        assert said["type"] == "error" and said["error"]["code"] == "unknown_game", said
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=30)
        assert ws.close_code == 4404


def test_a_binary_frame_is_refused_and_the_socket_stays(client, bare_gateway):
    gid, red, _ = new_pvp(client)
    with ws_connect(f"ws://127.0.0.1:{bare_gateway.port}/api/v1/games/{gid}/ws", open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
        ws.send(b"\x00\x01binary")
        err = json.loads(ws.recv(timeout=10))
        assert err["type"] == "error" and err["error"]["code"] == "bad_request"
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(timeout=10)) == {"type": "pong"}
        play(client, gid, red, 4)
        assert json.loads(ws.recv(timeout=10))["state"]["moves"] == [4]


def _pubsub_clients(redis_server) -> int:
    import redis

    r = redis.Redis.from_url(redis_server.url)
    try:
        return len(r.client_list(_type="pubsub"))
    finally:
        r.close()


def test_hundreds_of_watchers_share_one_redis_connection(client, bare_gateway, redis_server):
    """Watchers do not each take a connection from the pool every request shares:
    with 300 of them open, requests still work and Redis sees one more subscriber."""
    from websockets.asyncio.client import connect as aconnect

    gid, red, yellow = new_pvp(client)
    other, _, _ = new_pvp(client)
    base = f"ws://127.0.0.1:{bare_gateway.port}/api/v1/games"
    before = _pubsub_clients(redis_server)

    async def watchers():
        socks = []
        try:
            for i in range(300):
                ws = await aconnect(f"{base}/{gid if i % 3 else other}/ws", open_timeout=30)
                socks.append(ws)
                assert json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] == "state"
            during = await asyncio.to_thread(_pubsub_clients, redis_server)
            assert during <= before + 1, (before, during)
            r = await asyncio.to_thread(play, client, gid, red, 4)
            assert r.status_code == 200, r.text  # the shared pool is not exhausted
            made = await asyncio.to_thread(client.post, "/api/v1/games", json={"opponent": "human"})
            assert made.status_code == 201, made.text
            for i, ws in enumerate(socks):
                if i % 3:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    assert msg["state"]["moves"] == [4]
        finally:
            for ws in socks:
                await ws.close()

    asyncio.run(watchers())


def test_bridge_errors_keep_the_connection_and_the_game(bridge, bare_gateway):
    bridge.send({"cmd": "new"})
    assert bridge.raw(b"{not json").get("error", "").startswith("bad json: ")
    assert bridge.send({"cmd": "dance"}) == {"error": "unknown cmd, use state | move | new | hints | replay"}
    assert bridge.raw(b"[1,2]") == {"error": "unknown cmd, use state | move | new | hints | replay"}  # as serde reads it
    assert bridge.send({"nocmd": 1}) == {"error": "unknown cmd, use state | move | new | hints | replay"}
    s = bridge.send({"cmd": "state"})
    assert s["status"] == "human_to_move" and s["human"] == "red" and s["to_move"] == "red"
    assert s["rows"] == ["......."] * 6 and s["history"] == [] and s["last_search"] is None
    assert s["watch_url"] == f"{bare_gateway.url}/tables/bridge-{bare_gateway.bridge_port}"
    assert s["game_url"] == f"{bare_gateway.url}/?game={s['game']}"
    for bad in (0, 8, "x", None, 2.5, True, "4", "d"):
        assert bridge.send({"cmd": "move", "col": bad}) == {"error": "col must be 1..7"}
    assert bridge.send({"cmd": "move"}) == {"error": "col must be 1..7"}
    # A position where yellow (the engine's seat) is to move after a replay would need the
    # engine; replay with an even number of moves leaves the human to move.
    r = bridge.send({"cmd": "replay", "moves": [4, 4, 4, 4, 4, 4], "engine_starts": False})
    assert r["history"] == [4] * 6 and r["status"] == "human_to_move"
    assert r["rows"][0] == "...Y..." and r["rows"][-1] == "...R..."
    full = bridge.send({"cmd": "move", "col": 4})
    assert full["error"] == "illegal move (status HumanToMove, column full or not your turn)"
    assert full["state"]["history"] == [4] * 6
    assert bridge.send({"cmd": "replay", "moves": [1, 9]}) == {"error": "replay needs moves: array of columns 1..7"}
    h = bridge.send({"cmd": "hints", "on": True})
    assert h["hints"] == {"next_row": [1, 1, 1, None, 1, 1, 1], "winning_moves": [], "must_block": [],
                          "losing_moves": []}
    assert bridge.send({"cmd": "hints", "on": "yes"})["hints"] == h["hints"]  # ignored, as in Connect4-rs
    assert bridge.send({"cmd": "state"})["history"] == [4] * 6  # intact after all of that


def test_bridge_attach_and_watch(bridge, client, bare_gateway):
    gid, red, yellow = new_pvp(client)
    assert bridge.send({"cmd": "attach", "game": gid, "token": "wrong"})["error"].startswith("bad token")
    assert bridge.send({"cmd": "attach", "game": "nope", "token": red})["error"].startswith("unknown game")
    bridge.send({"cmd": "state"})  # the connection plays the table's game
    made = client.post("/api/v1/games", json={"opponent": "human"}).json()
    assert client.post(f"/api/v1/games/{made['state']['id']}/join", json={"invite": made["invite"]}).status_code == 200
    used = bridge.send({"cmd": "attach", "game": made["state"]["id"], "invite": made["invite"]})
    assert used["error"].startswith("invite used") and "state" not in used  # not the connection's own game
    a = bridge.send({"cmd": "attach", "game": gid, "token": yellow})
    assert a["game"] == gid and a["human"] == "yellow" and a["status"] == "thinking"
    play(client, gid, red, 5)
    s = bridge.send({"cmd": "state"})
    assert s["status"] == "human_to_move" and s["history"] == [5]
    # The bridge's game is the REST game: a move here shows there.
    other = BridgeClient(bare_gateway.bridge_port)
    try:
        other.send({"cmd": "attach", "game": gid, "token": red})
        turn = other.send({"cmd": "move", "col": 1})
        assert turn["error"] == "illegal move (status Thinking, column full or not your turn)"
    finally:
        other.close()
    # Yellow moves through the bridge: red (a person) is to move now.
    m = bridge.send({"cmd": "move", "col": 5})
    assert m["history"] == [5, 5] and m["status"] == "thinking"
    assert client.get(f"/api/v1/games/{gid}").json()["moves"] == [5, 5]


def _texts(result) -> list[str]:
    return [c.text for c in result.content]


def test_mcp_over_http(bare_gateway):
    from mcp import Client

    async def go():
        async with Client(f"{bare_gateway.url}/mcp") as mcp:
            tools = {t.name: t for t in (await mcp.list_tools()).tools}
            assert {"connect4_new", "connect4_move", "connect4_state", "connect4_hints", "connect4_analyze",
                    "connect4_undo", "connect4_resign", "connect4_opponents", "connect4_join"} <= set(tools)
            for t in tools.values():
                assert t.output_schema and t.title and t.annotations is not None, t.name
            assert tools["connect4_state"].annotations.read_only_hint is True
            col = tools["connect4_move"].input_schema["properties"]["col"]
            assert (col["minimum"], col["maximum"], col["type"]) == (1, 16, "integer") and col["description"]
            r = await mcp.call_tool("connect4_new", {"engine_starts": False, "game": "mcp-a"})
            assert not r.is_error, _texts(r)
            text = _texts(r)[0].splitlines()
            assert text[0] == "Your move." and text[-2] == "1 2 3 4 5 6 7" and text[-3] == ". . . . . . ."
            state = r.structured_content
            assert state["status"] == "your_move" and state["your_color"] == "red" and state["game"] == "mcp-a"
            assert state["watch_url"] == f"{bare_gateway.url}/?game={state['game_id']}" and state["allow_analysis"]
            h = await mcp.call_tool("connect4_hints", {"on": True, "game": "mcp-a"})
            assert "hints:" in _texts(h)[0] and h.structured_content["hints"]["next_row"] == [1] * 7
            # A second game under another name, the first is untouched.
            r2 = await mcp.call_tool("connect4_new", {"engine_starts": False, "game": "mcp-b"})
            assert r2.structured_content["game_id"] != state["game_id"]
            s = await mcp.call_tool("connect4_state", {"game": "mcp-a"})
            assert s.structured_content["game_id"] == state["game_id"]
            bad = await mcp.call_tool("connect4_move", {"col": 9, "game": "mcp-a"})
            assert bad.is_error and _texts(bad)[0].startswith("Column 9 is off the board (1..7).")  # the game's own limit
            for wrong in (True, "4", 4.0):
                flag = await mcp.call_tool("connect4_move", {"col": wrong, "game": "mcp-a"})
                assert flag.is_error and "col must be a whole number 1..16" in _texts(flag)[0], wrong
                assert "pydantic" not in _texts(flag)[0]
            for args in ({"on": "yes"}, {"on": 1}, {"on": "false"}):  # a flag is JSON true or false
                word = await mcp.call_tool("connect4_hints", {**args, "game": "mcp-a"})
                assert word.is_error and "on must be true or false" in _texts(word)[0], args
            word = await mcp.call_tool("connect4_new", {"engine_starts": "true", "game": "mcp-c"})
            assert word.is_error and "engine_starts must be true or false" in _texts(word)[0]
            return state["game_id"]

    gid = asyncio.run(go())
    game = httpx.get(f"{bare_gateway.url}/api/v1/games/{gid}").json()
    assert game["hints_on"] is True and game["moves"] == []
    # Stateless: no GET stream to hang on; the spec's 405 at once.
    got = httpx.get(f"{bare_gateway.url}/mcp", headers={"Accept": "text/event-stream"}, timeout=10)
    assert got.status_code == 405 and got.headers["allow"] == "POST"


def test_a_new_game_over_the_bridge_or_mcp_points_the_old_one_at_it(bridge, bare_gateway):
    """Watchers of an agent's game can follow it into its next one."""
    from mcp import Client

    first = bridge.send({"cmd": "new", "engine_starts": False})
    second = bridge.send({"cmd": "new", "engine_starts": False})
    old = httpx.get(f"{bare_gateway.url}/api/v1/games/{first['game']}").json()
    assert old["next_game"] == second["game"] and old["moves"] == []
    assert httpx.get(f"{bare_gateway.url}/api/v1/games/{second['game']}").json()["next_game"] is None

    async def agent():
        async with Client(f"{bare_gateway.url}/mcp") as mcp:
            a = (await mcp.call_tool("connect4_new", {"game": "next-a"})).structured_content["game_id"]
            b = (await mcp.call_tool("connect4_new", {"game": "next-a"})).structured_content["game_id"]
            return a, b

    a, b = asyncio.run(agent())
    assert a != b and httpx.get(f"{bare_gateway.url}/api/v1/games/{a}").json()["next_game"] == b


def test_mcp_stdio_bridges_to_the_gateway(bare_gateway):
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "c4.main", "mcp-stdio", "--url",
                                                                 f"{bare_gateway.url}/mcp"],
                                   env={**__import__("os").environ})

    async def go():
        async with Client(params) as mcp, Client(f"{bare_gateway.url}/mcp") as http:
            assert mcp.server_info.name == "connect4" and mcp.server_info.version == http.server_info.version
            assert mcp.instructions == http.instructions and "connect4_move" in mcp.instructions
            assert mcp.protocol_version == http.protocol_version
            tools = {t.name: t for t in (await mcp.list_tools()).tools}
            assert tools["connect4_move"].output_schema == {t.name: t for t in (await http.list_tools()).tools}[
                "connect4_move"].output_schema
            r = await mcp.call_tool("connect4_new", {"game": "stdio-game"})
            assert not r.is_error, _texts(r)
            assert r.structured_content["status"] == "your_move"
            # one upstream session for the process's life: the same namespace call after call
            for _ in range(3):
                s = await mcp.call_tool("connect4_state", {"game": "stdio-game"})
                assert s.structured_content["game_id"] == r.structured_content["game_id"]
            other = await http.call_tool("connect4_state", {"game": "stdio-game"})
            assert other.structured_content["game_id"] != r.structured_content["game_id"]  # another client
            bad = await mcp.call_tool("connect4_move", {"col": 0, "game": "stdio-game"})
            assert bad.is_error and "col must be a whole number 1..16" in _texts(bad)[0]
            assert (await mcp.read_resource("connect4://game/stdio-game")).contents[0].text
            assert [p.name for p in (await mcp.list_prompts()).prompts] == ["play_a_game"]

    asyncio.run(go())


def test_two_agents_play_each_other_over_mcp_and_the_bridge(bare_gateway, client):
    from mcp import Client

    async def go():
        async with Client(f"{bare_gateway.url}/mcp") as mcp:
            r = await mcp.call_tool("connect4_new", {"game": "duel", "opponent": "human"})
            assert not r.is_error, _texts(r)
            note = _texts(r)[0].splitlines()[0]
            assert "connect4_join(" in note
            state = r.structured_content
            assert state["invite"] in note and state["status"] == "waiting_for_player"
            return state["game_id"], state["invite"]

    gid, invite = asyncio.run(go())

    async def join_and_move():
        async with Client(f"{bare_gateway.url}/mcp") as yellow:
            j = await yellow.call_tool("connect4_join", {"game_id": gid, "invite": invite, "game": "duel"})
            assert not j.is_error, _texts(j)
            assert j.structured_content["your_color"] == "yellow"
            assert _texts(j)[0].startswith("Not your turn: the other player is to move.")
            m2 = await yellow.call_tool("connect4_move", {"col": 4, "game": "duel"})  # red has not moved
            assert m2.is_error and _texts(m2)[0].startswith("Not your turn")
            assert m2.structured_content["error"]["code"] == "not_your_turn"
            again = await yellow.call_tool("connect4_join", {"game_id": gid, "invite": invite, "game": "x"})
            assert again.is_error and "invite_used" in _texts(again)[0]

    asyncio.run(join_and_move())
    # The bridge joins a person's game through its invite the same way.
    created = client.post("/api/v1/games", json={"opponent": "human"}).json()
    b = BridgeClient(bare_gateway.bridge_port)
    try:
        a = b.send({"cmd": "attach", "game": created["state"]["id"], "invite": created["invite"]})
        assert a["human"] == "yellow" and a["game"] == created["state"]["id"] and a["token"]
        assert b.send({"cmd": "attach", "game": created["state"]["id"], "invite": created["invite"]})["error"]
    finally:
        b.close()


def test_mcp_calls_at_once_on_a_new_name_share_one_game(bare_gateway):
    """An agent firing tool calls in parallel on a name that has no game yet: every
    call plays the same game, and no orphan is left."""
    from mcp import Client

    async def go():
        async with Client(f"{bare_gateway.url}/mcp") as mcp:
            results = await asyncio.gather(*(mcp.call_tool("connect4_state", {"game": "parallel-first-calls"})
                                             for _ in range(10)))
            assert not any(r.is_error for r in results), [_texts(r) for r in results]
            return [r.structured_content["game_id"] for r in results]

    ids = asyncio.run(go())
    assert len(set(ids)) == 1, ids
