"""The supervisor under faults, on real processes in this test's process: a
restart counter that never resets, a state file that keeps up while a probe
hangs, and a real redis-server that is SIGSTOPped: reported unresponsive,
answering again after SIGCONT, killed and restarted when it stays silent,
with its data (append-only file) intact."""

from __future__ import annotations

import io
import json
import os
import signal
import threading
import time
import uuid
from pathlib import Path
from typing import Self

import pytest
import redis

from c4.stack import probe
from c4.stack.plan import free_port
from c4.stack.child_metrics import SupervisorCollector
from c4.stack.logsink import LogSink
from c4.stack.supervisor import ChildSpec, Supervisor


def read_state(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def wait_for(predicate, what: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


class Running:
    """A supervisor on a thread of this process, stopped (children and all) at the end."""

    def __init__(self, specs: list[ChildSpec], tmp: Path, **attrs):
        self.out = io.StringIO()
        self.state_file = tmp / "state.json"
        self.sup = Supervisor(specs, LogSink(self.out, color=False), state_file=self.state_file,
                              stack_id=uuid.uuid4().hex[:12], start_timeout=60)
        for name, value in attrs.items():
            setattr(self.sup, name, value)
        self.thread = threading.Thread(target=self.sup.run, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        for c in self.sup.children:  # a stopped child must be able to take its SIGTERM
            if c.running():
                os.killpg(c.pid, signal.SIGCONT)
        self.sup.request_stop()
        self.thread.join(60)

    def child(self, name: str) -> dict:
        return read_state(self.state_file).get("children", {}).get(name, {})

    def wait_child(self, name: str, predicate, what: str, timeout: float = 60.0) -> dict:
        def matching() -> dict | None:
            c = self.child(name)
            return c if c and predicate(c) else None
        return wait_for(matching, what, timeout)


def test_the_restart_counter_never_resets(tmp_path):
    """Two kills are two restarts, also when the back-off was reset in between (issue 20 item 7)."""
    with Running([ChildSpec("plain", ["sleep", "1000"])], tmp_path, STABLE_S=0.0, BACKOFF_S=(0.0, 5.0)) as run:
        for n in (1, 2):
            old = run.wait_child("plain", lambda c: c["state"] == "ready" and c["pid"], "plain to run")["pid"]
            os.kill(old, signal.SIGKILL)
            fresh = run.wait_child("plain", lambda c, old=old: c["state"] == "ready" and c["pid"] not in (None, old),
                                   f"restart {n}")
            assert fresh["restarts"] == n
            # every run counted as stable (STABLE_S 0), so the back-off began again: the first step each time
            assert fresh["backoff_step"] == 1
        samples = {(m.name, s.name): s.value for m in SupervisorCollector(run.sup).collect() for s in m.samples}
        assert samples[("c4_stack_child_restarts", "c4_stack_child_restarts_total")] == 2
        assert samples[("c4_stack_child_backoff_step", "c4_stack_child_backoff_step")] == 1


def test_the_state_file_keeps_up_while_a_probe_hangs(tmp_path):
    """A readiness probe that does not come back holds up nothing: the death of
    another child is in the state file at once, and the file is rewritten every second."""
    release = threading.Event()

    def stuck() -> tuple[bool, str]:
        release.wait(120)
        return False, "stuck"

    specs = [ChildSpec("plain", ["sleep", "1000"], stage=0),
             ChildSpec("stuck", ["sleep", "1000"], stage=1, ready=stuck)]
    try:
        with Running(specs, tmp_path, BACKOFF_S=(30.0,)) as run:
            old = run.wait_child("plain", lambda c: c["state"] == "ready" and c["pid"], "plain to run")["pid"]
            run.wait_child("stuck", lambda c: c["state"] == "starting", "stuck to be probed")
            os.kill(old, signal.SIGKILL)
            dead = run.wait_child("plain", lambda c: c["state"] == "backoff", "the exit in the state file", timeout=20)
            assert dead["last_exit"] == -signal.SIGKILL and dead["pid"] is None
            assert not release.is_set()  # the probe is still hanging
            first = read_state(run.state_file)["updated_at"]
            wait_for(lambda: read_state(run.state_file).get("updated_at", 0) > first, "a rewrite", timeout=20)
    finally:
        release.set()


def redis_spec(tmp: Path, port: int, hang_restart_s: float | None) -> ChildSpec:
    from c4.stack.plan import redis_server_binary

    binary = redis_server_binary()
    if not binary:
        pytest.skip("no redis-server")
    url = f"redis://127.0.0.1:{port}/0"
    (tmp / "redis").mkdir(exist_ok=True)
    return ChildSpec(
        "redis", [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp / "redis"),
                  "--appendonly", "yes", "--appendfsync", "everysec", "--save", ""],
        ready=lambda: probe.redis_ping(url, 1.0), alive=lambda: probe.redis_answers(url, 0.5),
        hang_restart_s=hang_restart_s, info={"url": url},
    )


def test_a_stopped_redis_is_reported_then_restarted_with_its_data(tmp_path):
    port = free_port()
    with Running([redis_spec(tmp_path, port, hang_restart_s=4.0)], tmp_path) as run:
        first = run.wait_child("redis", lambda c: c["state"] == "ready", "redis to be ready")
        client = redis.Redis(port=port, socket_timeout=5)
        client.set("game:kept", json.dumps({"moves": [4, 4]}))  # acknowledged: in the append-only file's page cache

        # stopped, then continued before the restart time: reported, then answering again, not restarted
        os.kill(first["pid"], signal.SIGSTOP)
        silent = run.wait_child("redis", lambda c: c["state"] == "unresponsive", "the report", timeout=30)
        assert "Timeout" in silent["unresponsive_why"] and silent["pid"] == first["pid"]
        assert f"redis (pid {first['pid']}) does not answer" in run.out.getvalue()
        os.kill(first["pid"], signal.SIGCONT)
        back = run.wait_child("redis", lambda c: c["state"] == "ready", "redis to answer again", timeout=30)
        assert back["pid"] == first["pid"] and back["restarts"] == 0 and "unresponsive_s" not in back
        assert "redis answers again after" in run.out.getvalue()

        # stopped for good: killed and restarted after hang_restart_s, the data still there
        os.kill(first["pid"], signal.SIGSTOP)
        fresh = run.wait_child("redis", lambda c: c["state"] == "ready" and c["pid"] not in (None, first["pid"]),
                               "redis to be restarted", timeout=60)
        assert fresh["restarts"] == 1 and fresh["last_exit"] == -signal.SIGKILL
        assert "has not answered for" in run.out.getvalue()
        client = redis.Redis(port=port, socket_timeout=5)
        assert json.loads(client.get("game:kept")) == {"moves": [4, 4]}
        client.close()
