"""Prometheus metrics over HTTP for processes that are not web servers
(with ``/healthz`` beside ``/metrics``: :mod:`.health_http`)."""

from __future__ import annotations

from .health_http import HealthCheck, HealthServer


def start_metrics_server(port: int, host: str = "127.0.0.1", health: HealthCheck | None = None) -> HealthServer | None:
    """Serve ``/metrics`` and ``/healthz`` on host:port in daemon threads; port 0 turns it off."""
    if not port:
        return None
    return HealthServer(port, host, health).start()
