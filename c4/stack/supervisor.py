"""A small process supervisor: start children in stages, wait until each is
ready, restart one that dies, stop them all cleanly, leave nothing behind.

- Each child runs in its own session (so its own process group): Ctrl-C in a
  terminal reaches only the supervisor, which then stops the children in the
  reverse order of their stages, SIGTERM to the whole group first, SIGKILL to
  the group after a grace period. Grandchildren (Celery's pool, uvicorn
  workers) are in the same group, so they go too.
- Where ``setpriv`` exists, a child is started with a parent-death signal:
  if the supervisor itself is killed with SIGKILL, the children get SIGTERM
  instead of living on as orphans.
- Every child carries ``C4_STACK_ID`` in its environment, so a test (or a
  person) can find every process of one stack in ``/proc``.
- stdout and stderr of every child go through one pump into one log, each line
  prefixed with the child's name; the JSON lines of ``servicekit.logs`` are
  rendered as ``time level message key=value``.
- Readiness and liveness probes run on threads of their own, so a probe that
  waits for its timeout never holds up the loop: the state (pids, restarts,
  readiness) is written to a JSON file within a poll (0.2 s) of every change,
  and at least once a second, atomically, for tests and for ``cat``.
- A child with a liveness probe (``alive``) that stops answering while it runs
  (a SIGSTOPped or wedged Redis) is reported ``unresponsive`` in the log and
  the state file, and killed and restarted once it has not answered for
  ``hang_restart_s``.
- ``restarts`` counts every restart of a child for the supervisor's whole
  life; the back-off step (how long the next restart waits) is kept apart
  and reset after a minute of health.

The supervisor knows nothing of Connect Four: :mod:`c4.stack.plan` says what
to run. The log is :mod:`c4.stack.logsink`'s, the metrics
:mod:`c4.stack.child_metrics`'.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable
import contextlib

from .logsink import LogSink, pump

ReadyCheck = Callable[[], "tuple[bool, str]"]


@dataclass
class ChildSpec:
    """What to run and how to know it is ready."""

    name: str
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    ready: ReadyCheck | None = None  # None: ready as soon as it runs
    stage: int = 0  # children of one stage start together, after the stage before is ready
    cwd: str | None = None
    stop_timeout: float = 10.0
    info: dict = field(default_factory=dict)  # addresses etc., copied into the state file
    alive: ReadyCheck | None = None  # asked while it is ready: does it still answer?
    hang_restart_s: float | None = None  # restart it after this long without an answer (None: only report)


@dataclass
class Child:
    spec: ChildSpec
    proc: subprocess.Popen | None = None
    state: str = "new"  # new, starting, ready, unresponsive, backoff, stopping, stopped, failed
    restarts: int = 0  # every restart since the supervisor started (never reset)
    backoff_step: int = 0  # index into BACKOFF_S for the next restart; reset after STABLE_S of health
    started_at: float = 0.0
    ready_at: float = 0.0
    restart_at: float = 0.0
    last_exit: int | None = None
    last_probe: str = ""
    next_probe_at: float = 0.0
    pump: threading.Thread | None = None
    early_exits: int = 0  # exits since it was last ready (a child that never gets ready stops the start)
    probe: Future | None = None  # the readiness or liveness probe in flight
    silent_since: float | None = None  # when its liveness probe first failed (None: it answers)
    silent_why: str = ""
    tail: deque = field(default_factory=lambda: deque(maxlen=10))  # its last (line, level)s, for errors

    def last_words(self) -> str:
        """Its last error line among the last lines of output (else its last line)."""
        errors = [line for line, level in self.tail if level in ("error", "critical")]
        return (errors or [line for line, _ in self.tail] or [""])[-1]

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


class StackFailed(RuntimeError):
    """A child could not be started or never became ready."""


# --------------------------------------------------------------------------- supervisor


class Supervisor:
    """Runs a list of :class:`ChildSpec` until :meth:`request_stop`."""

    POLL_S = 0.2
    PROBE_EVERY_S = 0.5
    BACKOFF_S = (0.5, 1, 2, 4, 8, 15, 30)
    STABLE_S = 60.0  # a child up this long has its back-off reset
    STATE_EVERY_S = 1.0  # the state file is rewritten at least this often
    START_ATTEMPTS = 4  # a child that exits this often before it is ever ready fails the start

    def __init__(
        self,
        specs: list[ChildSpec],
        sink: LogSink,
        state_file: Path | None = None,
        stack_id: str = "",
        start_timeout: float = 600.0,
        extra_state: dict | None = None,
    ):
        names = [s.name for s in specs]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate child names: {names}")
        self.children = [Child(spec) for spec in specs]
        self.sink = sink
        self.sink.set_names([*names, "c4 up"])
        self.state_file = state_file
        self.stack_id = stack_id
        self.start_timeout = start_timeout
        self.extra_state = extra_state or {}
        self._stop = threading.Event()
        self._stops_requested = 0
        self._setpriv = shutil.which("setpriv")
        self.on_change: Callable[[Supervisor], None] | None = None
        self._probes = ThreadPoolExecutor(max_workers=max(1, len(specs)), thread_name_prefix="probe")
        self._written_at = 0.0

    # -- public ------------------------------------------------------------

    def child(self, name: str) -> Child:
        for c in self.children:
            if c.spec.name == name:
                return c
        raise KeyError(name)

    def request_stop(self, *_args) -> None:
        """Signal-safe: the first call stops cleanly, a second one kills at once."""
        self._stops_requested += 1
        self._stop.set()

    def install_signal_handlers(self) -> None:
        signal.signal(signal.SIGINT, self.request_stop)
        signal.signal(signal.SIGTERM, self.request_stop)
        if hasattr(signal, "SIGHUP"):
            signal.signal(signal.SIGHUP, self.request_stop)

    def run(self, on_ready: Callable[[], None] | None = None) -> int:
        """Start every stage, call on_ready, supervise until stopped; then stop all.

        Returns 0 after a requested stop, 1 when the stack could not start.
        """
        code = 0
        try:
            self.start_all()
            if on_ready and not self._stop.is_set():
                on_ready()
            while not self._stop.is_set():
                self._tick()
                self._stop.wait(self.POLL_S)
        except StackFailed as err:
            self.sink.note(f"cannot start the stack: {err}")
            code = 1
        finally:
            self.stop_all()
        return code

    def start_all(self) -> None:
        stages = sorted({c.spec.stage for c in self.children})
        for stage in stages:
            group = [c for c in self.children if c.spec.stage == stage]
            for c in group:
                self._spawn(c)
            deadline = time.monotonic() + self.start_timeout
            while not self._stop.is_set():
                self._tick()
                waiting = [c for c in group if c.state != "ready"]
                if not waiting:
                    break
                for c in waiting:
                    if c.early_exits >= self.START_ATTEMPTS:
                        last = f": {c.last_words()}" if c.tail else ""
                        raise StackFailed(f"{c.spec.name} exited {c.early_exits} times before it was ready "
                                          f"(last exit code {c.last_exit}){last}")
                if time.monotonic() > deadline:
                    detail = ", ".join(
                        f"{c.spec.name} ({c.state}: "
                        + (f"last exit code {c.last_exit}" if c.state == "backoff" else c.last_probe or "no answer")
                        + ")" for c in waiting)
                    raise StackFailed(f"not ready after {self.start_timeout:.0f}s: {detail}")
                self._stop.wait(self.POLL_S)
            if self._stop.is_set():  # stopped while starting: start no further stage
                return

    def stop_all(self) -> None:
        """Stop children, last stage first; SIGKILL what outlives its grace period."""
        for stage in sorted({c.spec.stage for c in self.children}, reverse=True):
            group = [c for c in self.children if c.spec.stage == stage]
            for c in group:
                if c.running():
                    c.state = "stopping"
                    self.sink.note(f"stopping {c.spec.name} (pid {c.pid})")
                    self._signal_group(c, signal.SIGTERM)
                    self._signal_group(c, signal.SIGCONT)  # a stopped (SIGSTOP) child must run to leave
                else:
                    c.state = "stopped"
            for c in group:
                if c.proc is None:
                    continue
                deadline = time.monotonic() + c.spec.stop_timeout
                while c.proc.poll() is None and time.monotonic() < deadline and self._stops_requested < 2:
                    time.sleep(0.05)
                if c.proc.poll() is None:
                    self.sink.note(f"{c.spec.name} did not stop in time: SIGKILL")
                # Whatever is left of the group (grandchildren included) goes now.
                self._signal_group(c, signal.SIGKILL)
                c.proc.wait()
                c.last_exit = c.proc.returncode
                c.state = "stopped"
                self._join_pump(c)
        self._probes.shutdown(wait=False, cancel_futures=True)
        self.write_state()
        self.sink.note("all processes stopped")

    # -- internals ---------------------------------------------------------

    def _spawn(self, c: Child) -> None:
        spec = c.spec
        env = {**os.environ, **spec.env, "C4_STACK_ID": self.stack_id, "PYTHONUNBUFFERED": "1"}
        argv = list(spec.argv)
        if self._setpriv:  # SIGTERM the child if the supervisor dies without cleaning up
            argv = [self._setpriv, "--pdeathsig", "TERM", "--", *argv]
        try:
            c.proc = subprocess.Popen(
                argv, env=env, cwd=spec.cwd, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
            )
        except OSError as err:
            raise StackFailed(f"{spec.name}: cannot run {spec.argv[0]}: {err}") from err
        c.state = "starting"
        c.started_at = time.monotonic()
        c.next_probe_at = 0.0
        c.last_probe = ""
        c.probe = None  # a probe of the last process may still run: its answer is not this one's
        c.silent_since = None
        c.pump = threading.Thread(target=pump, args=(c.proc.stdout, spec.name, self.sink, c.tail),
                                  name=f"log-{spec.name}", daemon=True)
        c.pump.start()
        self.sink.note(f"started {spec.name} (pid {c.pid}): {' '.join(spec.argv)}")
        self.write_state()

    def _signal_group(self, c: Child, sig: int) -> None:
        if c.proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(c.proc.pid, sig)

    def _join_pump(self, c: Child) -> None:
        if c.pump is not None:
            c.pump.join(timeout=2)
            c.pump = None

    def _backoff(self, c: Child) -> float:
        return self.BACKOFF_S[min(c.backoff_step, len(self.BACKOFF_S) - 1)]

    def _probe_result(self, c: Child, check: ReadyCheck) -> tuple[bool, str] | None:
        """The answer of the probe in flight, if it came; else start one when due.
        Probes run on the pool, so one that waits for its timeout holds up nothing."""
        if c.probe is not None:
            if not c.probe.done():
                return None
            fut, c.probe = c.probe, None
            try:
                return fut.result()
            except Exception as err:  # noqa: BLE001 - a probe must not stop the supervisor
                return False, f"{type(err).__name__}: {err}"
        if time.monotonic() >= c.next_probe_at:
            c.next_probe_at = time.monotonic() + self.PROBE_EVERY_S
            with contextlib.suppress(RuntimeError):  # the pool is shut down: stopping
                c.probe = self._probes.submit(check)
        return None

    def _watch(self, c: Child, now: float) -> bool:
        """Liveness of a ready (or unresponsive) child; True when its state changed."""
        if c.spec.alive is None:
            return False
        answer = self._probe_result(c, c.spec.alive)
        if answer is None:
            if c.silent_since is None or c.spec.hang_restart_s is None:
                return False
        else:
            ok, why = answer
            if ok:
                if c.silent_since is None:
                    return False
                self.sink.note(f"{c.spec.name} answers again after {now - c.silent_since:.1f}s")
                c.silent_since, c.silent_why, c.state = None, "", "ready"
                return True
            c.silent_why = why
            if c.silent_since is None:
                c.silent_since = now
                c.state = "unresponsive"
                after = (f"; restarting it if it stays so for {c.spec.hang_restart_s:g}s"
                         if c.spec.hang_restart_s is not None else "")
                self.sink.note(f"{c.spec.name} (pid {c.pid}) does not answer: {why}{after}")
                return True
        if c.spec.hang_restart_s is not None and now - c.silent_since >= c.spec.hang_restart_s:
            self.sink.note(f"{c.spec.name} (pid {c.pid}) has not answered for {now - c.silent_since:.1f}s "
                           f"({c.silent_why}): SIGKILL, then restart")
            self._signal_group(c, signal.SIGKILL)  # a stopped process dies of SIGKILL too
            c.silent_since = None  # the exit is seen on a later tick
        return False

    def _tick(self) -> None:
        now = time.monotonic()
        changed = False
        for c in self.children:
            if c.state in ("starting", "ready", "unresponsive") and c.proc is not None and c.proc.poll() is not None:
                code = c.proc.returncode
                c.last_exit = code
                self._signal_group(c, signal.SIGKILL)  # leftovers of its group
                c.proc.wait()
                self._join_pump(c)
                if now - c.started_at > self.STABLE_S:
                    c.backoff_step = 0
                if c.state == "starting":
                    c.early_exits += 1
                delay = self._backoff(c)
                why = f"signal {-code}" if code < 0 else f"code {code}"
                self.sink.note(f"{c.spec.name} exited ({why}); restarting in {delay:g}s")
                c.state = "backoff"
                c.restart_at = now + delay
                changed = True
            elif c.state == "backoff" and now >= c.restart_at:
                c.restarts += 1
                c.backoff_step += 1
                self._spawn(c)
                changed = True
            elif c.state == "starting":
                answer = (True, "running") if c.spec.ready is None else self._probe_result(c, c.spec.ready)
                if answer is None:
                    continue
                ok, why = answer
                c.last_probe = why
                if ok and c.running():
                    c.state = "ready"
                    c.early_exits = 0
                    c.ready_at = time.monotonic()
                    self.sink.note(f"{c.spec.name} is ready ({c.ready_at - c.started_at:.1f}s)")
                    changed = True
            elif c.state in ("ready", "unresponsive"):
                changed = self._watch(c, now) or changed
        if changed or now - self._written_at >= self.STATE_EVERY_S:
            self.write_state()

    def snapshot(self) -> dict:
        return {
            "stack_id": self.stack_id,
            "pid": os.getpid(),
            "updated_at": round(time.time(), 3),
            **self.extra_state,
            "children": {
                c.spec.name: {
                    "pid": c.pid if c.running() else None,
                    "state": c.state,
                    "restarts": c.restarts,
                    "backoff_step": c.backoff_step,
                    "last_exit": c.last_exit,
                    **({"unresponsive_s": round(time.monotonic() - c.silent_since, 1),
                        "unresponsive_why": c.silent_why} if c.silent_since is not None else {}),
                    **c.spec.info,
                }
                for c in self.children
            },
        }

    def write_state(self) -> None:
        """Write the state file now (and tell on_change)."""
        self._written_at = time.monotonic()
        if self.on_change:
            self.on_change(self)
        if not self.state_file:
            return
        tmp = self.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.snapshot(), indent=2) + "\n")
        os.replace(tmp, self.state_file)


def stack_processes(stack_id: str) -> list[int]:
    """Pids of every live process whose environment carries C4_STACK_ID=stack_id."""
    marker = f"C4_STACK_ID={stack_id}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if marker in environ.split(b"\0") and ") Z " not in stat:  # zombies are already dead
            found.append(int(entry.name))
    return found


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use `c4 up`")
