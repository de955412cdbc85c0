"""Limits on what one client can make the gateway do: the request body cap,
open WebSockets per client (:class:`SocketCount`, per process) and per-client
rates (:class:`RateLimit`, in Redis: shared by every process and interface). Connection limits (headers, timeouts) are in
:mod:`gateway.http_guard` and uvicorn's options (``gateway/__main__.py``).

A cap on request bodies: a client cannot make the gateway read megabytes.

A declared ``Content-Length`` over the cap is refused before a byte is read; a
body without one (chunked) is counted as it arrives and refused when it passes
the cap. Either way the client gets 413 ``too_large`` as JSON, and nothing
reached a route.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import GameError
from .store import redis_full

if TYPE_CHECKING:
    from .store import Store

log = logging.getLogger(__name__)


class BodyTooLarge(HTTPException):
    """An HTTP error, so the web framework's own body parsing passes it on unchanged."""

    def __init__(self, max_bytes: int):
        super().__init__(413, f"the request body is over {max_bytes} bytes")


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or ()).get(b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > self.max_bytes
            except ValueError:
                too_big = False  # the server refuses a malformed length itself
            if too_big:
                return await self._refuse(send)
        seen = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps({"error": {"code": "too_large", "message": BodyTooLarge(self.max_bytes).detail}}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


class SocketCount:
    """Open WebSockets per client address in this process, at most ``cap`` each."""

    def __init__(self, cap: int):
        self.cap = cap
        self.open_by: dict[str, int] = {}

    def open(self, who: str) -> bool:
        n = self.open_by.get(who, 0)
        if n >= self.cap:
            return False
        self.open_by[who] = n + 1
        return True

    def close(self, who: str) -> None:
        n = self.open_by.get(who, 0) - 1
        if n > 0:
            self.open_by[who] = n
        else:
            self.open_by.pop(who, None)


class RateLimit:
    """A token bucket per client address and kind, kept in Redis: a burst of
    ``per_minute``, refilled at ``per_minute`` a minute, counted the same by every
    gateway process of the stack and every interface (REST, WebSocket, bridge, MCP).

    When Redis cannot count: a full Redis (maxmemory, it refuses the bucket's write)
    lets the request through, which then answers by itself (a create gets 507, an
    analysis, which writes nothing, is answered); a Redis that does not answer or
    cannot be reached gives 503 ``service_unavailable`` at once: the request needs
    Redis anyway, and waiting twice would double the client's wait."""

    def __init__(self, store: Store, kind: str, per_minute: int, what: str, retry_after_s: float = 1.0):
        self.store = store
        self.kind = kind
        self.capacity = float(per_minute)
        self.what = what
        self.retry_after_s = retry_after_s

    async def take(self, who: str) -> None:
        """Count one ``kind`` for ``who``; :class:`GameError` ``rate_limited`` (429 with
        Retry-After) when its bucket is empty."""
        if self.capacity <= 0:
            return  # 0 turns the limit off
        try:
            wait = await self.store.take_token(self.kind, who, self.capacity, self.capacity / 60.0)
        except (RedisError, OSError) as exc:
            if redis_full(exc):
                log.warning("rate not counted: redis is full", extra={"kind": self.kind, "client": who})
                return
            raise GameError("service_unavailable", f"redis unavailable: {exc}",
                            retry_after_s=self.retry_after_s) from None
        if wait > 0:
            raise GameError("rate_limited", f"too many {self.what} from this address (at most "
                            f"{self.capacity:g} a minute); try again in {wait:.1f} s", retry_after_s=wait)


def client_address(scope_client: Any) -> str:
    """The client's address as the server saw it (behind a proxy: uvicorn's
    ``--proxy-headers`` / ``FORWARDED_ALLOW_IPS`` make it the real client's)."""
    return str(scope_client.host) if scope_client is not None else "?"
