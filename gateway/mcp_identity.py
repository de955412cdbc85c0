"""Who is calling ``/mcp``: each MCP client's own namespace.

The gateway serves MCP's session protocol (``initialize`` first; versions up
to 2025-11-25) statelessly, and issues every client that initializes a random
key as its ``Mcp-Session-Id``; SDK clients present it on every later request,
so the key names the client's namespace (:func:`namespace_of`) on any gateway
process, with nothing kept in memory. Redis sees only a digest of the key,
and the seat tokens of the client's games are sealed with it
(:mod:`gateway.sealing`): two clients that use every default never share a
game, and none reaches another's.

The single-exchange protocol (2026-07-28) carries no session, so its probe
(``server/discover``) is answered "method not found", which makes SDK clients
fall back to ``initialize``.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Mapping

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import sealing

SESSION_HEADER = "mcp-session-id"
KEY = re.compile(r"[\x21-\x7e]{16,200}")  # visible ASCII, as the MCP spec allows in a session id
MAX_BODY = 1 << 20


class NoNamespace(Exception):
    """A request without a usable session key; ``str()`` says what to do."""


def new_key() -> str:
    return "c4s_" + secrets.token_urlsafe(24)


def key_of(headers: Mapping[str, str] | None) -> str:
    """The caller's key from its request headers, or :class:`NoNamespace`."""
    key = (headers or {}).get(SESSION_HEADER)
    if not key:
        raise NoNamespace("this request carries no Mcp-Session-Id: start with MCP's initialize request "
                          "(every MCP client does); the gateway issues your client its key there")
    if not KEY.fullmatch(key):
        raise NoNamespace("the Mcp-Session-Id header is not a key this gateway issued "
                          "(16-200 visible ASCII characters); initialize again for a new one")
    return str(key)


def namespace_of(key: str) -> str:
    return sealing.digest(key)


class McpIdentityMiddleware:
    """ASGI, on ``/mcp``: a key for each ``initialize``; the 2026-07-28 probe refused."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") not in ("/mcp", "/mcp/") or scope.get("method") != "POST":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers") or []}
        modern = headers.get("mcp-protocol-version") not in (None, *HANDSHAKE_PROTOCOL_VERSIONS)
        if not modern and SESSION_HEADER in headers:
            return await self.app(scope, receive, send)
        body, more = b"", True
        chunks = []
        while more:
            message = await receive()
            chunks.append(message)
            body += message.get("body", b"")
            more = message.get("more_body", False) and len(body) <= MAX_BODY
        try:
            request = json.loads(body) if len(body) <= MAX_BODY else None
        except ValueError:
            request = None
        method = request.get("method") if isinstance(request, dict) else None

        async def replay() -> Message:
            return chunks.pop(0) if chunks else {"type": "http.request", "body": b"", "more_body": False}

        if modern:
            out = json.dumps({"jsonrpc": "2.0", "id": request.get("id") if isinstance(request, dict) else None,
                              "error": {"code": -32601, "message": f"method not found: {method} (this gateway speaks "
                                        "MCP's initialize protocol, up to 2025-11-25: initialize first)"}}).encode()
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"content-length", str(len(out)).encode())]})
            await send({"type": "http.response.body", "body": out})
            return
        if method != "initialize":
            return await self.app(scope, replay, send)
        key = new_key().encode()

        async def send_with_key(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message, headers=[*message.get("headers", []), (SESSION_HEADER.encode(), key)])
            await send(message)

        await self.app(scope, replay, send_with_key)
