"""Limits on what one client can make the gateway do: the request body cap,
open WebSockets per client (:class:`SocketCount`) and per-client rates
(:class:`RateLimit`). Connection limits (headers, timeouts) are in
:mod:`gateway.http_guard` and uvicorn's options (``gateway/__main__.py``).

A cap on request bodies: a client cannot make the gateway read megabytes.

A declared ``Content-Length`` over the cap is refused before a byte is read; a
body without one (chunked) is counted as it arrives and refused when it passes
the cap. Either way the client gets 413 ``too_large`` as JSON, and nothing
reached a route.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send


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
    """A token bucket per client address: a burst of ``per_minute``, refilled at
    ``per_minute`` a minute. :meth:`take` answers 0 (go) or the seconds to wait.
    Buckets that are full again are forgotten, so memory follows the active clients."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic):
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self.clock = clock
        self.buckets: dict[str, tuple[float, float]] = {}  # who -> (tokens, when)
        self._swept = clock()

    def take(self, who: str) -> float:
        if self.capacity <= 0:
            return 0.0  # 0 turns the limit off
        now = self.clock()
        tokens, when = self.buckets.get(who, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - when) * self.rate)
        if tokens < 1.0:
            self.buckets[who] = (tokens, now)
            return (1.0 - tokens) / self.rate
        self.buckets[who] = (tokens - 1.0, now)
        if now - self._swept > 60:
            self._sweep(now)
        return 0.0

    def _sweep(self, now: float) -> None:
        self._swept = now
        for who, (tokens, when) in list(self.buckets.items()):
            if tokens + (now - when) * self.rate >= self.capacity:
                del self.buckets[who]


def client_address(scope_client: Any) -> str:
    """The client's address as the server saw it (behind a proxy: uvicorn's
    ``--proxy-headers`` / ``FORWARDED_ALLOW_IPS`` make it the real client's)."""
    return str(scope_client.host) if scope_client is not None else "?"
