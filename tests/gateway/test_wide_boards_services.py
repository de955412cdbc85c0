"""Boards past 64 bits against the real engine and solver services: engine
players answer on 8x8 and 16x16; analysis of a large board gives every column
proved (near the end: equal to brute force) or unproved with no score (early:
the deadline), ``perfect`` plays the solver's proved move where it proves in
time and the engine's move with a note where not, and a 7x6 analysis still
works afterwards."""

from __future__ import annotations

import random
import time

import pytest

from connect4 import Position
from connect4.geometry import Geometry
from tests.gateway.helpers import error_of, play
from tests.solver_svc.test_wide_service import column_value
from tests.solver_svc.test_wide_solver import quiet_position

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


def _analysis(api, gid, token, **query):
    """The analysis, once the solver's kernels of the board are warm: until then it answers
    503 warming_up with a Retry-After, quickly (a cold compile takes tens of seconds)."""
    deadline = time.monotonic() + 600
    while True:
        r = api.get(f"/api/v1/games/{gid}/analysis", headers={"X-Player-Token": token}, params=query)
        if r.status_code != 503 or time.monotonic() > deadline:
            break
        assert error_of(r) == "warming_up" and int(r.headers["Retry-After"]) >= 1, r.text
        assert "warming up the solver's kernels for" in r.json()["error"]["message"], r.text
        time.sleep(0.5)
    assert r.status_code == 200, r.text
    return r.json()


def test_analysis_of_a_large_board_proves_columns_or_says_unproved(api):
    g = Geometry(8, 8)
    # Near the end every column is proved: the scores are brute force's.
    pos = quiet_position(g, g.cells - 8, random.Random(5))
    state, token = _create(api, width=8, height=8, opponent="random")
    gid = state["id"]  # the person is the side to move after the replay
    r = api.post(f"/api/v1/games/{gid}/replay", headers={"X-Player-Token": token},
                 json={"moves": [c + 1 for c in pos.moves], "engine_starts": pos.ply % 2 == 1})
    assert r.status_code == 200, r.text
    a = _analysis(api, gid, token, deadline_ms=60000)
    want = [column_value(pos, c) if pos.can_play(c) else None for c in range(8)]
    assert [c["score"] for c in a["columns"]] == want
    assert a["unproved"] == [] and not any(c["unproved"] for c in a["columns"])
    assert a["best"] == [c + 1 for c in range(8) if want[c] is not None and want[c] == max(x for x in want if x is not None)]
    # Early on nothing is proved within 300 ms: every open column unproved, no score, no best.
    early, token2 = _create(api, width=8, height=8, opponent="human")
    assert play(api, early["id"], token2, 5).status_code == 200
    a = _analysis(api, early["id"], token2, deadline_ms=300)
    assert a["unproved"] == list(range(1, 9)) and a["best"] == []
    assert all(c["score"] is None and c["verdict"] is None and c["unproved"] for c in a["columns"])
    assert api.get(f"/api/v1/games/{early['id']}", headers={"X-Player-Token": token2}).json()["moves"] == [5]
    small, _ = _create(api, opponent="human")  # and 7x6 analysis still answers
    r = api.get(f"/api/v1/games/{small['id']}/analysis")
    assert r.status_code == 200 and r.json()["unproved"] == []


def test_perfect_on_a_large_board_plays_a_proved_move_near_the_end(api):
    g = Geometry(8, 8)
    pos = quiet_position(g, g.cells - 9, random.Random(7))
    # perfect is the side to move after the replay (its seat moves at this ply's parity)
    game, tok = _create(api, width=8, height=8, opponent="perfect", think_ms=5000)
    _analysis(api, game["id"], tok, deadline_ms=50)  # the 8x8 kernels compiled (the service starts them at start)
    moves = [c + 1 for c in pos.moves]
    r = api.post(f"/api/v1/games/{game['id']}/replay", headers={"X-Player-Token": tok},
                 json={"moves": moves, "engine_starts": pos.ply % 2 == 0})
    assert r.status_code == 200, r.text
    after = _after_the_opponent(api, game["id"], tok, r)
    search = after["last_search"]
    assert search["source"] == "solver" and search["proven"] is True, search
    child = Position.from_moves([m - 1 for m in after["moves"][:-1]], g)
    best = max(column_value(child, c) for c in range(8) if child.can_play(c))
    assert search["score"] == best == column_value(child, after["moves"][-1] - 1)


def test_perfect_on_a_large_board_early_plays_the_engine_move_and_says_why(api):
    warm, wtoken = _create(api, width=8, height=8, opponent="human")
    _analysis(api, warm["id"], wtoken, deadline_ms=50)  # the 8x8 kernels compiled
    state, token = _create(api, width=8, height=8, opponent="perfect", think_ms=200)
    after = _after_the_opponent(api, state["id"], token, play(api, state["id"], token, 5))
    search = after["last_search"]
    assert search["source"] == "engine_fallback" and search["proven"] is False, search
    assert search["message"] == "perfect could not prove this position in time: the engine's move was played", search
    assert len(after["moves"]) == 2
