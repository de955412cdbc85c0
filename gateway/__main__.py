"""``python -m gateway``: HTTP (REST, WebSocket, MCP, the web page) and the bridge."""

from __future__ import annotations

from typing import Any

import uvicorn
from fastapi import FastAPI

from servicekit.logs import configure_logging
from servicekit.settings_check import settings_or_exit

from . import http_guard
from .app import create_app
from .settings import GatewaySettings


def app_from_env() -> FastAPI:
    """The app factory each worker process calls (``C4_GATEWAY_WORKERS`` > 1)."""
    settings = GatewaySettings()
    configure_logging("gateway", settings.log_level)
    http_guard.configure(settings.header_timeout_s, settings.max_header_bytes)
    return create_app(settings)


def server_options(settings: GatewaySettings) -> dict[str, Any]:
    """uvicorn's options: the gateway's connection limits (docs/gateway.md, Limits)."""
    return {
        "host": settings.host, "port": settings.port, "log_config": None, "access_log": False, "lifespan": "on",
        "http": http_guard.configure(settings.header_timeout_s, settings.max_header_bytes),
        "h11_max_incomplete_event_size": settings.max_header_bytes,
        "timeout_keep_alive": settings.keep_alive_timeout_s, "limit_concurrency": settings.limit_concurrency,
        "ws_ping_interval": 20, "ws_max_size": settings.ws_max_bytes}


def main() -> None:
    # C4_GATEWAY_MCP_URL is c4 mcp-stdio's, not the gateway's
    settings = settings_or_exit(GatewaySettings, "gateway", also=["C4_GATEWAY_MCP_URL"])
    configure_logging("gateway", settings.log_level)
    common = server_options(settings)
    if settings.workers > 1:
        # Several processes share the HTTP port (uvicorn) and the bridge port (SO_REUSEPORT);
        # all state is in Redis, so any of them serves any game.
        uvicorn.run("gateway.__main__:app_from_env", factory=True, workers=settings.workers, **common)
    else:
        uvicorn.run(create_app(settings), **common)


if __name__ == "__main__":
    main()
