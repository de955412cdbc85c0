"""Prometheus metrics of the gateway and the ASGI middleware that records them
(and sets the request id of every HTTP request)."""

from __future__ import annotations

import logging
import time

from prometheus_client import Counter, Gauge, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from servicekit.logs import REQUEST_ID, REQUEST_ID_HEADER, new_request_id

HTTP_REQUESTS = Counter("gateway_http_requests_total", "HTTP requests", ["method", "route", "status"])
HTTP_ERRORS = Counter("gateway_http_errors_total", "HTTP requests answered with an error", ["route", "code"])
HTTP_LATENCY = Histogram(
    "gateway_http_request_seconds", "HTTP request latency", ["method", "route"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)
GAMES_IN_PLAY = Gauge("gateway_games_in_play", "games not finished and not expired")
BRIDGE_COMMANDS = Counter("gateway_bridge_commands_total", "bridge commands", ["cmd", "outcome"])
MCP_CALLS = Counter("gateway_mcp_tool_calls_total", "MCP tool calls", ["tool", "outcome"])
LEARN_REQUESTS = Counter("gateway_learn_requests_total", "learn actions (REST, bridge, MCP)", ["outcome"])
WS_CLIENTS = Gauge("gateway_websocket_clients", "open WebSocket connections")

log = logging.getLogger("gateway.access")
QUIET = frozenset(("/metrics", "/healthz", "/readyz", "/static"))  # probes and files: counted, not logged


class ObservabilityMiddleware:
    """Pure ASGI (cheap): request id from ``x-request-id`` or new, echoed back;
    count and latency by route template."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "websocket":
                rid = dict(scope.get("headers") or ()).get(REQUEST_ID_HEADER.encode())
                token = REQUEST_ID.set(rid.decode() if rid else new_request_id())
                try:
                    return await self.app(scope, receive, send)
                finally:
                    REQUEST_ID.reset(token)
            return await self.app(scope, receive, send)
        rid = None
        for k, v in scope.get("headers") or ():
            if k == b"x-request-id":
                rid = v.decode("latin-1")[:64]
                break
        rid = rid or new_request_id()
        token = REQUEST_ID.set(rid)
        start = time.perf_counter()
        status = [500]

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + [(b"x-request-id", rid.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            path = _route_of(scope)
            method = scope["method"]
            seconds = time.perf_counter() - start
            HTTP_LATENCY.labels(method, path).observe(seconds)
            HTTP_REQUESTS.labels(method, path, str(status[0])).inc()
            code = None
            if status[0] >= 400:
                code = scope.get("c4_error_code", str(status[0]))
                HTTP_ERRORS.labels(path, code).inc()
            if path not in QUIET:  # one line a request, with its request id (the log formatter adds it)
                log.info("request", extra={"method": method, "route": path, "status": status[0],
                                           "ms": round(seconds * 1000, 2), **({"code": code} if code else {})})
            REQUEST_ID.reset(token)


def _route_of(scope: Scope) -> str:
    """The route template (``/api/v1/games/{game_id}/moves``), never a raw path: bounded labels."""
    route = scope.get("route")
    if route is not None and getattr(route, "path", None):
        return str(route.path)
    path = scope["path"]
    if path.startswith("/static"):
        return "/static"
    if path in ("/mcp", "/mcp/"):  # the MCP SDK's route sets no scope["route"]
        return "/mcp"
    return "other"
