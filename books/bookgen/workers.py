"""Start bookgen worker processes on this machine, and a Redis if asked.

A worker is a ``celery worker`` process with a prefork pool of one child:
the parent holds the broker connection, the child runs the tasks (the numba
solver). When the child dies mid-task (SIGKILL, out of memory) the parent
requeues the task at once (``task_reject_on_worker_lost``) and starts a new
child. When the whole worker dies, :class:`LocalWorkers` starts it again (a
few times, see ``max_restarts``) and the task it held goes back to the queue
once its heartbeat has expired (:mod:`.heartbeat`).
``c4 bookgen worker`` runs the same command in the foreground.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from servicekit.redis_binary import require_redis_server

from .config import settings
import contextlib

REPO = Path(__file__).resolve().parent.parent.parent


def worker_argv(name: str, concurrency: int = 1, loglevel: str = "WARNING", queues: str | None = None) -> list[str]:
    cfg = settings()
    return [
        "worker",
        "--pool", "prefork",
        "--concurrency", str(concurrency),
        "--queues", queues or f"{cfg.queue},{cfg.learn_queue}",
        "--hostname", name,
        "--loglevel", loglevel,
        "--without-gossip", "--without-mingle",
        "--prefetch-multiplier", "1",
    ]


def worker_command(name: str, concurrency: int = 1, loglevel: str = "WARNING") -> list[str]:
    return [sys.executable, "-m", "celery", "--app", "books.bookgen.app:app", *worker_argv(name, concurrency, loglevel)]


class LocalWorkers:
    """K worker processes against ``redis_url``; stopped with :meth:`stop`."""

    def __init__(self, count: int, redis_url: str, log_dir: str | os.PathLike | None = None,
                 loglevel: str = "WARNING", extra_env: dict[str, str] | None = None, max_restarts: int = 3,
                 on_restart=None):
        self.count = count
        self.redis_url = redis_url
        self.log_dir = Path(log_dir) if log_dir else Path(tempfile.mkdtemp(prefix="c4-bookgen-"))
        self.loglevel = loglevel
        self.extra_env = extra_env or {}
        self.max_restarts = max_restarts  # per worker; one more death ends the run
        self.on_restart = on_restart  # called with (worker number, exit code) after a restart
        self.procs: list[subprocess.Popen] = []
        self.restarts: list[int] = []

    def _env(self) -> dict[str, str]:
        env = dict(os.environ, REDIS_URL=self.redis_url, **self.extra_env)
        env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
        return env

    def _spawn(self, i: int) -> subprocess.Popen:
        name = f"bookgen{i + 1}-{os.getpid()}@{socket.gethostname()}"
        with open(self.log_dir / f"worker{i + 1}.log", "ab") as log:
            return subprocess.Popen(worker_command(name, 1, self.loglevel), env=self._env(), cwd=REPO,
                                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def start(self) -> LocalWorkers:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        for i in range(self.count):
            self.procs.append(self._spawn(i))
            self.restarts.append(0)
        return self

    def check(self) -> None:
        """Start a worker again that exited (its pool process goes with it);
        raise when one died more than ``max_restarts`` times (so the
        coordinator does not wait forever on workers that cannot run)."""
        for i, p in enumerate(self.procs):
            if p.poll() is None:
                continue
            _kill_group(p)  # its pool process, if it outlived it
            if self.restarts[i] >= self.max_restarts:
                raise RuntimeError(f"local worker {i + 1} exited with {p.returncode} after {self.restarts[i]} "
                                   f"restart(s); see {self.log_dir}/worker{i + 1}.log")
            self.restarts[i] += 1
            self.procs[i] = self._spawn(i)
            if self.on_restart:
                self.on_restart(i + 1, p.returncode)

    def stop(self, timeout: float = 20.0) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)  # warm shutdown: the idle worker leaves at once
        deadline = time.monotonic() + timeout
        for p in self.procs:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _kill_group(p)
                p.wait(5)
            _kill_group(p)  # whatever is left of its group (an orphaned pool process)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def _kill_group(p: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(p.pid, signal.SIGKILL)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalRedis:
    """A redis-server on a free port with its data in ``workdir`` (append-only
    file on, so a rerun in the same folder finds the results again)."""

    def __init__(self, workdir: str | os.PathLike, port: int | None = None):
        self.workdir = Path(workdir)
        self.port = port or _free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 60.0) -> LocalRedis:
        """Start it and return once it answers PING (not merely once its port is
        open: with an append-only file to read it answers LOADING first)."""
        from servicekit.redis_ready import RedisNotReady, wait_redis_ready

        binary = require_redis_server()
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.workdir),
             "--appendonly", "yes", "--save", "", "--protected-mode", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        try:
            wait_redis_ready(self.url, timeout, proc=self.proc)
        except RedisNotReady as err:
            self.stop()
            raise RuntimeError(f"redis-server on port {self.port}: {err}") from None
        return self

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
