"""The health-check command of the containers (``python -m c4.stack.probe``)
against real servers: exit 0 only when ready, 1 with a reason otherwise."""

from __future__ import annotations

import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from c4.stack.plan import free_port
from servicekit.grpc_server import build_server, mark_serving

REPO = Path(__file__).resolve().parents[2]


def probe(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "c4.stack.probe", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=60)


def test_grpc_probe_follows_health():
    server, health_servicer, port = build_server("127.0.0.1:0", lambda s: ["demo.v1.Demo"], max_workers=2)
    server.start()
    try:
        warming = probe("grpc", f"127.0.0.1:{port}")
        assert warming.returncode == 1 and "NOT_SERVING" in warming.stderr
        mark_serving(health_servicer)
        assert probe("grpc", f"127.0.0.1:{port}").returncode == 0
        assert probe("grpc", f"127.0.0.1:{port}", "--service", "demo.v1.Demo").returncode == 0
    finally:
        server.stop(0)
    down = probe("grpc", f"127.0.0.1:{port}", "--timeout", "1")
    assert down.returncode == 1 and "not ready" in down.stderr


@pytest.fixture
def http_server():
    status = {"code": 503}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(status["code"] if self.path == "/readyz" else 404)
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1], status
    server.shutdown()
    server.server_close()


def test_http_probe_needs_2xx(http_server):
    port, status = http_server
    url = f"http://127.0.0.1:{port}/readyz"
    not_ready = probe("http", url)
    assert not_ready.returncode == 1 and "HTTP 503" in not_ready.stderr
    status["code"] = 200
    assert probe("http", url).returncode == 0
    assert probe("tcp", f"127.0.0.1:{port}").returncode == 0


def test_redis_probe(redis_url):
    assert probe("redis", redis_url).returncode == 0
    dead = probe("redis", f"redis://127.0.0.1:{free_port()}/0", "--timeout", "1")
    assert dead.returncode == 1 and "ConnectionError" in dead.stderr
