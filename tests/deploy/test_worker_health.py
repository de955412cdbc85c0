"""A bookgen worker's ``/healthz`` (the compose probe's target) follows its
Celery consumer: 503 while it starts, 200 once it takes tasks, 503 while its
Redis is gone, 200 again after Redis is back. Real parts: redis-server, the
worker as ``c4 bookgen worker`` in its own process, HTTP from here."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from c4.stack.plan import free_port
from tests.conftest import RedisServer

REPO = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def healthz(port: int) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()
    except OSError as err:
        return 0, str(err)


def wait_status(port: int, code: int, proc: subprocess.Popen, log: Path, timeout: float = 300) -> str:
    deadline = time.monotonic() + timeout
    seen = None
    while time.monotonic() < deadline:
        seen = healthz(port)
        if seen[0] == code:
            return seen[1]
        assert proc.poll() is None, f"the worker exited ({proc.returncode}):\n{log.read_text()[-3000:]}"
        time.sleep(0.2)
    raise AssertionError(f"/healthz never answered {code} (last: {seen}):\n{log.read_text()[-3000:]}")


def test_worker_health_follows_its_consumer(tmp_path):
    redis = RedisServer(tmp_path / "redis").start()
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis.url, "C4_BOOKGEN_HEALTH_PORT": str(port), "C4_BOOKGEN_WARM": "",
           "PYTHONPATH": str(REPO)}
    log = tmp_path / "worker.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "c4.main", "bookgen", "worker", "--name", "health@test"],
                                cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        assert "SERVING" in wait_status(port, 200, proc, log)
        redis.stop()
        assert "broker connection is lost" in wait_status(port, 503, proc, log, timeout=120)
        redis.start()  # the same port: the worker reconnects by itself
        assert "SERVING" in wait_status(port, 200, proc, log, timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        redis.stop()
