"""Small helpers shared by the gateway tests."""

from __future__ import annotations

import httpx


def new_pvp(client: httpx.Client, **extra):
    r = client.post("/api/v1/games", json={"opponent": "human", **extra})
    assert r.status_code == 201, r.text
    created = r.json()
    gid = created["state"]["id"]
    joined = client.post(f"/api/v1/games/{gid}/join", json={"invite": created["invite"]})
    assert joined.status_code == 200, joined.text
    return gid, created["token"], joined.json()["token"]


def new_solo(client: httpx.Client, **extra):
    """A game against a person who has not joined yet: its creator may still replay."""
    r = client.post("/api/v1/games", json={"opponent": "human", **extra})
    assert r.status_code == 201, r.text
    return r.json()["state"]["id"], r.json()["token"]


def play(client, gid, token, column, **kw):
    return client.post(f"/api/v1/games/{gid}/moves", json={"column": column, **kw},
                       headers={"X-Player-Token": token})


def error_of(r: httpx.Response) -> str:
    body = r.json()
    assert set(body["error"]) >= {"code", "message"}, body
    assert body["error"]["message"]
    return body["error"]["code"]
