"""A redis-server of a test's own (to stop, freeze or fill without touching the
session's), with any extra configuration: ``OwnRedis(tmp_path, "--maxmemory", "4mb")``."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import redis

from tests.conftest import free_port, redis_binary, wait_port


class OwnRedis:
    def __init__(self, workdir: Path, *extra: str):
        self.workdir, self.extra = workdir, extra
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def client(self, db: int = 0) -> redis.Redis:
        return redis.Redis.from_url(self.url(db), decode_responses=True)

    def start(self) -> OwnRedis:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.workdir),
             "--save", "", "--appendonly", "no", "--protected-mode", "no", *self.extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(self.port)
        deadline = time.monotonic() + 30
        while True:  # ready when PING answers (not when the port opens)
            try:
                self.client().ping()
                return self
            except redis.exceptions.BusyLoadingError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def freeze(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGCONT)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.thaw()
            self.proc.terminate()
            self.proc.wait(10)


def fill(client: redis.Redis) -> int:
    """Small values until Redis refuses (a big one would pass the limit only in its
    own query buffer, freed when it is refused)."""
    n = 0
    try:
        while True:
            pipe = client.pipeline(transaction=False)
            for i in range(200):
                pipe.set(f"junk:{n + i}", "x" * 512)
            pipe.execute()
            n += 200
    except redis.exceptions.OutOfMemoryError:
        pass
    # The refused pipeline's buffers are freed again: write one small value at a time
    # until even a small write is refused (then a game's save is too).
    while True:
        try:
            client.set(f"junk:{n}", "x" * 64)
            n += 1
        except redis.exceptions.OutOfMemoryError:
            break
    # Redis frees memory of its own (client buffers, expiring keys) between this
    # and the request under test, which a save could then fit into: put the limit
    # 1 MB below what is used, so Redis stays full until the junk is deleted.
    used = int(client.info("memory")["used_memory"])
    client.config_set("maxmemory", max(used - 1_000_000, 1_000_000))
    return n
