"""``python -m gateway``: HTTP (REST, WebSocket, MCP, the web page) and the bridge."""

from __future__ import annotations

from typing import Any

import uvicorn
from fastapi import FastAPI

from servicekit.logs import configure_logging
from servicekit.settings_check import settings_or_exit

from .app import create_app
from .settings import GatewaySettings


def app_from_env() -> FastAPI:
    """The app factory each worker process calls (``C4_GATEWAY_WORKERS`` > 1)."""
    settings = GatewaySettings()
    configure_logging("gateway", settings.log_level)
    return create_app(settings)


def main() -> None:
    # C4_GATEWAY_MCP_URL is c4 mcp-stdio's, not the gateway's
    settings = settings_or_exit(GatewaySettings, "gateway", also=["C4_GATEWAY_MCP_URL"])
    configure_logging("gateway", settings.log_level)
    common: dict[str, Any] = dict(host=settings.host, port=settings.port, log_config=None, access_log=False, lifespan="on",
                  ws_ping_interval=20, ws_max_size=64 * 1024)  # a watcher only sends pings
    if settings.workers > 1:
        # Several processes share the HTTP port (uvicorn) and the bridge port (SO_REUSEPORT);
        # all state is in Redis, so any of them serves any game.
        uvicorn.run("gateway.__main__:app_from_env", factory=True, workers=settings.workers, **common)
    else:
        uvicorn.run(create_app(settings), **common)


if __name__ == "__main__":
    main()
