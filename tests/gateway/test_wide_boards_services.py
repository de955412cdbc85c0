"""Boards past 64 bits against the real engine and solver services: engine
players answer on 8x8 and 16x16; analysis and ``perfect`` on a board the
solver cannot prove say so (analysis_unavailable, the engine's move with a
note), and a 7x6 analysis still works afterwards."""

from __future__ import annotations

import time

import pytest

from connect4 import Position
from connect4.geometry import Geometry
from tests.gateway.helpers import error_of, play

pytestmark = pytest.mark.slow  # real services started as subprocesses


def _after_the_opponent(api, gid, token, r):
    """The state once the opponent has answered: the engine compiles a board size's
    kernels on its first request, which may outlast one RPC (the answer is then a
    timeout with the game kept, and the sweeper plays the opponent's turn later)."""
    if r.status_code == 200 and r.json()["status"] != "thinking":
        return r.json()
    assert r.status_code in (200, 504), r.text
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        state = api.get(f"/api/v1/games/{gid}", headers={"X-Player-Token": token}).json()
        if state["status"] != "thinking":
            return state
        time.sleep(0.2)
    raise TimeoutError(f"the opponent did not move in game {gid}")


def _create(api, **body):
    r = api.post("/api/v1/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()["state"], r.json()["token"]


@pytest.mark.parametrize("width,height,k,opponent", [(8, 8, 4, "engine"), (16, 16, 5, "engine"),
                                                     (9, 7, 4, "random")])
def test_an_engine_player_answers_on_a_large_board(api, width, height, k, opponent):
    state, token = _create(api, width=width, height=height, k=k, opponent=opponent, think_ms=100)
    pos = Position(Geometry(width, height, k))
    for col in (width // 2, width // 2 + 1, 1):
        if state["status"] == "over":
            break
        state = _after_the_opponent(api, state["id"], token, play(api, state["id"], token, col))
        assert len(state["moves"]) in (len(pos.moves) + 2, len(pos.moves) + 1)
        pos = Position.from_moves([m - 1 for m in state["moves"]], Geometry(width, height, k))  # all legal
        assert state["status"] in ("to_move", "over")
        assert state["last_search"]["col"] == state["moves"][-1]


def test_analysis_on_a_board_the_solver_cannot_prove_says_so(api):
    state, token = _create(api, width=8, height=8, opponent="human")
    gid = state["id"]
    assert play(api, gid, token, 4).status_code == 200
    r = api.get(f"/api/v1/games/{gid}/analysis", headers={"X-Player-Token": token})
    assert r.status_code == 422 and error_of(r) == "analysis_unavailable", r.text
    message = r.json()["error"]["message"]
    assert message.startswith("analysis is unavailable on this 8x8 board (solver: board 8x8 needs 72 bits"), message
    assert r.json()["state"]["moves"] == [4]  # the game is intact
    small, _ = _create(api, opponent="human")  # and 7x6 analysis still answers
    assert api.get(f"/api/v1/games/{small['id']}/analysis").status_code == 200


def test_perfect_on_a_large_board_plays_the_engine_move_and_says_why(api):
    state, token = _create(api, width=9, height=7, opponent="perfect", think_ms=200)
    after = _after_the_opponent(api, state["id"], token, play(api, state["id"], token, 5))
    search = after["last_search"]
    assert search["source"] == "engine_fallback" and search["proven"] is False, search
    assert search["message"].startswith("perfect cannot prove a 9x7 board (solver: board 9x7 needs 72 bits"), search
    assert len(after["moves"]) == 2
