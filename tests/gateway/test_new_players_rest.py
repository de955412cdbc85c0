"""The ladder's counted and regime players (issue 25 item 4) as REST opponents
with the real engine service: the gateway offers each (its list is the
engine's ``ListPlayers``), a game against each is made, and each answers a
person's move, its last search naming it."""

from __future__ import annotations

import pytest

from engine_svc.players import make_player
from tests.gateway.test_engine import create, move, poll

pytestmark = pytest.mark.slow  # real services started as subprocesses

SIX = ("search", "solver", "alphabeta", "expectimax", "clairvoyant:greedy", "noisy_greedy")


def test_the_gateway_offers_the_six(api):
    offered = [o["spec"] for o in api.get("/api/v1/opponents").json()["opponents"]]
    assert set(SIX) <= set(offered), offered
    assert offered[-2:] == ["perfect", "human"]  # the six sit inside the list, not after perfect


@pytest.mark.parametrize("spec", SIX)
def test_each_answers_a_move_over_rest(api, spec):
    from connect4 import Position

    gid, token, created = create(api, opponent=spec)
    assert created["seat"] == "red" and created["state"]["ply"] == 0
    # wait=False: solver's 2,100,000 positions can outlast a waiting move's deadline under load
    r = move(api, gid, token, 4, wait=False)
    assert r.status_code == 200 and r.json()["ply"] == 1, r.text
    state = poll(api, gid, lambda s: s["ply"] == 2, timeout=180)
    assert state["ply"] == 2 and state["to_move"] == "red", state
    assert state["last_search"]["player"] == spec, state["last_search"]
    assert state["last_search"]["col"] == state["moves"][-1]
    if spec != "noisy_greedy":  # the others draw nothing: the in-process player's column
        assert make_player(spec).choose(Position.parse("4")).column + 1 == state["moves"][-1], spec
