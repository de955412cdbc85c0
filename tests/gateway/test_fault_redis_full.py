"""A full Redis (maxmemory, policy noeviction: nothing is ever evicted, so never
a game in play nor the bookgen queue) answers 507 ``storage_full`` with a clear
message, and nothing is half written: the game is as it was and plays on once
there is room again."""

from __future__ import annotations

import httpx
import pytest

from tests.gateway.conftest import DEAD, Gateway
from tests.gateway.helpers import error_of, new_pvp, play
from tests.gateway.own_redis import OwnRedis, fill


@pytest.fixture
def full_setup(tmp_path):
    server = OwnRedis(tmp_path / "redis", "--maxmemory", "8mb", "--maxmemory-policy", "noeviction").start()
    gw = Gateway(server.url(0), DEAD, DEAD, name="gateway-full").start()
    try:
        yield server, gw
    finally:
        gw.stop()
        server.stop()


def test_a_full_redis_answers_507_and_keeps_the_game(full_setup):
    server, gw = full_setup
    direct = server.client(0)
    with httpx.Client(base_url=gw.url, timeout=30) as c:
        gid, red, yellow = new_pvp(c)
        assert play(c, gid, red, 4).status_code == 200
        stored = direct.hgetall(f"c4:game:{gid}")
        games = set(direct.scan_iter("c4:game:*"))
        assert fill(direct) > 0
        created = c.post("/api/v1/games", json={"opponent": "human"})
        assert created.status_code == 507 and error_of(created) == "storage_full"
        assert "full" in created.json()["error"]["message"]
        moved = play(c, gid, yellow, 5)
        assert moved.status_code == 507 and error_of(moved) == "storage_full"
        # nothing half written: the same game, the same version, no new game
        assert direct.hgetall(f"c4:game:{gid}") == stored
        assert set(direct.scan_iter("c4:game:*")) == games
        seen = c.get(f"/api/v1/games/{gid}")
        assert seen.status_code == 200 and seen.json()["moves"] == [4]
        # room again: the game goes on
        for key in direct.scan_iter("junk:*", count=1000):
            direct.delete(key)
        again = play(c, gid, yellow, 5)
        assert again.status_code == 200, again.text
        assert again.json()["moves"] == [4, 5]


def test_a_full_redis_answers_507_when_the_opponent_programs_answer_cannot_be_saved(tmp_path, engine_service):
    """A move against a program (its save also claims the program's turn) is refused
    in a script Redis reports as failed ("Error running script ... -OOM ..."), not
    as an OOM reply: still 507 (was 503), nothing written, the game plays on."""
    server = OwnRedis(tmp_path / "redis", "--maxmemory", "8mb", "--maxmemory-policy", "noeviction").start()
    gw = Gateway(server.url(0), engine_service.addr, DEAD, name="gateway-full-engine").start()
    try:
        direct = server.client(0)
        with httpx.Client(base_url=gw.url, timeout=60) as c:
            made = c.post("/api/v1/games", json={"opponent": "random"})
            assert made.status_code == 201, made.text
            gid, token = made.json()["state"]["id"], made.json()["token"]
            stored = direct.hgetall(f"c4:game:{gid}")
            assert fill(direct) > 0
            moved = play(c, gid, token, 4)
            assert moved.status_code == 507 and error_of(moved) == "storage_full", moved.text
            assert direct.hgetall(f"c4:game:{gid}") == stored
            for key in direct.scan_iter("junk:*", count=1000):
                direct.delete(key)
            again = play(c, gid, token, 4)
            assert again.status_code == 200 and len(again.json()["moves"]) == 2, again.text
    finally:
        gw.stop()
        server.stop()
