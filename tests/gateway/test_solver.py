"""Analysis and the ``perfect`` opponent through the real solver service
(checked against Pascal Pons' test sets); the engine is down here, which also
shows the 503 path of a fallback."""

from __future__ import annotations

import pytest

from tests.gateway.helpers import error_of, new_solo

pytestmark = pytest.mark.slow  # real services started as subprocesses


def positions(pons_sets, name="Test_L3_R1", n=4):
    lines = (pons_sets / name).read_text().split("\n")[:n]
    return [(m, int(s)) for m, s in (line.split() for line in lines)]


def test_analysis_matches_pons_scores(solver_gateway, pons_sets):
    import httpx

    with httpx.Client(base_url=solver_gateway.url, timeout=60) as client:
        for moves, score in positions(pons_sets):
            gid, red = new_solo(client)
            r = client.post(f"/api/v1/games/{gid}/replay", json={"moves": moves}, headers={"X-Player-Token": red})
            assert r.status_code == 200, r.text
            a = client.get(f"/api/v1/games/{gid}/analysis")
            assert a.status_code == 200, a.text
            body = a.json()
            scores = [c["score"] for c in body["columns"] if c["score"] is not None]
            assert max(scores) == score  # the position's value is its best column's
            assert body["best"] == [c["column"] for c in body["columns"] if c["score"] == score]
            for c in body["columns"]:
                if c["score"] is None:
                    assert r.json()["rows"][0][c["column"] - 1] != "."  # only full columns have no score
                    assert c["verdict"] is None
                elif c["score"] == 0:
                    assert c["verdict"] == "draw"
                else:
                    assert c["verdict"].startswith("win in " if c["score"] > 0 else "loss in ")
        off = client.post("/api/v1/games", json={"opponent": "human", "allow_analysis": False}).json()
        refused = client.get(f"/api/v1/games/{off['state']['id']}/analysis")
        assert refused.status_code == 403 and error_of(refused) == "analysis_disabled"


def test_perfect_opponent_plays_the_solvers_move(solver_gateway, pons_sets):
    import httpx

    with httpx.Client(base_url=solver_gateway.url, timeout=60) as client:
        for moves, score in positions(pons_sets, "Test_L2_R1", 3):
            created = client.post("/api/v1/games", json={"opponent": "perfect", "think_ms": 3000}).json()
            gid, token = created["state"]["id"], created["token"]
            # Seat ourselves so that we are to move after the replay.
            engine_starts = len(moves) % 2 == 1
            r = client.post(f"/api/v1/games/{gid}/replay", json={"moves": moves, "engine_starts": engine_starts},
                            headers={"X-Player-Token": token})
            assert r.status_code == 200, r.text
            state = r.json()
            assert state["status"] == "to_move" and state["to_move"] == state["you"]
            best = client.get(f"/api/v1/games/{gid}/analysis").json()["best"][0]
            after = client.post(f"/api/v1/games/{gid}/moves", json={"column": best},
                                headers={"X-Player-Token": token})
            assert after.status_code == 200, after.text
            s = after.json()
            if s["status"] == "over" and s["ply"] == state["ply"] + 1:
                continue  # our move ended the game
            assert s["ply"] == state["ply"] + 2
            ls = s["last_search"]
            assert ls["source"] == "solver" and ls["proven"] is True and ls["player"] == "perfect"
            # We played a best move: a position won for us is lost for perfect, and so on.
            if score > 0:
                assert ls["outcome"] == "loss"
            elif score < 0:
                assert ls["outcome"] == "win"
            else:
                assert ls["outcome"] == "draw"


def test_engine_down_gives_503_and_keeps_the_game(solver_gateway):
    import httpx

    with httpx.Client(base_url=solver_gateway.url, timeout=60) as client:
        created = client.post("/api/v1/games", json={"opponent": "random"}).json()
        gid, token = created["state"]["id"], created["token"]
        r = client.post(f"/api/v1/games/{gid}/moves", json={"column": 4},
                        headers={"X-Player-Token": token, "x-request-id": "rid-engine-down-1"})
        assert r.status_code == 503 and error_of(r) == "service_unavailable"
        assert r.headers["x-request-id"] == "rid-engine-down-1"
        assert "engine" in r.json()["error"]["message"]
        assert r.json()["state"]["moves"] == [4] and r.json()["state"]["status"] == "thinking"
        again = client.get(f"/api/v1/games/{gid}").json()
        assert again["moves"] == [4] and again["status"] == "thinking"
        turn = client.post(f"/api/v1/games/{gid}/moves", json={"column": 3}, headers={"X-Player-Token": token})
        assert turn.status_code == 409 and error_of(turn) == "not_your_turn"
        undo = client.post(f"/api/v1/games/{gid}/undo", headers={"X-Player-Token": token})
        assert undo.status_code == 200 and undo.json()["moves"] == []
        ops = client.get("/api/v1/opponents")
        assert ops.status_code == 503 and error_of(ops) == "service_unavailable"
    # The JSON log line of the failure carries the request's id.
    import json as _json

    from tests.gateway.conftest import LOGS

    lines = [_json.loads(line) for line in (LOGS / "gateway-solver.log").read_text().splitlines()
             if line.startswith("{")]
    failed = [x for x in lines if x.get("msg") == "opponent turn failed" and x.get("game") == gid]
    assert failed and failed[0]["request_id"] == "rid-engine-down-1" and failed[0]["level"] == "warning"


def test_request_id_reaches_the_solver(solver_gateway, pons_sets):
    """An analysis is one line in the solver's log, under the HTTP request's id."""
    import json
    import time

    import httpx

    from tests.gateway.conftest import LOGS

    moves, _ = positions(pons_sets, n=1)[0]
    with httpx.Client(base_url=solver_gateway.url, timeout=60) as client:
        gid, red = new_solo(client)
        client.post(f"/api/v1/games/{gid}/replay", json={"moves": moves}, headers={"X-Player-Token": red})
        r = client.get(f"/api/v1/games/{gid}/analysis", headers={"x-request-id": f"rid-{gid}"})
        assert r.status_code == 200, r.text
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        lines = [json.loads(x) for x in (LOGS / "solver.log").read_text().splitlines() if x.startswith("{")]
        mine = [x for x in lines if x.get("request_id") == f"rid-{gid}"]
        if mine:
            assert mine[0]["msg"] == "analyze" and mine[0]["moves"] == len(moves) and "ms" in mine[0]
            return
        time.sleep(0.2)
    raise AssertionError("the solver's log never saw the gateway's request id")
