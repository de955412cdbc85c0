"""Wait until a freshly (re)started redis-server can serve: it accepts
connections before its append-only file is loaded and answers LOADING until
then, so an open port is not enough; a PING that answers PONG is.

The one helper for every place that starts a Redis (bookgen's LocalRedis,
the test fixtures); ``c4 up`` asks the same question through its readiness probe.
"""

from __future__ import annotations

import subprocess
import time


class RedisNotReady(RuntimeError):
    """The server did not answer PONG in time, or its process exited."""


def wait_redis_ready(url: str, timeout_s: float = 30.0, proc: subprocess.Popen | None = None) -> None:
    """Return once ``url`` answers PING; raise :class:`RedisNotReady` after
    ``timeout_s``, or at once when ``proc`` (the server's process) has exited."""
    import redis

    deadline = time.monotonic() + timeout_s
    last = "no answer"
    client = redis.Redis.from_url(url, socket_timeout=1.0, socket_connect_timeout=1.0)
    try:
        while True:
            if proc is not None and proc.poll() is not None:
                raise RedisNotReady(f"redis-server exited with code {proc.returncode} before it answered PING")
            try:
                if client.ping():
                    return
            except redis.exceptions.BusyLoadingError:
                last = "LOADING (reading its append-only file)"
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as err:
                last = f"{type(err).__name__}: {err}"
            if time.monotonic() > deadline:
                raise RedisNotReady(f"{url} did not answer PING within {timeout_s:g}s ({last})")
            time.sleep(0.05)
    finally:
        client.close()
