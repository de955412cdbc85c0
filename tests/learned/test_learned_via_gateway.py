"""The learned players through the gateway (REST on real uvicorn, real engine and solver services)."""

import time

import pytest

from tests.gateway.conftest import api, engine_service, gateway, solver_service  # noqa: F401  (the gateway suite's)

pytestmark = pytest.mark.timeout(1800)


def test_the_gateway_offers_and_plays_the_learned_players(api):  # noqa: F811
    listed = {o["spec"]: o for o in api.get("/api/v1/opponents").json()["opponents"]}
    assert {"net", "dqn", "az:800"} <= set(listed) and listed["az:800"]["param_max"] == 100000
    for spec in ("net", "dqn", "az:30"):
        made = api.post("/api/v1/games", json={"opponent": spec, "engine_starts": True})
        assert made.status_code == 201, made.text
        gid = made.json()["state"]["id"]
        deadline = time.monotonic() + 300
        while True:  # the opponent moves first: wait on the game's state, not a fixed time
            st = api.get(f"/api/v1/games/{gid}").json()
            if st["moves"]:
                break
            assert time.monotonic() < deadline, st
            time.sleep(0.2)
        assert len(st["moves"]) == 1 and 1 <= st["moves"][0] <= 7
        assert st["last_search"]["message"].startswith("p=a:")
    bad = api.post("/api/v1/games", json={"opponent": "az:0"})
    assert bad.status_code == 400
