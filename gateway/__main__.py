"""``python -m gateway``: HTTP (REST, WebSocket, MCP, the web page) and the bridge."""

from __future__ import annotations

import uvicorn

from servicekit.logs import configure_logging

from .app import create_app
from .settings import GatewaySettings


def main() -> None:
    settings = GatewaySettings()
    configure_logging("gateway", settings.log_level)
    app = create_app(settings)
    uvicorn.run(app, host=settings.host, port=settings.port, log_config=None, access_log=False,
                lifespan="on", ws_ping_interval=20)


if __name__ == "__main__":
    main()
