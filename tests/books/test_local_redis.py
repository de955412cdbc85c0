"""LocalRedis (``c4 bookgen opening --start-redis DIR``) is ready only when
PING answers: restarted on a folder whose append-only file takes a while to
load, the first command after ``start()`` gets its answer, not LOADING."""

from __future__ import annotations

import pytest
import redis

from books.bookgen.workers import LocalRedis

pytestmark = pytest.mark.slow


def test_a_restart_on_a_large_append_only_file_waits_for_the_load(tmp_path):
    first = LocalRedis(tmp_path / "redis").start()
    try:
        client = redis.Redis.from_url(first.url)
        pipe = client.pipeline(transaction=False)
        value = "x" * 200
        for i in range(400_000):  # about 100 MB of append-only file: a load of a second or more
            pipe.set(f"k{i}", value)
            if i % 20_000 == 0:
                pipe.execute()
        pipe.execute()
        client.close()
    finally:
        first.stop()  # SIGTERM: the append-only file is flushed

    again = LocalRedis(tmp_path / "redis", port=first.port).start()
    try:
        client = redis.Redis.from_url(again.url)
        assert client.dbsize() == 400_000  # no BusyLoadingError: start() waited for PONG
        client.close()
    finally:
        again.stop()


def test_a_redis_that_cannot_start_is_a_clear_error(tmp_path):
    import socket

    with socket.socket() as busy:  # its port taken: redis-server exits at once, start() says so
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        with pytest.raises(RuntimeError, match="redis-server on port .*: redis-server exited with code 1"):
            LocalRedis(tmp_path / "redis", port=busy.getsockname()[1]).start()
