"""A Redis that does not answer (SIGSTOP) costs every request at most a few
seconds: 503 ``service_unavailable`` with Retry-After, never a hang; after
SIGCONT the games are all there and play on."""

from __future__ import annotations

import httpx
import pytest

from tests.gateway.conftest import DEAD, Gateway
from tests.gateway.helpers import error_of, new_pvp, play
from tests.gateway.own_redis import OwnRedis


@pytest.fixture
def frozen_setup(tmp_path):
    server = OwnRedis(tmp_path / "redis").start()
    gw = Gateway(server.url(0), DEAD, DEAD, name="gateway-hung").start()
    try:
        yield server, gw
    finally:
        gw.stop()
        server.stop()


def test_every_request_answers_while_redis_is_stopped(frozen_setup):
    server, gw = frozen_setup
    with httpx.Client(base_url=gw.url, timeout=30) as c:
        gid, red, yellow = new_pvp(c)
        assert play(c, gid, red, 4).status_code == 200
        before = c.get(f"/api/v1/games/{gid}").json()
        server.freeze()
        try:
            # The client gives each request 5 s: a hang is a ReadTimeout here, not an answer.
            with httpx.Client(base_url=gw.url, timeout=5) as quick:
                answers = [
                    quick.get(f"/api/v1/games/{gid}"),
                    quick.post("/api/v1/games", json={"opponent": "human"}),
                    play(quick, gid, yellow, 4),
                    quick.post(f"/api/v1/games/{gid}/hints", json={"on": True}, headers={"X-Player-Token": red}),
                ]
                for r in answers:
                    assert r.status_code == 503, r.text
                    assert error_of(r) == "service_unavailable"
                    assert int(r.headers["Retry-After"]) >= 1
                assert quick.get("/readyz").status_code == 503
        finally:
            server.thaw()
        # Redis is back: the game is as it was and goes on.
        after = c.get(f"/api/v1/games/{gid}")
        assert after.status_code == 200
        assert after.json()["moves"] == before["moves"] == [4]
        assert after.json()["version"] == before["version"]
        assert play(c, gid, yellow, 4).json()["moves"] == [4, 4]


def test_a_create_sent_to_a_stopped_redis_leaves_no_orphan(frozen_setup):
    """The save reaches Redis after SIGCONT, long after its client got 503: it is
    not applied (its deadline passed), so no game exists that nobody holds a token for."""
    server, gw = frozen_setup
    direct = server.client(0)
    with httpx.Client(base_url=gw.url, timeout=30) as c:
        assert c.post("/api/v1/games", json={"opponent": "human"}).status_code == 201  # warm: script, clock
        games = set(direct.scan_iter("c4:game:*"))
        server.freeze()
        try:
            r = c.post("/api/v1/games", json={"opponent": "human"})
            assert r.status_code == 503, r.text
        finally:
            server.thaw()
        assert c.get("/healthz").status_code == 200
        direct.ping()  # everything queued while stopped has run now
        assert set(direct.scan_iter("c4:game:*")) == games
