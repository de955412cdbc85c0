"""Optional bearer-token authentication for ``/mcp``, REST (``/api/``, its
WebSocket included) and the bridge.

Off unless ``C4_GATEWAY_AUTH_TOKENS_SHA256`` lists tokens, by the SHA-256 hex
digest of each (the tokens themselves are never configured or stored). Then a
request from beyond loopback needs ``Authorization: Bearer TOKEN`` (a
WebSocket may put ``access_token=TOKEN`` in its query instead, as browsers
cannot set headers there) and a bridge connection from beyond loopback sends
``{"cmd":"auth","token":"TOKEN"}`` first. Loopback keeps working without a
token unless ``C4_GATEWAY_AUTH_LOOPBACK=true``. The web page, health, metrics
and ``/tables/`` stay open.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Receive, Scope, Send

from .settings import GatewaySettings

log = logging.getLogger(__name__)

PROTECTED = ("/api/", "/mcp")


def sha256(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def is_loopback(host: str | None) -> bool:
    if not host:
        return False
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return host == "localhost"


class Auth:
    def __init__(self, settings: GatewaySettings) -> None:
        raw = [d.strip().lower() for d in (settings.auth_tokens_sha256 or "").split(",") if d.strip()]
        bad = [d for d in raw if len(d) != 64 or any(c not in "0123456789abcdef" for c in d)]
        if bad:
            raise ValueError(f"C4_GATEWAY_AUTH_TOKENS_SHA256: {bad[0][:16]!r}... is not a SHA-256 hex digest")
        self.digests = raw
        self.loopback = settings.auth_loopback

    @property
    def enabled(self) -> bool:
        return bool(self.digests)

    def valid(self, token: str | None) -> bool:
        if not token or not self.digests:
            return False
        mine = sha256(token)
        return any(hmac.compare_digest(mine, d) for d in self.digests)

    def required_for(self, host: str | None) -> bool:
        return self.enabled and (self.loopback or not is_loopback(host))


def bearer(headers: list[tuple[bytes, bytes]]) -> str | None:
    for k, v in headers:
        if k == b"authorization":
            scheme, _, token = v.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" else None
    return None


class BearerAuthMiddleware:
    """ASGI: refuses protected paths without a valid bearer token (see the module doc)."""

    def __init__(self, app: ASGIApp, settings: GatewaySettings) -> None:
        self.app = app
        self.auth = Auth(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or not self.auth.enabled \
                or not scope.get("path", "").startswith(PROTECTED):
            return await self.app(scope, receive, send)
        client = scope.get("client")
        if not self.auth.required_for(client[0] if client else None):
            return await self.app(scope, receive, send)
        token = bearer(scope.get("headers") or [])
        if token is None and scope["type"] == "websocket":
            token = (parse_qs(scope.get("query_string", b"").decode("latin-1")).get("access_token") or [None])[0]
        if self.auth.valid(token):
            return await self.app(scope, receive, send)
        why = "no bearer token" if token is None else "that bearer token is not one of this gateway's"
        message = (f"unauthorized: {why}; send 'Authorization: Bearer TOKEN' (this gateway listens beyond "
                   "loopback and C4_GATEWAY_AUTH_TOKENS_SHA256 is set)")
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 4401, "reason": "unauthorized"})
            return
        body = json.dumps({"error": {"code": "unauthorized", "message": message}}).encode()
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"www-authenticate", b'Bearer realm="connect4"')]})
        await send({"type": "http.response.body", "body": body})
