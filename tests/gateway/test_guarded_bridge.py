"""The bridge's ``guard`` command over a real socket to the real gateway: the
switch for the connection's seat (a private game, or the table's, which ``new``
keeps), a guarded move's reply with the same ``override`` as REST's, and bad
arguments answered with one clear error line that changes nothing."""

from __future__ import annotations

import httpx
import pytest

from gateway.bridge import GUARD_NEEDS
from tests.gateway.test_bridge_robustness import pair
from tests.gateway.test_watch_bridge_mcp import BridgeClient

from .test_guarded import REASONS, RED_TRAP

SUMMARY = ("the gate plays c, not d (d lands directly under the opponent's winning cell d2; after d, the "
           "opponent wins at once with d); c passes 4 of 4 checks")


def test_a_guarded_move_over_the_bridge_says_what_the_gate_did(bare_gateway):
    red, yellow, made = pair(bare_gateway.bridge_port)
    try:
        assert made["guarded"] is False
        on = red.send({"cmd": "guard", "on": True})
        assert on["guarded"] is True and "override" not in on, on
        assert yellow.send({"cmd": "state"})["guarded"] is False  # red's switch is red's seat's
        for i, col in enumerate(RED_TRAP):
            out = (red, yellow)[i & 1].send({"cmd": "move", "col": col})
            assert "error" not in out and "override" not in out, out  # every move of the trap passes
        out = red.send({"cmd": "move", "col": 4})
        assert out["history"] == RED_TRAP + [3], out
        assert out["override"] == {
            "ply": 9, "color": "red", "proposed": 4, "played": 3, "overridden": True, "failed": REASONS,
            "played_passes": 4, "checks": 4, "summary": SUMMARY}
        with httpx.Client(base_url=bare_gateway.url, timeout=30) as rest:  # the same verdict as REST's
            assert rest.get(f"/api/v1/games/{made['game']}").json()["override"] == out["override"]
        assert yellow.send({"cmd": "state"})["override"] == out["override"]  # the other seat sees it too
        after = yellow.send({"cmd": "move", "col": 6})
        assert "override" not in after and after["history"] == RED_TRAP + [3, 6]
        off = red.send({"cmd": "guard", "on": False})
        assert off["guarded"] is False
        trap = red.send({"cmd": "move", "col": 3})  # unguarded now: played as proposed
        assert trap["history"][-1] == 3 and "override" not in trap
    finally:
        red.close()
        yellow.close()


@pytest.mark.parametrize("bad", [{"cmd": "guard"}, {"cmd": "guard", "on": "yes"}, {"cmd": "guard", "on": 1},
                                 {"cmd": "guard", "on": None}, {"cmd": "guard", "on": "true"}])
def test_a_bad_guard_changes_nothing(bare_gateway, bad):
    red, yellow, made = pair(bare_gateway.bridge_port)
    try:
        red.send({"cmd": "guard", "on": True})
        red.send({"cmd": "move", "col": 4})
        assert red.send(bad) == {"error": GUARD_NEEDS}
        state = red.send({"cmd": "state"})  # the connection goes on, the game and its switch as they were
        assert state["guarded"] is True and state["history"] == [4]
    finally:
        red.close()
        yellow.close()


def test_the_tables_guard_is_kept_by_its_next_game(bare_gateway):
    conn = BridgeClient(bare_gateway.bridge_port)
    try:
        first = conn.send({"cmd": "new", "engine_starts": False})
        assert first["guarded"] is False and "/tables/" in first["watch_url"]
        on = conn.send({"cmd": "guard", "on": True})
        assert on["guarded"] is True and on["game"] == first["game"]
        second = conn.send({"cmd": "new", "engine_starts": False})
        assert second["game"] != first["game"] and second["guarded"] is True
        other = BridgeClient(bare_gateway.bridge_port)  # every connection plays the table's one seat
        assert other.send({"cmd": "state"})["guarded"] is True
        other.close()
    finally:
        conn.send({"cmd": "guard", "on": False})  # the table is shared by the session's tests
        conn.close()
