"""A lost Redis reply never turns a write that landed into a refusal.

A real TCP proxy (tests/gateway/redis_proxy.py) sits between a real gateway
and a real redis-server. Armed, it forwards the next EVALSHA (every save is
one Lua script), lets Redis run it, and cuts the gateway's connection before
the reply. redis-py sends the save again on a fresh connection; the store must
find its own operation and answer success. For each write: the client gets
its 2xx, the change is stored exactly once, and no game is lost, doubled or
orphaned.
"""

from __future__ import annotations

import httpx
import pytest
import redis

from tests.gateway.conftest import DEAD, Gateway
from tests.gateway.helpers import play
from tests.gateway.redis_proxy import RedisProxy

DB = 6


@pytest.fixture(scope="module")
def proxied(redis_server):
    proxy = RedisProxy(redis_server.port).start()
    gw = Gateway(proxy.url(DB), DEAD, DEAD, name="gateway-proxied").start()
    direct = redis.Redis.from_url(redis_server.db(DB), decode_responses=True)
    # One game first: Redis then has the save script (a first EVALSHA answers NOSCRIPT
    # and runs nothing, so cutting its reply would test nothing).
    assert httpx.post(gw.url + "/api/v1/games", json={"opponent": "human"}, timeout=30).status_code == 201
    yield proxy, gw, direct
    gw.stop()
    proxy.stop()


@pytest.fixture
def c(proxied):
    with httpx.Client(base_url=proxied[1].url, timeout=30) as client:
        yield client


def games_stored(direct) -> set[str]:
    return {k.split(":", 2)[2] for k in direct.scan_iter("c4:game:*")}


def lose_next_reply(proxy: RedisProxy):
    """Arm the proxy; returns a check that the reply was in fact lost."""
    before = proxy.dropped
    proxy.drop_next_reply(b"EVALSHA")

    def happened() -> None:
        assert proxy.wait_dropped(before + 1, timeout=10), "the proxy did not cut a reply"
    return happened


def person_game(c, proxy):
    r = c.post("/api/v1/games", json={"opponent": "human"})
    assert r.status_code == 201, r.text
    created = r.json()
    gid = created["state"]["id"]
    j = c.post(f"/api/v1/games/{gid}/join", json={"invite": created["invite"]})
    assert j.status_code == 200, j.text
    return gid, created["token"], j.json()["token"]


def test_create_whose_reply_is_lost_answers_201_and_leaves_no_orphan(proxied, c):
    proxy, _gw, direct = proxied
    before = games_stored(direct)
    happened = lose_next_reply(proxy)
    r = c.post("/api/v1/games", json={"opponent": "human"})
    happened()
    assert r.status_code == 201, r.text
    gid, token = r.json()["state"]["id"], r.json()["token"]
    assert games_stored(direct) - before == {gid}  # one game, the one we hold a token for
    assert play(c, gid, token, 4).status_code == 200  # and the token plays it


def test_join_whose_reply_is_lost_gives_the_seat_to_the_joiner(proxied, c):
    proxy, _gw, _direct = proxied
    r = c.post("/api/v1/games", json={"opponent": "human"})
    created = r.json()
    gid = created["state"]["id"]
    happened = lose_next_reply(proxy)
    j = c.post(f"/api/v1/games/{gid}/join", json={"invite": created["invite"]})
    happened()
    assert j.status_code == 200, j.text
    yellow = j.json()["token"]
    assert play(c, gid, created["token"], 4).status_code == 200
    reply = play(c, gid, yellow, 5)  # the seat is the joiner's: the game goes on
    assert reply.status_code == 200, reply.text
    assert reply.json()["moves"] == [4, 5]


def test_move_whose_reply_is_lost_is_stored_once(proxied, c):
    proxy, _gw, _direct = proxied
    gid, red, _yellow = person_game(c, proxy)
    happened = lose_next_reply(proxy)
    r = play(c, gid, red, 4)
    happened()
    assert r.status_code == 200, r.text
    assert r.json()["moves"] == [4] and r.json()["version"] == 3
    assert c.get(f"/api/v1/games/{gid}").json()["moves"] == [4]


def test_undo_whose_reply_is_lost_takes_back_one_move(proxied, c):
    proxy, _gw, _direct = proxied
    gid, red, yellow = person_game(c, proxy)
    assert play(c, gid, red, 4).status_code == 200
    assert play(c, gid, yellow, 5).status_code == 200
    assert play(c, gid, red, 6).status_code == 200
    happened = lose_next_reply(proxy)
    r = c.post(f"/api/v1/games/{gid}/undo", headers={"X-Player-Token": red})
    happened()
    assert r.status_code == 200, r.text
    assert r.json()["moves"] == [4, 5]
    assert c.get(f"/api/v1/games/{gid}").json()["moves"] == [4, 5]


def test_hints_and_settings_whose_replies_are_lost_answer_200(proxied, c):
    proxy, _gw, _direct = proxied
    gid, red, _yellow = person_game(c, proxy)
    happened = lose_next_reply(proxy)
    h = c.post(f"/api/v1/games/{gid}/hints", json={"on": True}, headers={"X-Player-Token": red})
    happened()
    assert h.status_code == 200, h.text
    happened = lose_next_reply(proxy)
    s = c.post(f"/api/v1/games/{gid}/settings", json={"think_ms": 700}, headers={"X-Player-Token": red})
    happened()
    assert s.status_code == 200, s.text
    stored = c.get(f"/api/v1/games/{gid}", headers={"X-Player-Token": red}).json()
    assert stored["think_ms"] == 700 and stored["hints_on"] is True
    assert stored["version"] == 4  # create, join, hints, settings: each saved once


def test_replay_whose_reply_is_lost_is_stored_once(proxied, c):
    proxy, _gw, _direct = proxied
    r = c.post("/api/v1/games", json={"opponent": "human"})  # nobody joined: its creator may replay
    gid, token = r.json()["state"]["id"], r.json()["token"]
    happened = lose_next_reply(proxy)
    rp = c.post(f"/api/v1/games/{gid}/replay", json={"moves": "4455"}, headers={"X-Player-Token": token})
    happened()
    assert rp.status_code == 200, rp.text
    assert rp.json()["moves"] == [4, 4, 5, 5] and rp.json()["version"] == 2
