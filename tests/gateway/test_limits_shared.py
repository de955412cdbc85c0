"""The per-address rates (game creation, analysis) hold on every interface and
are shared by every gateway process of a stack: two real gateways on one real
Redis, reached over REST, the JSON-lines bridge (a real socket) and MCP (the
SDK's own client). A refused request makes nothing and leaves every game and
connection as it was; a Redis that cannot count does not crash a request."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
import redis

from tests.gateway.conftest import DEAD, Gateway
from tests.gateway.helpers import error_of
from tests.gateway.own_redis import OwnRedis, fill
from tests.gateway.test_watch_bridge_mcp import BridgeClient

BUCKETS = "c4:rate:*"


@pytest.fixture
def two_gateways(tmp_path):
    """Start two gateway processes on one Redis of their own, with the given limits."""
    server = OwnRedis(tmp_path / "redis").start()
    started: list[Gateway] = []

    def start(solver: str = DEAD, **limits) -> tuple[Gateway, Gateway, redis.Redis]:
        env = {f"C4_GATEWAY_{k.upper()}": v for k, v in limits.items()}
        for name in ("a", "b"):
            started.append(Gateway(server.url(0), DEAD, solver, name=f"gateway-shared-{name}", **env).start())
        return started[0], started[1], server.client(0)

    yield start
    for gw in started:
        gw.stop()
    server.stop()


def mcp_call(url: str, tool: str, args: dict):
    from mcp import Client

    async def go():
        async with Client(f"{url}/mcp") as mcp:
            return await mcp.call_tool(tool, args)

    return asyncio.run(go())


def test_creates_count_across_interfaces_and_processes(two_gateways):
    a, b, direct = two_gateways(creates_per_minute=3)
    # One create on each interface, spread over both processes: three of three.
    with httpx.Client(base_url=a.url, timeout=30) as rest_a:
        assert rest_a.post("/api/v1/games", json={"opponent": "human"}).status_code == 201
    bridge_b = BridgeClient(b.bridge_port)
    made = bridge_b.send({"cmd": "new", "opponent": "human"})
    assert "error" not in made and made["game"], made
    mine = mcp_call(a.url, "connect4_new", {"opponent": "human"})
    assert not mine.is_error, mine.content
    assert len(list(direct.scan_iter("c4:game:*"))) == 3

    # The fourth is refused on every interface of either process, each in its own words.
    with httpx.Client(base_url=b.url, timeout=30) as rest_b:
        r = rest_b.post("/api/v1/games", json={"opponent": "human"})
    assert r.status_code == 429 and error_of(r) == "rate_limited" and int(r.headers["Retry-After"]) >= 1
    bridge_a = BridgeClient(a.bridge_port)
    refused = bridge_a.send({"cmd": "new", "opponent": "human"})
    assert refused["error"].startswith("rate limited: too many games created"), refused
    assert refused["retry_after_s"] > 0
    again = mcp_call(b.url, "connect4_new", {"opponent": "human"})
    assert again.is_error and again.structured_content["error"]["code"] == "rate_limited"
    assert again.structured_content["error"]["retry_after_s"] > 0
    # A bridge command that would make the table's first game counts too.
    table = bridge_a.send({"cmd": "move", "col": 4})
    assert table["error"].startswith("rate limited"), table

    # Nothing was made; the connections and the game made before go on.
    assert len(list(direct.scan_iter("c4:game:*"))) == 3
    played = bridge_b.send({"cmd": "move", "col": 4})
    assert "error" not in played and played["history"] == [4], played
    assert "error" not in bridge_a.send({"cmd": "state"})
    bridge_a.close()
    bridge_b.close()
    # One bucket for the address, in Redis, that expires once full again.
    buckets = list(direct.scan_iter(BUCKETS))
    assert buckets == ["c4:rate:creates:127.0.0.1"]
    assert 0 < direct.pttl(buckets[0]) <= 60_000


def test_analyses_count_across_interfaces_and_processes(two_gateways, solver_service):
    a, b, _direct = two_gateways(solver=solver_service.addr, analyses_per_minute=3)
    with httpx.Client(base_url=a.url, timeout=60) as rest_a, httpx.Client(base_url=b.url, timeout=60) as rest_b:
        made = rest_a.post("/api/v1/games", json={"opponent": "human"}).json()  # one person: analysis open
        gid, token = made["state"]["id"], made["token"]
        assert rest_a.get(f"/api/v1/games/{gid}/analysis").status_code == 200
        assert rest_b.get(f"/api/v1/games/{gid}/analysis", headers={"X-Player-Token": token}).status_code == 200

        async def analyse_twice():
            from mcp import Client

            async with Client(f"{b.url}/mcp") as mcp:
                await mcp.call_tool("connect4_new", {"opponent": "human", "allow_analysis": True})
                return [await mcp.call_tool("connect4_analyze", {}) for _ in range(2)]

        first, second = asyncio.run(analyse_twice())
        assert not first.is_error, first.content  # the third analysis of this address
        assert second.is_error and second.structured_content["error"]["code"] == "rate_limited"
        assert second.structured_content["state"]["history"] == []  # the game, as it was
        r = rest_a.get(f"/api/v1/games/{gid}/analysis", headers={"X-Player-Token": token})
        assert r.status_code == 429 and error_of(r) == "rate_limited" and "Retry-After" in r.headers
        # The bucket refills: after the wait it names, an analysis is answered again.
        time.sleep(int(r.headers["Retry-After"]))
        assert rest_b.get(f"/api/v1/games/{gid}/analysis").status_code == 200
        assert rest_a.get(f"/api/v1/games/{gid}").json()["moves"] == []


@pytest.fixture
def own_redis_gateway(tmp_path):
    server = OwnRedis(tmp_path / "redis", "--maxmemory", "8mb", "--maxmemory-policy", "noeviction").start()
    gw = Gateway(server.url(0), DEAD, DEAD, name="gateway-rate-faults", C4_GATEWAY_CREATES_PER_MINUTE=50,
                 C4_GATEWAY_ANALYSES_PER_MINUTE=50).start()
    try:
        yield server, gw
    finally:
        gw.stop()
        server.stop()


def test_a_redis_that_cannot_count_does_not_crash_a_request(own_redis_gateway):
    """Full (maxmemory): the count is skipped and the request answers for itself
    (a create 507, a read-only request as usual). Stopped: 503 with Retry-After."""
    server, gw = own_redis_gateway
    direct = server.client(0)
    with httpx.Client(base_url=gw.url, timeout=30) as c:
        made = c.post("/api/v1/games", json={"opponent": "human"})
        assert made.status_code == 201
        gid = made.json()["state"]["id"]
        assert fill(direct) > 0
        full = c.post("/api/v1/games", json={"opponent": "human"})
        assert full.status_code == 507 and error_of(full) == "storage_full"
        # the solver is down here: an analysis gets past the uncounted rate to the solver
        analysed = c.get(f"/api/v1/games/{gid}/analysis")
        assert analysed.status_code == 503 and "solver" in analysed.json()["error"]["message"]
        for key in direct.scan_iter("junk:*", count=1000):
            direct.delete(key)
        server.freeze()
        try:
            hung = c.post("/api/v1/games", json={"opponent": "human"})
            assert hung.status_code == 503 and error_of(hung) == "service_unavailable"
            assert "Retry-After" in hung.headers
        finally:
            server.thaw()
        again = c.post("/api/v1/games", json={"opponent": "human"})
        assert again.status_code == 201, again.text
        assert c.get(f"/api/v1/games/{gid}").status_code == 200
