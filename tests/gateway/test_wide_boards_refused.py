"""Boards past 64 bits (8x8 .. 16x16) are valid boards of the library but not
yet served by the gateway: creating one is refused with the reason, a board
off the limits names the limits, and the gateway goes on serving games."""

from __future__ import annotations

import pytest

from tests.gateway.helpers import error_of, new_pvp, play


@pytest.mark.parametrize("body,fragment", [
    ({"width": 8, "height": 8}, "board 8x8 needs 72 bits: a game on the gateway runs on boards with "
                                "width*(height+1) <= 64 only"),
    ({"width": 16, "height": 16}, "board 16x16 needs 272 bits"),
    ({"width": 17, "height": 6}, "board 17x6 is out of range: width and height 1..16, line length 2..max(width, height)"),
    ({"width": 7, "height": 6, "k": 9}, "line length 9 does not fit on a 7x6 board"),
])
def test_a_board_the_gateway_cannot_serve_is_refused_with_its_reason(client, body, fragment):
    r = client.post("/api/v1/games", json={"opponent": "human", **body})
    assert r.status_code == 400 and error_of(r) == "bad_request", r.text
    assert fragment in r.json()["error"]["message"]
    gid, red, _ = new_pvp(client)  # the gateway still serves games
    assert play(client, gid, red, 4).status_code == 200
