"""Boards up to 16 x 16 over the JSON-lines bridge (a real socket to the real
gateway): ``new`` with ``width``/``height``/``k`` makes a game of this
connection's own of that size (the table stays 7x6, as Connect4-rs); replies
keep Connect4-rs's fields (``rows`` as wide as the board) and add ``board``;
a size off the limits is one error line naming them and the connection and its
game go on."""

from __future__ import annotations

import time

import pytest

from tests.gateway.test_bridge_robustness import pair
from tests.gateway.test_watch_bridge_mcp import BridgeClient

LIMITS = "width and height 1..16, line length 2..max(width, height)"


@pytest.fixture
def conn(bare_gateway):
    c = BridgeClient(bare_gateway.bridge_port)
    yield c
    c.close()


def test_a_16x16_game_between_people_over_the_bridge(bare_gateway):
    red, yellow, made = pair(bare_gateway.bridge_port)
    try:
        big = red.send({"cmd": "new", "opponent": "human", "width": 16, "height": 16, "k": 5})
        assert big["board"] == {"width": 16, "height": 16, "k": 5}, big
        assert big["rows"] == ["." * 16] * 16
        yellow_seat = yellow.send({"cmd": "attach", "game": big["game"], "invite": big["invite"]})
        assert yellow_seat["human"] == "yellow"
        for col, who in [(16, red), (1, yellow), (16, red), (2, yellow)]:
            out = who.send({"cmd": "move", "col": col})
            assert "error" not in out, out
        assert out["history"] == [16, 1, 16, 2]
        assert out["rows"][-1] == "YY.............R" and out["rows"][-2] == "...............R"
        off = red.send({"cmd": "move", "col": 17})
        assert off["error"] == "col must be 1..16", off
        assert red.send({"cmd": "state"})["history"] == [16, 1, 16, 2]  # intact
    finally:
        red.close()
        yellow.close()


@pytest.mark.slow  # the real engine service
def test_new_with_a_size_against_the_program(gateway):
    conn = BridgeClient(gateway.bridge_port)
    conn.sock.settimeout(300)  # the engine's first request on a board size compiles its kernels
    out = conn.send({"cmd": "new", "width": 9, "height": 7})
    assert out["board"] == {"width": 9, "height": 7, "k": 4}, out
    assert len(out["rows"]) == 7 and out["rows"][0] == "." * 9
    moved = conn.send({"cmd": "move", "col": 9})
    assert "error" not in moved, moved
    if len(moved["history"]) == 1:  # that first answer outlasted the RPC: the sweeper plays it
        moved = _after_the_program(conn)
    assert moved["history"][0] == 9 and len(moved["history"]) == 2  # the random opponent answered
    conn.close()


def _after_the_program(conn):
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        out = conn.send({"cmd": "state"})
        if len(out["history"]) == 2:
            return out
        time.sleep(0.2)
    raise TimeoutError("the program did not move")


@pytest.mark.parametrize("fields,error", [
    ({"width": 17, "height": 6}, f"bad request: board 17x6 is out of range: {LIMITS}"),
    ({"width": 8, "height": 0}, f"bad request: board 8x0 is out of range: {LIMITS}"),
    ({"width": 8, "height": 8, "k": 9}, f"bad request: line length 9 does not fit on a 8x8 board: {LIMITS}"),
    ({"width": 8, "height": 8, "k": 1}, f"bad request: line length 1 does not fit on a 8x8 board: {LIMITS}"),
    ({"width": "8"}, "width must be a whole number: width and height 1..16, line length k 2..max(width, height)"),
    ({"width": 8, "height": -1}, "height must be a whole number: width and height 1..16, "
                                 "line length k 2..max(width, height)"),
])
def test_a_size_off_the_limits_is_one_error_and_the_game_goes_on(conn, fields, error):
    first = conn.send({"cmd": "new", "width": 8, "height": 8})
    conn.send({"cmd": "move", "col": 8})
    before = conn.send({"cmd": "state"})
    out = conn.send({"cmd": "new", **fields})
    assert out["error"] == error, out
    assert conn.send({"cmd": "state"})["history"] == before["history"]
    assert conn.send({"cmd": "state"})["game"] == first["game"]
