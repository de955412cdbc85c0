"""The bridge as a drop-in for Connect4-rs's control socket, against the real
gateway, engine and solver over real TCP: every example of Connect4-rs's
README, and a Connect4-rs session written from its protocol
(``data/connect4rs_session.jsonl``), compared field by field; the reply's own
fields come first and in Connect4-rs's order, this gateway's after them."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import httpx
import pytest

from tests.gateway.test_learn import THREW, book, learn_gateway, learn_redis  # noqa: F401  (fixtures)
from tests.gateway.test_watch_bridge_mcp import BridgeClient

SESSION = Path(__file__).parent / "data" / "connect4rs_session.jsonl"
RS_FIELDS = ["status", "human", "to_move", "rows", "history", "last_search", "message", "resigned", "hints"]
LAST_SEARCH = {"col", "score", "depth", "nodes", "millis"}


def one_shot(port: int, line: bytes) -> dict:
    """``printf LINE | nc 127.0.0.1 PORT``: connect, send one line, read one, close."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.sendall(line + b"\n")
        s.shutdown(socket.SHUT_WR)
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return json.loads(data)


def rs_order(reply: dict) -> None:
    """Connect4-rs's fields first, in its order; ours after every one of them."""
    keys = list(reply)
    theirs = [k for k in keys if k in RS_FIELDS]
    assert theirs == [k for k in RS_FIELDS if k in reply], keys
    assert keys[:len(theirs)] == theirs, keys
    if reply.get("last_search") is not None:
        assert set(reply["last_search"]) - {"book"} == LAST_SEARCH


@pytest.fixture
def table(gateway):
    c = BridgeClient(gateway.bridge_port)
    c.send({"cmd": "new", "engine_starts": False, "opponent": "random"})
    yield c
    c.close()


def test_the_recorded_connect4rs_session(table, gateway):
    steps = [json.loads(x) for x in SESSION.read_text().splitlines() if x and not x.startswith("#")]
    before = None
    for n, step in enumerate(steps, 1):
        send = step["send"]
        line = (send if isinstance(send, str) else json.dumps(send)).encode()
        reply = one_shot(gateway.bridge_port, line) if step.get("one_shot") else table.raw(line)
        where = f"step {n} ({step.get('note') or send!r}): {reply}"
        for field, want in step["expect"].items():
            assert reply.get(field) == want, f"{field}: {where}"
        for field in step.get("absent", ()):
            assert field not in reply, f"{field} present: {where}"
        if "error" in reply:
            assert set(reply) <= {"error", "state"}, where
        else:
            rs_order(reply)
        if "history_prefix" in step:
            assert reply["history"][:len(step["history_prefix"])] == step["history_prefix"], where
            assert len(reply["history"]) == step["history_len"], where
        if step.get("same_history_as_before"):
            assert reply["history"] == before["history"], where
        before = reply


def test_errors_with_a_state_carry_the_position(table):
    table.send({"cmd": "replay", "moves": [4, 4]})
    r = table.send({"cmd": "replay", "moves": [4] * 7})
    assert r["state"]["history"] == [4] * 6 and r["state"]["rows"][0] == "...Y..."  # where it stopped
    rs_order(r["state"])
    assert table.send({"cmd": "state"})["history"] == [4, 4]
    won = table.send({"cmd": "replay", "moves": [1, 2, 1, 2, 1, 2, 1, 2]})
    assert won["state"]["status"] == {"won": "human"} and won["state"]["history"] == [1, 2, 1, 2, 1, 2, 1]
    table.send({"cmd": "replay", "moves": [4, 4, 4, 4, 4, 4]})
    full = table.send({"cmd": "move", "col": 4})
    assert full["state"]["history"] == [4] * 6 and full["state"]["status"] == "human_to_move"


def test_every_readme_example(gateway):
    """The five commands of Connect4-rs's README, each from a fresh connection
    (``printf ... | nc``), all on the one game every connection shares."""
    port = gateway.bridge_port
    started = one_shot(port, b'{"cmd":"new","engine_starts":false}')
    assert started["status"] == "human_to_move" and started["history"] == []
    state = one_shot(port, b'{"cmd":"state"}')
    assert state["game"] == started["game"] and state["history"] == []
    moved = one_shot(port, b'{"cmd":"move","col":4}')  # blocks until the engine has answered
    assert moved["history"][0] == 4 and len(moved["history"]) == 2 and moved["status"] == "human_to_move"
    assert set(moved["last_search"]) - {"book"} == LAST_SEARCH and moved["last_search"]["col"] == moved["history"][1]
    hints = one_shot(port, b'{"cmd":"hints","on":true}')
    assert hints["history"] == moved["history"] and set(hints["hints"]) == {
        "next_row", "winning_moves", "must_block", "losing_moves"}
    replayed = one_shot(port, b'{"cmd":"replay","moves":[4,4,3,3]}')
    assert replayed["history"] == [4, 4, 3, 3] and replayed["game"] == started["game"]
    assert one_shot(port, b'{"cmd":"state"}')["history"] == [4, 4, 3, 3]
    for r in (started, state, moved, hints, replayed):
        rs_order(r)


def test_state_creates_nothing_and_the_watch_url_is_fixed(redis_server, engine_service, solver_service):
    """A table nobody played at: ``state`` answers Connect4-rs's fresh game and
    stores no game; the first move makes one; the fixed URL redirects to it."""
    import redis

    from tests.gateway.conftest import Gateway

    gw = Gateway(redis_server.db(5), engine_service.addr, solver_service.addr, name="gateway-table",
                 C4_GATEWAY_BRIDGE_TABLE="lobby").start()
    r = redis.Redis.from_url(redis_server.db(5))
    try:
        r.flushdb()
        for _ in range(3):
            s = one_shot(gw.bridge_port, b'{"cmd":"state"}')
            assert s["history"] == [] and s["message"] == "Your move" and "game" not in s
            assert s["watch_url"] == f"{gw.url}/tables/lobby"
        assert not list(r.scan_iter("c4:game:*")), "state made a game"
        missing = httpx.get(f"{gw.url}/tables/lobby", follow_redirects=False)
        assert missing.status_code == 404 and "no game yet" in missing.json()["error"]["message"]
        moved = one_shot(gw.bridge_port, b'{"cmd":"move","col":4}')
        assert moved["watch_url"] == f"{gw.url}/tables/lobby" and len(list(r.scan_iter("c4:game:*"))) == 1
        to = httpx.get(f"{gw.url}/tables/lobby", follow_redirects=False)
        assert to.status_code == 307 and to.headers["location"] == f"{gw.url}/?game={moved['game']}"
        again = one_shot(gw.bridge_port, b'{"cmd":"new"}')
        assert again["game"] != moved["game"] and again["watch_url"] == moved["watch_url"]
        assert httpx.get(f"{gw.url}/tables/lobby", follow_redirects=False).headers["location"].endswith(again["game"])
        old = httpx.get(f"{gw.url}/api/v1/games/{moved['game']}").json()
        assert old["next_game"] == again["game"]  # a watcher of the old game follows the table
        assert httpx.get(f"{gw.url}/tables/no%20such").status_code in (400, 404)
        # the table's seat token is kept sealed, never as it is
        table = r.hgetall("c4:table:lobby")
        assert set(table) >= {b"id", b"sealed"} and b"token" not in table
    finally:
        r.close()
        gw.stop()


def test_two_connections_play_one_game_and_see_each_other(table, gateway):
    other = BridgeClient(gateway.bridge_port)
    try:
        a = table.send({"cmd": "move", "col": 4})
        seen = other.send({"cmd": "state"})
        assert seen["history"] == a["history"] and seen["game"] == a["game"]
        b = other.send({"cmd": "move", "col": 3})
        assert b["history"][:3] == a["history"] + [3]
        assert table.send({"cmd": "state"})["history"] == b["history"]
    finally:
        other.close()


def test_new_keeps_hints_and_think_time(table, gateway):
    table.send({"cmd": "hints", "on": False})
    n = table.send({"cmd": "new", "think_ms": 200})
    assert "hints" not in n
    table.send({"cmd": "hints", "on": True})
    n2 = table.send({"cmd": "new"})
    assert n2["hints"]["next_row"] == [1] * 7
    assert httpx.get(f"{gateway.url}/api/v1/games/{n2['game']}").json()["think_ms"] == 200
    for bad in (-1, 10, 70000, "fast", 2.5, True):
        r = table.send({"cmd": "new", "think_ms": bad})
        assert r == {"error": "think_ms must be 0 (the opponent's own time) or 50..60000 milliseconds"}, bad
    assert table.send({"cmd": "state"})["game"] == n2["game"]  # a refused new changes nothing
    refused = table.send({"cmd": "new", "opponent": "nobody"})
    assert refused["error"].startswith("bad request: unknown opponent 'nobody'")
    assert table.send({"cmd": "state"})["game"] == n2["game"]


def connect4_mcp_call(port: int, req: dict) -> dict:
    """Connect4-rs's ``connect4-mcp`` (its src/mcp.rs ``gui``): a new connection for
    each tool call, one line written, one line read, then the connection dropped
    (no half-close first, unlike ``nc``)."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.sendall(json.dumps(req, separators=(",", ":")).encode() + b"\n")
        return json.loads(s.makefile("rb").readline())


def test_connect4_mcp_plays_a_whole_game_unchanged(table, gateway):
    """The four tools of connect4-mcp as it forwards them, one connection a call,
    a whole game: every call sees the game the previous calls made."""
    port = gateway.bridge_port
    started = connect4_mcp_call(port, {"cmd": "new", "engine_starts": False})
    assert started["history"] == [] and started["message"] == "Your move"
    hinted = connect4_mcp_call(port, {"cmd": "hints", "on": True})
    assert hinted["game"] == started["game"] and hinted["hints"]["next_row"] == [1] * 7
    state, plies = hinted, 0
    while state["status"] == "human_to_move":
        h = state["hints"]
        free = [c for c in range(1, 8) if h["next_row"][c - 1] is not None]
        col = (h["winning_moves"] or h["must_block"] or [c for c in free if c not in h["losing_moves"]] or free)[0]
        moved = connect4_mcp_call(port, {"cmd": "move", "col": col})
        assert "error" not in moved, moved
        assert moved["game"] == started["game"] and moved["history"][:plies + 1] == state["history"] + [col]
        assert connect4_mcp_call(port, {"cmd": "state"})["history"] == moved["history"]
        state, plies = moved, len(moved["history"])
        rs_order(state)
    st = state["status"]
    words = "Draw" if st == "draw" else {"human": "You win!", "engine": "Engine wins!"}[st["won"]]
    assert state["message"] == words and "hints" not in state
    after = connect4_mcp_call(port, {"cmd": "move", "col": 1})
    assert after["error"].startswith("illegal move (status ") and after["state"]["history"] == state["history"]


def test_learn_traces_an_unfinished_game(learn_gateway):  # noqa: F811  (the fixture imported above)
    """Connect4-rs's learn on a game still running: the engine's moves so far are
    traced and booked (the first six plies of test_learn's THREW game on 6x4,
    where the engine, yellow, threw its win at plies 4 and 6; red is to move)."""
    b = BridgeClient(learn_gateway.bridge_port)
    try:
        b.send({"cmd": "new", "width": 6, "height": 4})
        running = b.send({"cmd": "replay", "moves": [int(c) for c in THREW[:6]]})
        assert running["status"] == "human_to_move" and len(running["history"]) == 6, running
        r = b.send({"cmd": "learn"})
        assert "error" not in r, r
        assert r["learned"]["result"] == "unfinished" and [v["ply"] for v in r["learned"]["threw"]] == [4, 6]
        assert r["report"].splitlines()[0].startswith("ply 4: engine threw the win")
        assert b.send({"cmd": "state"})["history"] == running["history"]  # the game goes on as it was
    finally:
        b.close()
