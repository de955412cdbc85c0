"""Limits on what one client can make a gateway do: each answers 429 with
Retry-After, 413 or 431, and leaves every game as it was. A real gateway each,
with its limits set low through its settings."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import httpx
import pytest
import redis
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect as ws_connect

from tests.gateway.conftest import DEAD, Gateway
from tests.gateway.helpers import error_of, new_pvp, play


@pytest.fixture
def gateway_with(redis_server):
    """Start a gateway on its own database with the given settings (lower-case names)."""
    started: list[Gateway] = []

    def start(db: int, solver: str = DEAD, **limits) -> Gateway:
        env = {f"C4_GATEWAY_{k.upper()}": v for k, v in limits.items()}
        gw = Gateway(redis_server.db(db), DEAD, solver, name=f"gateway-limits-{db}", **env).start()
        started.append(gw)
        return gw

    yield start
    for gw in started:
        gw.stop()


def test_game_creation_is_rate_limited_per_address(gateway_with, redis_server):
    gw = gateway_with(8, creates_per_minute=3)
    direct = redis.Redis.from_url(redis_server.db(8), decode_responses=True)
    direct.flushdb()
    with httpx.Client(base_url=gw.url, timeout=30) as c:
        for _ in range(3):
            assert c.post("/api/v1/games", json={"opponent": "human"}).status_code == 201
        r = c.post("/api/v1/games", json={"opponent": "human"})
        assert r.status_code == 429 and error_of(r) == "rate_limited"
        assert int(r.headers["Retry-After"]) >= 1
        assert len(list(direct.scan_iter("c4:game:*"))) == 3  # the refused one made nothing


def test_analysis_is_rate_limited_per_address(gateway_with):
    gw = gateway_with(9, analyses_per_minute=2)
    with httpx.Client(base_url=gw.url, timeout=30) as c:
        created = c.post("/api/v1/games", json={"opponent": "human"}).json()  # one person: analysis open
        gid, red = created["state"]["id"], created["token"]
        for _ in range(2):  # the solver is down here: 503, but each counts
            assert c.get(f"/api/v1/games/{gid}/analysis").status_code == 503
        r = c.get(f"/api/v1/games/{gid}/analysis", headers={"X-Player-Token": red})
        assert r.status_code == 429 and error_of(r) == "rate_limited" and "Retry-After" in r.headers


def test_analysis_caps_for_callers_who_are_not_players(gateway_with, solver_service):
    gw = gateway_with(10, solver=solver_service.addr, public_analysis_max_deadline_ms=3000,
                      public_analysis_concurrency=0)
    with httpx.Client(base_url=gw.url, timeout=60) as c:
        created = c.post("/api/v1/games", json={"opponent": "human"}).json()  # one person: analysis is open
        gid, token = created["state"]["id"], created["token"]
        assert play(c, gid, token, 4).status_code == 200
        busy = c.get(f"/api/v1/games/{gid}/analysis", params={"deadline_ms": 120000})
        assert busy.status_code == 429 and error_of(busy) == "busy" and "Retry-After" in busy.headers
        mine = c.get(f"/api/v1/games/{gid}/analysis", params={"deadline_ms": 120000},
                     headers={"X-Player-Token": token})
        assert mine.status_code == 200, mine.text
        assert mine.json()["deadline_ms"] == 120000  # a player's deadline is its own


def test_analysis_deadline_of_a_watcher_is_cut_to_the_cap(gateway_with, solver_service):
    gw = gateway_with(11, solver=solver_service.addr, public_analysis_max_deadline_ms=3000)
    with httpx.Client(base_url=gw.url, timeout=60) as c:
        created = c.post("/api/v1/games", json={"opponent": "human"}).json()
        gid = created["state"]["id"]
        r = c.get(f"/api/v1/games/{gid}/analysis", params={"deadline_ms": 120000})
        assert r.status_code == 200, r.text
        assert r.json()["deadline_ms"] == 3000


def test_open_websockets_per_client_and_the_frame_cap(gateway_with):
    gw = gateway_with(12, ws_per_client=2, ws_max_bytes=65536)
    with httpx.Client(base_url=gw.url, timeout=30) as c:
        gid, red, yellow = new_pvp(c)
    url = gw.url.replace("http://", "ws://") + f"/api/v1/games/{gid}/ws"
    with ws_connect(url) as first, ws_connect(url) as second:
        for ws in (first, second):
            assert json.loads(ws.recv(timeout=30))["type"] == "state"
        with pytest.raises(InvalidStatus) as refused:
            ws_connect(url)
        assert refused.value.response.status_code == 429
        assert "Retry-After" in refused.value.response.headers
        # A 4 MB frame is not read: the socket is closed with 1009 (message too big).
        second.send("x" * (4 << 20))
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                second.recv(timeout=30)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        # Its place is free again, and the game is intact.
        with ws_connect(url) as third:
            state = json.loads(third.recv(timeout=30))["state"]
            assert state["moves"] == [] and state["version"] == 2
    assert play(httpx.Client(base_url=gw.url, timeout=30), gid, red, 4).status_code == 200


def test_a_huge_header_gets_431(gateway_with):
    gw = gateway_with(13, max_header_bytes=16384)
    with httpx.Client(base_url=gw.url, timeout=30) as c:
        r = c.get("/healthz", headers={"X-Junk": "x" * (1 << 20)})
        assert r.status_code == 431
        assert r.json()["error"]["code"] == "headers_too_large"
        assert c.get("/healthz", headers={"X-Fine": "x" * 1000}).status_code == 200


def test_half_open_connections_are_released(gateway_with, redis_server):
    """1,000 connections that never finish their request head (half send part of
    one, half nothing at all) are closed by the server after the header timeout;
    meanwhile a game between two people plays on, and afterwards it holds exactly
    its moves and no other game was made (none lost, doubled or orphaned)."""
    gw = gateway_with(14, header_timeout_s=3, limit_concurrency=4096)
    direct = redis.Redis.from_url(redis_server.db(14), decode_responses=True)
    c = httpx.Client(base_url=gw.url, timeout=30)
    gid, red, yellow = new_pvp(c)
    games = set(direct.scan_iter("c4:game:*"))
    socks = []
    try:
        for i in range(1000):
            s = socket.create_connection(("127.0.0.1", gw.port), timeout=30)
            if i % 2:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            socks.append(s)
        # the slow clients hold their connections: the players' moves are answered
        for token, column in ((red, 4), (yellow, 5)):
            moved = play(c, gid, token, column)
            assert moved.status_code == 200, moved.text
        closed = 0
        deadline = time.monotonic() + 30
        for s in socks:  # each recv returns b"" once the server has closed it
            s.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                if s.recv(1024) == b"":
                    closed += 1
            except ConnectionResetError:
                closed += 1
            except OSError:
                pass
        assert closed == 1000
    finally:
        for s in socks:
            s.close()
    assert httpx.get(gw.url + "/healthz", timeout=30).status_code == 200
    assert c.get(f"/api/v1/games/{gid}").json()["moves"] == [4, 5]
    assert set(direct.scan_iter("c4:game:*")) == games
    c.close()


def test_an_idle_kept_alive_connection_is_closed_after_the_keep_alive_timeout(gateway_with):
    """keep_alive_timeout_s is uvicorn's: set to 1 s (its default 5), the idle
    connection is closed long before the header deadline (60 s here) would."""
    gw = gateway_with(11, keep_alive_timeout_s=1, header_timeout_s=60)
    with socket.create_connection(("127.0.0.1", gw.port), timeout=30) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        got = b""
        while b"\r\n\r\n" not in got:
            got += s.recv(4096)
        assert got.startswith(b"HTTP/1.1 200"), got
        answered = time.monotonic()
        while True:  # the rest of the body, then b"" once the server has closed the idle connection
            try:
                if s.recv(4096) == b"":
                    break
            except ConnectionResetError:
                break
        idle = time.monotonic() - answered
    assert idle < 4, idle  # 1 s set; 5 s (uvicorn's default) would mean the setting is not applied


def test_finished_games_expire_sooner(gateway_with, redis_server):
    gw = gateway_with(15, finished_ttl_s=60)
    direct = redis.Redis.from_url(redis_server.db(15))
    with httpx.Client(base_url=gw.url, timeout=30) as c:
        done, red, yellow = new_pvp(c)
        for col in (1, 2, 1, 2, 1, 2):
            assert play(c, done, red if col == 1 else yellow, col).status_code == 200
        assert play(c, done, red, 1).json()["status"] == "over"
        going, _, _ = new_pvp(c)
        assert 0 < direct.ttl(f"c4:game:{done}") <= 60
        assert direct.ttl(f"c4:game:{going}") > 24 * 3600


def test_a_thousand_watchers_on_a_pool_of_twenty(gateway_with, redis_server):
    """Every watcher gets the first state and the next move, with the gateway's
    Redis pool capped at 20 connections (the first states come from shared reads)."""
    from websockets.asyncio.client import connect as aconnect

    db = 7
    gw = gateway_with(db, redis_max_connections=20, ws_per_client=5000, limit_concurrency=8192)
    with httpx.Client(base_url=gw.url, timeout=60) as c:
        gid, red, _ = new_pvp(c)
    url = gw.url.replace("http://", "ws://") + f"/api/v1/games/{gid}/ws"
    direct = redis.Redis.from_url(redis_server.db(db), decode_responses=True)

    async def watch_all():
        sockets = await asyncio.gather(*(aconnect(url, open_timeout=120, max_queue=None, ping_interval=None)
                                         for _ in range(1000)))
        try:
            firsts = await asyncio.gather(*(ws.recv() for ws in sockets))
            odd = [f for f in firsts if json.loads(f).get("type") != "state"]
            assert not odd, f"{len(odd)} watchers got no state first: {sorted(set(odd))[:3]}"
            assert all(json.loads(f)["state"]["version"] == 2 for f in firsts)
            gateway_connections = sum(1 for cl in direct.client_list() if cl.get("db") == str(db))
            async with httpx.AsyncClient(base_url=gw.url, timeout=60) as ac:
                r = await ac.post(f"/api/v1/games/{gid}/moves", json={"column": 4},
                                  headers={"X-Player-Token": red})
                assert r.status_code == 200, r.text

            async def next_state(ws):
                while True:
                    msg = json.loads(await ws.recv())
                    if msg["type"] == "state":
                        return msg["state"]
            news = await asyncio.wait_for(asyncio.gather(*(next_state(ws) for ws in sockets)), 120)
            return gateway_connections, news
        finally:
            await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)

    gateway_connections, news = asyncio.run(watch_all())
    assert gateway_connections <= 20
    assert len(news) == 1000 and all(s["moves"] == [4] for s in news)
