"""``/healthz`` on the metrics port follows the gRPC health status of a real
server, and ``python -m servicekit.healthcheck`` (the compose probe) turns it
into an exit code without importing grpc."""

from __future__ import annotations

import subprocess
import sys
import urllib.error
import urllib.request

from grpc_health.v1 import health_pb2

from servicekit.grpc_server import build_server, health_status, mark_serving
from servicekit.health_http import HealthServer


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def probe(url: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "servicekit.healthcheck", url, "5"],
                          capture_output=True, text=True, timeout=60)


def test_healthz_follows_grpc_health():
    server, servicer, _ = build_server("127.0.0.1:0", lambda s: ["demo.v1.Demo"], max_workers=2)
    server.start()
    http = HealthServer(0, "127.0.0.1", health_status(servicer)).start()
    url = f"http://127.0.0.1:{http.port}"
    try:
        assert get(url + "/healthz") == (503, "NOT_SERVING\n")  # warming up
        failed = probe(url + "/healthz")
        assert failed.returncode == 1 and "HTTP 503 NOT_SERVING" in failed.stderr
        mark_serving(servicer)
        assert get(url + "/healthz") == (200, "SERVING\n")
        assert probe(url + "/healthz").returncode == 0
        status, body = get(url + "/metrics")
        assert status == 200 and "grpc_server_requests_total" in body
        assert get(url + "/nothing")[0] == 404
        servicer.enter_graceful_shutdown()  # what a stopping service does first
        assert get(url + "/healthz") == (503, "NOT_SERVING\n")
    finally:
        http.stop()
        server.stop(0)


def test_a_failing_check_is_unhealthy_and_the_server_lives_on():
    def broken() -> tuple[bool, str]:
        raise RuntimeError("boom")

    http = HealthServer(0, "127.0.0.1", broken).start()
    try:
        for _ in range(2):
            code, body = get(f"http://127.0.0.1:{http.port}/healthz")
            assert code == 503 and "RuntimeError: boom" in body
    finally:
        http.stop()


def test_probe_reports_nothing_listening_and_bad_arguments():
    http = HealthServer(0, "127.0.0.1").start()
    port = http.port
    http.stop()  # the port is closed now
    down = probe(f"http://127.0.0.1:{port}/healthz")
    assert down.returncode == 1 and "Connection refused" in down.stderr
    bad = subprocess.run([sys.executable, "-m", "servicekit.healthcheck"], capture_output=True, text=True)
    assert bad.returncode == 2 and "usage" in bad.stderr
    wrong = probe("not-a-url")
    assert wrong.returncode == 1 and "ValueError" in wrong.stderr


def test_probe_imports_only_the_standard_library():
    code = ("import runpy, sys; sys.argv = ['x', 'http://127.0.0.1:9/healthz', '0.5']\n"
            "try:\n    runpy.run_module('servicekit.healthcheck', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('grpc', 'prometheus_client', 'celery', 'numba', 'numpy', 'pydantic'))\n"
            "print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out


def test_overall_status_name():
    server, servicer, _ = build_server("127.0.0.1:0", lambda s: ["demo.v1.Demo"], max_workers=2)
    check = health_status(servicer)
    assert check() == (False, "NOT_SERVING")
    mark_serving(servicer)
    assert check() == (True, health_pb2.HealthCheckResponse.ServingStatus.Name(health_pb2.HealthCheckResponse.SERVING))
    server.stop(0)
