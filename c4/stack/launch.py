"""A ``c4 up`` in a child process, for fault tests and ``c4 bench faults``:
free ports, its own data folder, its state file read back, waits on its
children, and a stop that leaves no process of the stack behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Self

from .plan import free_port
from .supervisor import stack_processes
import contextlib

REPO = Path(__file__).resolve().parents[2]


class StackExited(RuntimeError):
    """``c4 up`` ended while something was awaited."""


class UpProcess:
    def __init__(self, data_dir: Path, workers: int = 1, extra_args: tuple[str, ...] = (),
                 env: dict[str, str] | None = None, start_timeout_s: float = 480.0):
        self.data = Path(data_dir)
        self.data.mkdir(parents=True, exist_ok=True)
        self.http_port, self.bridge_port = free_port(), free_port()
        self.workers = workers
        self.log_path = self.data / "up.out"
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - open for the stack's whole life
        child_env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        child_env.update(env or {})
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "c4.main", "up", "--http-port", str(self.http_port),
             "--bridge-port", str(self.bridge_port), "--data-dir", str(self.data), "--workers", str(workers),
             "--color", "never", "--start-timeout", str(start_timeout_s), *extra_args],
            cwd=REPO, env=child_env, stdout=self._log, stderr=subprocess.STDOUT,
        )
        self.url = f"http://127.0.0.1:{self.http_port}"

    # -- reading -----------------------------------------------------------------------
    def tail(self, n: int = 60) -> str:
        lines = self.log_path.read_text(errors="replace").splitlines()
        return "\n".join(lines[-n:])

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def state(self) -> dict:
        try:
            return json.loads((self.data / "stack.json").read_text())
        except (OSError, ValueError):
            return {}

    def child(self, name: str) -> dict:
        return self.state().get("children", {}).get(name, {})

    @property
    def redis_url(self) -> str:
        return self.state()["redis_url"]

    # -- waiting -----------------------------------------------------------------------
    def wait(self, predicate, what: str, timeout: float = 300.0, every: float = 0.1):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            if self.proc.poll() is not None:
                raise StackExited(f"c4 up exited ({self.proc.returncode}) while waiting for {what}:\n{self.tail()}")
            time.sleep(every)
        raise TimeoutError(f"gave up waiting for {what} after {timeout:g}s:\n{self.tail()}")

    def wait_ready(self, timeout: float = 900.0) -> Self:
        self.wait(lambda: self.state().get("ready"), "every child to be ready", timeout)
        return self

    def wait_back(self, name: str, old_pid: int | None, timeout: float = 300.0) -> dict:
        """The child running again, ready, under another pid than ``old_pid``."""
        def back() -> dict | None:
            c = self.child(name)
            return c if c.get("state") == "ready" and c.get("pid") not in (None, old_pid) else None
        return self.wait(back, f"{name} to be ready again", timeout)

    # -- the end -----------------------------------------------------------------------
    def stop(self) -> None:
        stack_id = self.state().get("stack_id")
        for c in self.state().get("children", {}).values():  # a stopped child must be able to leave
            if c.get("pid"):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(c["pid"], signal.SIGCONT)
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(90)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if stack_id:
            for pid in stack_processes(stack_id):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        self._log.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
