"""The FastAPI application: REST, WebSocket, MCP, health, metrics, the web page,
and (in its lifespan) the JSON socket bridge and the turn sweeper."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from redis.exceptions import RedisError
from starlette.exceptions import HTTPException as StarletteHTTPException

import connect4

from . import api, static, tables_api
from .auth import BearerAuthMiddleware
from .bridge import Bridge
from .errors import GameError
from .games import Games
from .limits import BodyLimitMiddleware, SocketCount
from .mcp_identity import McpIdentityMiddleware
from .mcp_server import build_mcp
from .metrics import GAMES_IN_PLAY, ObservabilityMiddleware
from .services import Services
from .settings import GatewaySettings
from .store import Store, redis_full

log = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parent.parent


def _error(status: int, code: str, message: str, request: Request | None = None,
           extra: dict[str, Any] | None = None) -> JSONResponse:
    if request is not None:
        request.scope["c4_error_code"] = code
    body: dict[str, Any] = {"error": {"code": code, "message": message}}
    if extra:
        body.update(extra)
    return JSONResponse(body, status_code=status)


def _describe(errors: Sequence[Any]) -> str:
    parts = []
    for e in errors:
        where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
        if e.get("type") == "json_invalid":
            ctx = e.get("ctx") or {}
            return f"bad JSON: {ctx.get('error', e.get('msg'))}"
        parts.append(f"{where}: {e.get('msg')}" if where else str(e.get("msg")))
    return "; ".join(parts) or "bad request"


def create_app(settings: GatewaySettings | None = None) -> FastAPI:
    settings = settings or GatewaySettings()
    web_dir = Path(settings.web_dir) if settings.web_dir else REPO / "web"
    mcp = build_mcp()
    mcp_starlette = mcp.streamable_http_app(
        streamable_http_path="/mcp", stateless_http=True, json_response=True,
        transport_security=_no_rebinding_check(),
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(settings.redis_url, settings.game_ttl_s, settings.finished_ttl_s,
                      connect_timeout_s=settings.redis_connect_timeout_s,
                      socket_timeout_s=settings.redis_socket_timeout_s,
                      max_connections=settings.redis_max_connections,
                      pool_timeout_s=settings.redis_pool_timeout_s)
        services = Services(settings.engine_addr, settings.solver_addr, settings.rpc_timeout_s, settings.rpc_retries)
        games = Games(store, services, settings)
        app.state.settings = settings
        app.state.store = store
        app.state.services = services
        app.state.games = games
        app.state.sockets = SocketCount(settings.ws_per_client)
        mcp.gateway = games  # the tools reach the games through this
        mcp.on_gateway_ready()
        games.start()
        bridge = None
        if settings.bridge_port:
            bridge = Bridge(games, settings)
            await bridge.start()
            app.state.bridge = bridge
        log.info("gateway ready", extra={"http": f"{settings.host}:{settings.port}",
                                          "bridge": f"{settings.bridge_host}:{settings.bridge_port}"})
        async with mcp.session_manager.run():
            try:
                yield
            finally:
                if bridge:
                    await bridge.stop()
                await games.stop()
                await services.close()
                await store.close()

    app = FastAPI(
        title="Connect Four gateway",
        version=connect4.__version__,
        description="Games in Redis; REST, WebSocket, a JSON socket bridge and MCP. See docs/api.md.",
        lifespan=lifespan,
    )
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    app.add_middleware(ObservabilityMiddleware)
    app.add_middleware(McpIdentityMiddleware)  # issues each MCP client its namespace key
    app.add_middleware(BearerAuthMiddleware, settings=settings)  # outermost: optional bearer tokens

    @app.exception_handler(GameError)
    async def game_error(request: Request, exc: GameError) -> JSONResponse:
        request.scope["c4_error_code"] = exc.code
        response = JSONResponse(exc.body(), status_code=exc.status)
        if exc.retry_after_s is not None or exc.status in (429, 503):
            retry = exc.retry_after_s if exc.retry_after_s is not None else settings.retry_after_s
            response.headers["Retry-After"] = str(max(1, math.ceil(retry)))
        return response

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(400, "bad_request", _describe(exc.errors()), request)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {400: "bad_request", 404: "not_found", 405: "method_not_allowed",
                413: "too_large"}.get(exc.status_code, "http_error")
        detail = str(exc.detail)
        if exc.status_code == 400 and detail == "There was an error parsing the body":
            # JSON nested deeper than the parser goes ('[' * 100000): Python's RecursionError
            detail = "bad JSON: it cannot be read (nested too deeply?)"
        return _error(exc.status_code, code, detail, request)

    async def redis_down(request: Request, exc: Exception) -> JSONResponse:
        if redis_full(exc):
            log.warning("redis full", extra={"error": repr(exc)})
            return _error(507, "storage_full", "the game store is full (Redis maxmemory): nothing was saved; "
                          "finished games expire and free room, try again later", request)
        log.warning("redis unavailable", extra={"error": repr(exc)})
        response = _error(503, "service_unavailable", f"redis unavailable: {exc}", request)
        response.headers["Retry-After"] = str(settings.retry_after_s)
        return response

    app.add_exception_handler(RedisError, redis_down)
    app.add_exception_handler(ConnectionError, redis_down)

    @app.exception_handler(Exception)
    async def crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error")
        return _error(500, "internal", "internal error", request)

    app.include_router(api.router)
    app.include_router(tables_api.router)

    @app.get("/healthz", tags=["health"], summary="The process runs")
    async def healthz() -> dict[str, str]:
        return {"status": "ok", "version": connect4.__version__}

    @app.get("/readyz", tags=["health"], summary="Redis and both services answer")
    async def readyz(request: Request) -> JSONResponse:
        out = {"status": "ready", "redis": "ok"}
        try:
            await asyncio.wait_for(request.app.state.store.ping(), 1.5)
        except Exception as exc:
            out["redis"] = f"down: {exc!r}"
        out.update(await request.app.state.services.health())
        ok = all(out[k] == "ok" for k in ("redis", "engine", "solver"))
        if not ok:
            out["status"] = "not ready"
        return JSONResponse(out, status_code=200 if ok else 503)

    @app.get("/metrics", include_in_schema=False)
    async def metrics(request: Request) -> Response:
        with contextlib.suppress(Exception):
            GAMES_IN_PLAY.set(await request.app.state.store.games_in_play())
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    @app.get("/mcp", include_in_schema=False)
    async def mcp_no_stream(request: Request) -> JSONResponse:
        # Stateless: there is no server-to-client stream to open, and the SDK would
        # hold the GET open forever. The MCP spec's answer for that is 405.
        response = _error(405, "method_not_allowed",
                          "this MCP endpoint is stateless: POST JSON-RPC requests to /mcp; there is no GET stream",
                          request)
        response.headers["Allow"] = "POST"
        return response

    # MCP: the SDK's streamable-HTTP endpoint as a route of this app.
    for route in mcp_starlette.routes:
        app.router.routes.append(route)

    static.install(app, web_dir)  # /, /static/: compressed, cached by content hash
    return app


def _no_rebinding_check() -> Any:
    from mcp.server.transport_security import TransportSecuritySettings

    # Served behind the gateway's own host name (compose, proxies): the Host
    # header is whatever the deployment uses, so the localhost-only check is off.
    return TransportSecuritySettings(enable_dns_rebinding_protection=False)
