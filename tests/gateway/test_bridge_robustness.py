"""Bad input at the gateway's edges, through real parts (redis-server, the
gateway under uvicorn, a TCP client, ``c4 mcp-stdio`` as a subprocess): each
answer is a clear error, the connection stays open and the game is intact;
and the bridge behaves as Connect4-rs's control socket where that program is
lenient (``src/server.rs``, ``src/game.rs``)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import tempfile

import pytest

from connect4 import Position
from tests.gateway.helpers import error_of, new_pvp, new_solo, play
from tests.gateway.test_watch_bridge_mcp import BridgeClient

UNICODE_DIGITS = ["\u00b2", "\u0663", "\uff14"]  # ², Arabic-Indic 3, fullwidth 4: isdigit() but not int()
DRAW = "257771314744647214154617633623313656555222"  # 42 moves, nobody makes four


@pytest.fixture
def bridge(bare_gateway):
    """A connection at the table (the bridge's one shared game), with a new game on it."""
    c = BridgeClient(bare_gateway.bridge_port)
    c.send({"cmd": "new", "engine_starts": False})
    yield c
    c.close()


def pair(port: int) -> tuple[BridgeClient, BridgeClient, dict]:
    """Two bridge connections seated in one game between people: red made it
    with opponent "human", yellow took the invite of its reply."""
    red, yellow = BridgeClient(port), BridgeClient(port)
    made = red.send({"cmd": "new", "opponent": "human"})
    joined = yellow.send({"cmd": "attach", "game": made["game"], "invite": made["invite"]})
    assert joined["human"] == "yellow" and joined["game"] == made["game"], joined
    return red, yellow, made


# -- columns that are not ASCII digits or letters on the board ---------------------

@pytest.mark.parametrize("digit", UNICODE_DIGITS)
def test_unicode_digits_are_clear_errors_over_rest(client, digit):
    gid, red, yellow = new_pvp(client)
    play(client, gid, red, 4)
    r = client.post(f"/api/v1/games/{gid}/moves", json={"column": digit}, headers={"X-Player-Token": yellow})
    assert r.status_code == 400 and error_of(r) == "illegal_column", r.text
    assert f"column '{digit}' is not a column: use 1..7 or a..g" in r.json()["error"]["message"]
    assert client.get(f"/api/v1/games/{gid}").json()["moves"] == [4]
    gid, red = new_solo(client)  # replay is refused between people who both sit at the board
    for moves in (digit, [digit], f"4 {digit}"):
        r = client.post(f"/api/v1/games/{gid}/replay", json={"moves": moves}, headers={"X-Player-Token": red})
        assert r.status_code == 400, r.text
        assert repr(digit) in r.json()["error"]["message"]
    assert client.get(f"/api/v1/games/{gid}").json()["moves"] == []


def test_letters_past_the_board_and_bad_replay_tokens_say_so_over_rest(client):
    gid, red = new_solo(client)
    r = client.post(f"/api/v1/games/{gid}/moves", json={"column": "z"}, headers={"X-Player-Token": red})
    assert r.status_code == 400 and error_of(r) == "illegal_column"
    assert r.json()["error"]["message"] == "column 'z' is not on this 7-wide board: use 1..7 or a..g"
    r = client.post(f"/api/v1/games/{gid}/replay", json={"moves": "4x5"}, headers={"X-Player-Token": red})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == "move 2 ('x5'): column 'x' is not on this 7-wide board: use 1..7 or a..g"
    assert client.get(f"/api/v1/games/{gid}").json()["moves"] == []


@pytest.mark.parametrize("digit", UNICODE_DIGITS)
def test_unicode_digits_are_clear_errors_over_the_bridge(bridge, digit):
    bridge.send({"cmd": "replay", "moves": [4, 4]})
    assert bridge.send({"cmd": "move", "col": digit}) == {"error": "col must be 1..7"}
    for moves in (digit, [digit], [3, digit]):  # Connect4-rs: columns are JSON integers only
        r = bridge.send({"cmd": "replay", "moves": moves})
        assert r == {"error": "replay needs moves: array of columns 1..7"}, r
    assert bridge.send({"cmd": "state"})["history"] == [4, 4]


# -- lines the bridge cannot read -----------------------------------------------------

def test_a_line_over_the_limit_is_skipped_and_the_connection_goes_on(bridge):
    bridge.send({"cmd": "replay", "moves": [4, 5]})
    too_long = {"error": "bad json: line too long (over 1048576 bytes); it was skipped"}
    # the newline arrives after the limit: the line is dropped up to it
    assert bridge.raw(b'{"cmd":"state","pad":"' + b"x" * (1 << 20) + b'"}') == too_long
    assert bridge.send({"cmd": "state"})["history"] == [4, 5]
    # a much longer line, sent in pieces, then a command in the same packet as its end
    for _ in range(3):
        bridge.file.write(b"y" * (1 << 20))
    bridge.file.write(b'\n{"cmd":"state"}\n')
    bridge.file.flush()

    assert json.loads(bridge.file.readline()) == too_long
    assert json.loads(bridge.file.readline())["history"] == [4, 5]
    # a line just under the limit is read (and is bad json, not too long)
    r = bridge.raw(b"z" * ((1 << 20) - 10))
    assert r["error"].startswith("bad json: ") and "too long" not in r["error"]
    assert bridge.send({"cmd": "move", "col": "z"}) == {"error": "col must be 1..7"}
    assert bridge.send({"cmd": "state"})["history"] == [4, 5]


def test_deeply_nested_json_is_bad_json(bridge):
    bridge.send({"cmd": "replay", "moves": [3, 3]})
    # serde_json's recursion limit is 128 levels
    assert bridge.raw(b"[" * 100_000) == {"error": "bad json: recursion limit exceeded at line 1 column 129"}
    assert bridge.raw(b'{"cmd":"move","col":' + b"[" * 100_000 + b"]" * 100_000 + b"}") == {
        "error": "bad json: recursion limit exceeded at line 1 column 148"}
    nested = b'{"cmd":"state","x":' + b"[" * 127 + b"]" * 127 + b"}"
    assert bridge.raw(nested)["history"] == [3, 3]  # 128 levels are read
    assert bridge.send({"cmd": "state"})["history"] == [3, 3]


def test_the_client_leaving_in_the_middle_of_a_long_line_ends_only_that_connection(bare_gateway, bridge):
    s = socket.create_connection(("127.0.0.1", bare_gateway.bridge_port), timeout=30)
    s.sendall(b"q" * (3 << 20))
    s.close()
    assert bridge.send({"cmd": "state"})["status"] == "human_to_move"


# -- new with opponent "human" -------------------------------------------------------

def test_new_against_a_person_carries_the_invite(bare_gateway):
    red, yellow, made = pair(bare_gateway.bridge_port)
    try:
        assert made["human"] == "red" and made["status"] == "human_to_move"
        assert made["invite_url"].startswith(f"{bare_gateway.url}/") and made["invite"] in made["invite_url"]
        assert made["game"] in made["invite_url"]
        assert red.send({"cmd": "move", "col": 4})["status"] == "thinking"
        assert yellow.send({"cmd": "move", "col": 4})["history"] == [4, 4]
        # a plain new game (against the bridge's opponent) has no invite
        assert "invite" not in red.send({"cmd": "new"})
    finally:
        red.close()
        yellow.close()


# -- Connect4-rs's leniency and its texts ---------------------------------------------

def test_hints_without_a_boolean_on_answer_the_state_unchanged(bridge):
    bridge.send({"cmd": "hints", "on": False})
    s = bridge.send({"cmd": "hints"})
    assert "error" not in s and "hints" not in s and s["status"] == "human_to_move"
    on = bridge.send({"cmd": "hints", "on": True})
    assert on["hints"]["next_row"] == [1] * 7
    for msg in ({"cmd": "hints"}, {"cmd": "hints", "on": "yes"}, {"cmd": "hints", "on": None}):
        again = bridge.send(msg)
        assert again["hints"] == on["hints"], msg  # still on
    assert "hints" not in bridge.send({"cmd": "hints", "on": False})
    assert "hints" not in bridge.send({"cmd": "hints", "on": 1})  # still off


@pytest.mark.parametrize("flag", ["yes", 1, None, [], {"x": 1}])
def test_new_and_replay_read_a_non_boolean_engine_starts_as_false(bridge, flag):
    n = bridge.send({"cmd": "new", "engine_starts": flag})
    assert "error" not in n, n
    assert n["human"] == "red" and n["status"] == "human_to_move" and n["history"] == []
    assert bridge.send({"cmd": "hints", "on": flag})["history"] == []  # as_bool: no change, the state
    r = bridge.send({"cmd": "replay", "moves": [4, 4], "engine_starts": flag})
    assert r["human"] == "red" and r["history"] == [4, 4] and r["status"] == "human_to_move"


def test_messages_and_to_move_as_connect4_rs(bare_gateway):
    red, yellow, made = pair(bare_gateway.bridge_port)
    try:
        assert made["message"] == "Your move" and made["to_move"] == "red"
        assert yellow.send({"cmd": "state"})["message"] == "Engine is thinking ..."
        for r_col, y_col in ((1, 2), (1, 2), (1, 2)):
            red.send({"cmd": "move", "col": r_col})
            yellow.send({"cmd": "move", "col": y_col})
        won = red.send({"cmd": "move", "col": 1})
        assert won["status"] == {"won": "human"} and won["message"] == "You win!"
        # Connect4-rs does not pass the turn after the winning move
        assert won["to_move"] == "red"
        lost = yellow.send({"cmd": "state"})
        assert lost["status"] == {"won": "engine"} and lost["message"] == "Engine wins!"
        assert lost["to_move"] == "red"
    finally:
        red.close()
        yellow.close()


def test_a_drawn_game_says_draw_and_the_last_mover(bridge):
    assert Position.parse(DRAW).is_draw
    d = bridge.send({"cmd": "replay", "moves": [int(c) for c in DRAW]})
    assert d["status"] == "draw" and d["message"] == "Draw"
    assert d["to_move"] == "yellow"  # yellow made the 42nd move
    assert bridge.send({"cmd": "move", "col": 1})["error"] == ("illegal move (status Draw, column full or "
                                                               "not your turn)")


# -- c4 mcp-stdio with no gateway ---------------------------------------------------

def test_mcp_stdio_names_the_gateway_it_cannot_reach():
    from mcp import Client, MCPError, StdioServerParameters
    from mcp.client.stdio import stdio_client

    url = "http://127.0.0.1:1/mcp"  # nothing listens there
    params = StdioServerParameters(command=sys.executable, args=["-m", "c4.main", "mcp-stdio", "--url", url],
                                   env=dict(os.environ))

    async def go(errlog):
        async with Client(stdio_client(params, errlog=errlog)) as mcp:
            with pytest.raises(MCPError) as listed:
                await mcp.list_tools()
            called = await mcp.call_tool("connect4_state", {})
            return listed.value, called

    with tempfile.TemporaryFile("w+") as errlog:
        listed, called = asyncio.run(go(errlog))
        errlog.seek(0)
        stderr = errlog.read()
    assert f"cannot reach the gateway's MCP endpoint at {url}" in listed.message
    assert listed.message != "Internal server error"
    assert called.is_error
    text = called.content[0].text
    assert f"cannot reach the gateway's MCP endpoint at {url}" in text and "TaskGroup" not in text
    assert "Traceback" not in stderr, stderr
