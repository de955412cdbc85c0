"""Optional bearer-token authentication on a real gateway: tokens configured by
their SHA-256 digest; ``/mcp``, REST (and its WebSocket) and the bridge refuse
a caller without a good token with a clear error and change nothing; the page
and health stay open. Every test caller here is on loopback, so the gateway is
told to require tokens from loopback too (``C4_GATEWAY_AUTH_LOOPBACK``); the
loopback exemption itself is checked on the rule."""

from __future__ import annotations

import asyncio
import hashlib

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect as ws_connect

from gateway.auth import Auth
from gateway.settings import GatewaySettings
from tests.gateway.conftest import DEAD, Gateway
from tests.gateway.test_watch_bridge_mcp import BridgeClient

TOKEN = "agent-token-0123456789"


@pytest.fixture(scope="module")
def locked(redis_server):
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    gw = Gateway(redis_server.db(6), DEAD, DEAD, name="gateway-auth", C4_GATEWAY_AUTH_TOKENS_SHA256=digest,
                 C4_GATEWAY_AUTH_LOOPBACK="true").start()
    yield gw
    gw.stop()


def test_the_rule_loopback_is_exempt_unless_asked():
    s = GatewaySettings(auth_tokens_sha256=hashlib.sha256(b"t").hexdigest())
    auth = Auth(s)
    assert auth.required_for("203.0.113.5") and auth.required_for("::ffff:198.51.100.1")
    assert not auth.required_for("127.0.0.1") and not auth.required_for("::1")
    assert auth.valid("t") and not auth.valid("u") and not auth.valid(None)
    assert not Auth(GatewaySettings()).required_for("203.0.113.5")  # no tokens configured: no auth
    with pytest.raises(ValueError, match="not a SHA-256 hex digest"):
        Auth(GatewaySettings(auth_tokens_sha256="secret"))


def test_rest_needs_the_token_and_the_page_does_not(locked):
    good = {"Authorization": f"Bearer {TOKEN}"}
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        r = httpx.post(f"{locked.url}/api/v1/games", json={"opponent": "human"}, headers=headers)
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized", r.text
        assert "Authorization: Bearer" in r.json()["error"]["message"] and r.headers["www-authenticate"]
    made = httpx.post(f"{locked.url}/api/v1/games", json={"opponent": "human"}, headers=good)
    assert made.status_code == 201, made.text
    gid = made.json()["state"]["id"]
    assert httpx.get(f"{locked.url}/api/v1/games/{gid}").status_code == 401
    assert httpx.get(f"{locked.url}/api/v1/games/{gid}", headers=good).json()["moves"] == []
    assert httpx.get(f"{locked.url}/healthz").status_code == 200
    assert httpx.get(f"{locked.url}/").status_code == 200
    with pytest.raises(InvalidStatus), ws_connect(f"ws://127.0.0.1:{locked.port}/api/v1/games/{gid}/ws",
                                                  open_timeout=10) as ws:
        ws.recv(timeout=10)
    with ws_connect(f"ws://127.0.0.1:{locked.port}/api/v1/games/{gid}/ws?access_token={TOKEN}",
                    open_timeout=10) as ws:
        assert '"state"' in ws.recv(timeout=10)


def test_mcp_needs_the_token(locked):
    from mcp import Client

    async def refused():
        async with Client(f"{locked.url}/mcp") as mcp:
            await mcp.list_tools()

    with pytest.raises(BaseException):  # noqa: B017 - the SDK reports the 401 as an MCPError in task groups
        asyncio.run(refused())
    raw = httpx.post(f"{locked.url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                     headers={"Accept": "application/json, text/event-stream"})
    assert raw.status_code == 401 and raw.json()["error"]["code"] == "unauthorized"

    async def allowed():
        http = httpx.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
        from mcp.client.streamable_http import streamable_http_client

        async with Client(streamable_http_client(f"{locked.url}/mcp", http_client=http)) as mcp:
            r = await mcp.call_tool("connect4_new", {})
            assert not r.is_error and r.structured_content["status"] == "your_move"

    asyncio.run(allowed())


def test_the_bridge_needs_auth_first(locked):
    b = BridgeClient(locked.bridge_port)
    try:
        refused = b.send({"cmd": "state"})
        assert refused["error"].startswith("unauthorized: this bridge needs {\"cmd\":\"auth\"")
        assert b.send({"cmd": "auth", "token": "wrong"})["error"].startswith("unauthorized")
        assert b.send({"cmd": "move", "col": 4})["error"].startswith("unauthorized")
        assert b.send({"cmd": "auth", "token": TOKEN}) == {"ok": True, "message": "authorized"}
        assert b.send({"cmd": "state"})["history"] == []  # the refused move changed nothing
    finally:
        b.close()
