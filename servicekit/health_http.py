"""One small HTTP server per process on its metrics port: ``/metrics`` for
Prometheus and ``/healthz`` for container health checks.

``/healthz`` answers 200 ``SERVING`` or 503 with the reason, from a callable the
process gives (for a gRPC service: its own health servicer's status, the one
gRPC health clients see; for a bookgen worker: its Celery consumer's liveness).
A probe costs one HTTP request to a thread of the process, no gRPC client and
no Celery broadcast: ``python -m servicekit.healthcheck URL`` imports nothing
but the standard library.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest

log = logging.getLogger(__name__)

HealthCheck = Callable[[], tuple[bool, str]]  # -> (healthy, status text)


def _not_given() -> tuple[bool, str]:
    return True, "SERVING"


class _Handler(BaseHTTPRequestHandler):
    health: HealthCheck = staticmethod(_not_given)  # type: ignore[assignment]

    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        path = self.path.split("?", 1)[0]
        if path == "/metrics":
            self._send(200, generate_latest(REGISTRY), CONTENT_TYPE_LATEST)
        elif path == "/healthz":
            try:
                ok, status = type(self).health()
            except Exception as exc:  # a broken check is an unhealthy process, not a dead server
                ok, status = False, f"health check failed: {type(exc).__name__}: {exc}"
            self._send(200 if ok else 503, (status + "\n").encode(), "text/plain; charset=utf-8")
        else:
            self._send(404, b"not found: /metrics or /healthz\n", "text/plain; charset=utf-8")

    def _send(self, code: int, body: bytes, content_type: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - probes every few seconds: no log line each
        pass


class HealthServer:
    """``/metrics`` and ``/healthz`` on host:port, served by daemon threads."""

    def __init__(self, port: int, host: str = "127.0.0.1", health: HealthCheck | None = None):
        handler = type("Handler", (_Handler,), {"health": staticmethod(health or _not_given)})
        self._server = ThreadingHTTPServer((host, port), handler)
        self._server.daemon_threads = True
        self.host, self.port = host, self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, name="health-http", daemon=True)

    def start(self) -> HealthServer:
        self._thread.start()
        log.info("metrics and health listening", extra={"address": f"{self.host}:{self.port}",
                                                        "paths": "/metrics /healthz"})
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
