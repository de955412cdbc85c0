"""Fairness between two people: hints are each player's own (the other player and
watchers never get them), and exact analysis of a game between two people in
play needs both players' yes; once the game is over it is open."""

from __future__ import annotations

import json

import httpx
from websockets.sync.client import connect as ws_connect

from tests.gateway.helpers import error_of, new_pvp, play


def view(c: httpx.Client, gid: str, token: str | None = None) -> dict:
    headers = {"X-Player-Token": token} if token else {}
    return c.get(f"/api/v1/games/{gid}", headers=headers).json()


def test_hints_are_per_seat_and_never_for_watchers(client):
    gid, red, yellow = new_pvp(client)
    url = client.base_url.copy_with(scheme="ws").join(f"/api/v1/games/{gid}/ws")
    with ws_connect(str(url)) as watcher:
        assert json.loads(watcher.recv(timeout=30))["state"]["hints"] is None
        on = client.post(f"/api/v1/games/{gid}/hints", json={"on": True}, headers={"X-Player-Token": red})
        assert on.status_code == 200 and on.json()["hints"]["next_row"] == [1] * 7  # red to move: its hints
        assert view(client, gid, red)["hints"] is not None
        assert view(client, gid, red)["seats"]["red"]["hints_on"] is True
        assert view(client, gid, yellow)["hints"] is None  # not yellow's
        assert view(client, gid)["hints"] is None  # nor a watcher's
        assert play(client, gid, red, 4).json()["hints"] is None  # yellow to move now
        assert view(client, gid, yellow)["hints"] is None and view(client, gid, yellow)["hints_on"] is False
        assert play(client, gid, yellow, 4).status_code == 200
        assert view(client, gid, red)["hints"]["next_row"][3] == 3  # red's turn again: red's own hints
        seen = []
        while len(seen) < 3:  # hints on, then two moves: no state a watcher gets has hints
            msg = json.loads(watcher.recv(timeout=30))
            if msg["type"] == "state":
                seen.append(msg["state"])
        assert all(s["hints"] is None for s in seen)
    # yellow's own switch does not touch red's
    client.post(f"/api/v1/games/{gid}/hints", json={"on": False}, headers={"X-Player-Token": yellow})
    assert view(client, gid, red)["seats"]["red"]["hints_on"] is True


def allow(c: httpx.Client, gid: str, token: str, yes: bool = True) -> None:
    r = c.post(f"/api/v1/games/{gid}/settings", json={"allow_analysis": yes}, headers={"X-Player-Token": token})
    assert r.status_code == 200, r.text


def test_analysis_between_two_people_needs_both_and_opens_at_the_end(solver_gateway):
    with httpx.Client(base_url=solver_gateway.url, timeout=60) as c:
        gid, red, yellow = new_pvp(c)
        assert play(c, gid, red, 4).status_code == 200
        for who in (None, red, yellow):
            headers = {"X-Player-Token": who} if who else {}
            r = c.get(f"/api/v1/games/{gid}/analysis", headers=headers)
            assert r.status_code == 403 and error_of(r) == "analysis_disabled"
            assert "both players" in r.json()["error"]["message"]
        assert view(c, gid)["allow_analysis"] is False
        allow(c, gid, red)
        assert c.get(f"/api/v1/games/{gid}/analysis").status_code == 403  # one yes is not enough
        allow(c, gid, yellow)
        assert view(c, gid)["allow_analysis"] is True
        ok = c.get(f"/api/v1/games/{gid}/analysis")
        assert ok.status_code == 200 and len(ok.json()["columns"]) == 7
        allow(c, gid, yellow, False)  # a yes can be taken back
        assert c.get(f"/api/v1/games/{gid}/analysis").status_code == 403

        # Another game, nobody says yes; once it is over, it is open to everyone.
        gid, red, yellow = new_pvp(c)
        for col in (1, 2, 1, 2, 1, 2):
            assert play(c, gid, red if col == 1 else yellow, col).status_code == 200
        assert c.get(f"/api/v1/games/{gid}/analysis").status_code == 403
        assert play(c, gid, red, 1).json()["status"] == "over"
        after = c.get(f"/api/v1/games/{gid}/analysis", params={"ply": 3})
        assert after.status_code == 200, after.text
        assert view(c, gid)["allow_analysis"] is True


def test_joining_with_a_yes_to_analysis(solver_gateway):
    with httpx.Client(base_url=solver_gateway.url, timeout=60) as c:
        created = c.post("/api/v1/games", json={"opponent": "human", "allow_analysis": True}).json()
        gid = created["state"]["id"]
        joined = c.post(f"/api/v1/games/{gid}/join", json={"invite": created["invite"], "allow_analysis": True})
        assert joined.status_code == 200 and joined.json()["state"]["allow_analysis"] is True
        assert c.get(f"/api/v1/games/{gid}/analysis").status_code == 200
