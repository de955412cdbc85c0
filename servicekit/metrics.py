"""Prometheus metrics over HTTP for processes that are not web servers."""

from __future__ import annotations

import logging

from prometheus_client import start_http_server

log = logging.getLogger(__name__)


def start_metrics_server(port: int, host: str = "127.0.0.1") -> None:
    """Serve ``/metrics`` on host:port in a daemon thread; port 0 turns it off."""
    if port:
        start_http_server(port, addr=host)
        log.info("metrics listening", extra={"address": f"{host}:{port}"})
