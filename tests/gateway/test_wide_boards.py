"""Boards past 64 bits (8x8 .. 16x16, any line 2..max(width, height)) over REST,
with the real engine and solver services: games between people, against an
engine player, hints; analysis and ``perfect`` where the solver cannot prove
such a board say so. A board off the limits gets one error naming them, and
the gateway goes on serving games."""

from __future__ import annotations

import pytest

from connect4 import Position
from connect4.geometry import Geometry
from tests.gateway.helpers import error_of, new_pvp, play

LIMITS = "width and height 1..16, line length 2..max(width, height)"


@pytest.mark.parametrize("body,fragment", [
    ({"width": 17, "height": 6}, f"board 17x6 is out of range: {LIMITS}"),
    ({"width": 0, "height": 6}, f"board 0x6 is out of range: {LIMITS}"),
    ({"width": 16, "height": 17}, f"board 16x17 is out of range: {LIMITS}"),
    ({"width": 7, "height": 6, "k": 9}, f"line length 9 does not fit on a 7x6 board: {LIMITS}"),
    ({"width": 16, "height": 16, "k": 17}, f"line length 17 does not fit on a 16x16 board: {LIMITS}"),
    ({"width": 8, "height": 8, "k": 1}, f"line length 1 does not fit on a 8x8 board: {LIMITS}"),
])
def test_a_board_off_the_limits_is_refused_naming_them(client, body, fragment):
    r = client.post("/api/v1/games", json={"opponent": "human", **body})
    assert r.status_code == 400 and error_of(r) == "bad_request", r.text
    assert r.json()["error"]["message"] == fragment
    gid, red, _ = new_pvp(client)  # the gateway still serves games
    assert play(client, gid, red, 4).status_code == 200


@pytest.mark.parametrize("width,height,k", [(8, 8, 4), (9, 7, 4), (16, 16, 5), (16, 2, 3), (10, 12, 6)])
def test_two_people_play_a_large_board_to_its_end(client, width, height, k):
    gid, red, yellow = new_pvp(client, width=width, height=height, k=k)
    g = Geometry(width, height, k)
    pos = Position(g)
    tokens = (red, yellow)
    col = 0
    while not pos.is_over:  # fill columns left to right: the reference position says when it ends
        while not pos.can_play(col):
            col += 1
        r = play(client, gid, tokens[pos.ply & 1], col + 1)
        assert r.status_code == 200, r.text
        pos.play(col)
        state = r.json()
        assert state["moves"] == [m + 1 for m in pos.moves]
        assert len(state["rows"]) == height and all(len(row) == width for row in state["rows"])
    assert state["status"] == "over"
    assert state["result"] == ({"winner": None, "reason": "draw"} if pos.winner is None
                               else {"winner": ("red", "yellow")[pos.winner], "reason": "line"})
    if pos.winner is not None:
        assert len(state["winning_cells"]) >= k


def test_a_column_past_the_board_names_the_board_width(client):
    gid, red, _ = new_pvp(client, width=12, height=9)
    r = play(client, gid, red, 13)
    assert r.status_code == 400 and error_of(r) == "illegal_column", r.text
    assert "1..12" in r.json()["error"]["message"]
    assert play(client, gid, red, 12).status_code == 200  # the game goes on


def test_hints_on_a_16x16_board(client):
    gid, red, yellow = new_pvp(client, width=16, height=16, k=4, hints=True)
    for col, token in [(1, red), (16, yellow), (2, red), (16, yellow), (3, red)]:
        assert play(client, gid, token, col).status_code == 200
    assert play(client, gid, yellow, 15).status_code == 200  # red has a1 b1 c1: d1 wins
    r = client.get(f"/api/v1/games/{gid}", headers={"X-Player-Token": red})
    hints = r.json()["hints"]
    assert hints is not None, r.json()
    assert hints["winning_moves"] == [4], hints
    assert hints["next_row"] == [2, 2, 2, 1] + [1] * 10 + [2, 3]
