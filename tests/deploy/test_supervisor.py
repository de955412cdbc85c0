"""The supervisor behind ``c4 up`` on real processes: staged start with
readiness, restart of a child that dies, SIGINT stops every process of the
stack (grandchildren too), a killed supervisor takes its children along, and
the JSON log lines come out readable and prefixed."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from c4.stack.logsink import LogSink
from c4.stack.supervisor import stack_processes

REPO = Path(__file__).resolve().parents[2]

RUNNER = r"""
import sys, pathlib
from c4.stack.logsink import LogSink
from c4.stack.supervisor import ChildSpec, Supervisor
tmp = pathlib.Path(sys.argv[1]); stack_id = sys.argv[2]
py = sys.executable
# "family" spawns a grandchild (a sleep) in its process group, then waits.
family = [py, "-c", "import subprocess, time; subprocess.Popen(['sleep', '1000']); time.sleep(1000)"]
# "slow" becomes ready only when its file exists (it writes it after starting).
slow = [py, "-c", "import pathlib, sys, time; print('{\"ts\":\"2026-01-01T00:00:00.000Z\",\"level\":\"info\",'"
        "'\"msg\":\"hello\",\"k\":1}', flush=True); time.sleep(0.5); pathlib.Path(sys.argv[1]).write_text('x'); time.sleep(1000)",
        str(tmp / "slow.ready")]
specs = [
    ChildSpec("slow", slow, stage=0, ready=lambda: ((tmp / "slow.ready").exists(), "file")),
    ChildSpec("family", family, stage=1, stop_timeout=5),
    ChildSpec("plain", ["sleep", "1000"], stage=1),
]
sink = LogSink(sys.stdout, color=False)
sup = Supervisor(specs, sink, state_file=tmp / "state.json", stack_id=stack_id, start_timeout=60)
sup.install_signal_handlers()
def ready():
    sup.extra_state["ready"] = True
    sup.write_state()
sys.exit(sup.run(on_ready=ready))
"""


def wait_for(predicate, what: str, timeout: float = 60.0, proc: subprocess.Popen | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"supervisor exited with {proc.returncode} while waiting for {what}")
        time.sleep(0.1)
    raise AssertionError(f"gave up waiting for {what}")


def read_state(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


@pytest.fixture
def supervised(tmp_path):
    stack_id = uuid.uuid4().hex[:12]
    with open(tmp_path / "out.log", "wb") as log:
        proc = subprocess.Popen([sys.executable, "-c", RUNNER, str(tmp_path), stack_id], cwd=REPO,
                                stdout=log, stderr=subprocess.STDOUT)
        state = tmp_path / "state.json"
        yield proc, state, stack_id, tmp_path
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in stack_processes(stack_id):  # never leave anything behind, even when a test failed
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_restart_then_sigint_leaves_no_process(supervised):
    proc, state, stack_id, tmp = supervised
    wait_for(lambda: read_state(state).get("ready"), "the stack to be ready", proc=proc)
    children = read_state(state)["children"]
    assert all(c["state"] == "ready" for c in children.values()), children
    # slow (stage 0) was ready before the stage-1 children were started
    out = (tmp / "out.log").read_text()
    assert out.index("slow is ready") < out.index("started family")
    # every process carries the stack id: 3 children and the sleep grandchild (the supervisor does not)
    wait_for(lambda: len(stack_processes(stack_id)) == 4, "4 processes of the stack")

    old = children["family"]["pid"]
    old_group = [pid for pid in stack_processes(stack_id) if os.getpgid(pid) == old]
    assert len(old_group) == 2  # the child and its sleep, in the child's own process group
    os.kill(old, signal.SIGKILL)
    fresh = wait_for(lambda: (lambda c: c["pid"] not in (None, old) and c["state"] == "ready" and c)(
        read_state(state)["children"]["family"]), "family to come back", proc=proc)
    assert fresh["restarts"] == 1 and fresh["last_exit"] == -signal.SIGKILL
    # the old group's grandchild went with it
    wait_for(lambda: not set(old_group) & set(stack_processes(stack_id)), "the old family to be gone")
    wait_for(lambda: len(stack_processes(stack_id)) == 4, "exactly one family of processes")

    proc.send_signal(signal.SIGINT)
    assert proc.wait(60) == 0
    assert stack_processes(stack_id) == []
    final = read_state(state)["children"]
    assert all(c["state"] == "stopped" and c["pid"] is None for c in final.values()), final
    out = (tmp / "out.log").read_text()
    assert "all processes stopped" in out
    # a JSON log line of a child is rendered readable, with its prefix
    assert any(line.startswith("slow") and "| 00:00:00.000 INFO    hello  k=1" in line for line in out.splitlines())


@pytest.mark.skipif(not shutil.which("setpriv"), reason="no setpriv: no parent-death signal")
def test_killed_supervisor_takes_children_along(supervised):
    proc, state, stack_id, _ = supervised
    wait_for(lambda: read_state(state).get("ready"), "the stack to be ready", proc=proc)
    plain = read_state(state)["children"]["plain"]["pid"]
    proc.kill()
    proc.wait()
    # direct children get SIGTERM from the kernel; "plain" (a sleep) dies of it
    wait_for(lambda: not Path(f"/proc/{plain}").exists() or ") Z " in Path(f"/proc/{plain}/stat").read_text(),
             "the orphaned child to die")


def test_log_sink_renders_json_and_plain_lines():
    out = io.StringIO()
    sink = LogSink(out, color=False)
    sink.set_names(["gateway"])
    sink.write("gateway", json.dumps({"ts": "2026-11-30T06:05:22.552Z", "level": "warning", "service": "gateway",
                                      "logger": "x", "msg": "slow move", "request_id": "ab12", "ms": 12.5}) + "\n")
    sink.write("gateway", "plain text\n")
    sink.write("gateway", '{"not": "a log record"}\n')
    lines = out.getvalue().splitlines()
    assert lines[0] == "gateway    | 06:05:22.552 WARNING slow move  request_id=ab12 ms=12.5"
    assert lines[1] == "gateway    | plain text"
    assert lines[2] == 'gateway    | {"not": "a log record"}'


def quick_supervisor(specs, out: io.StringIO):
    from c4.stack.supervisor import Supervisor

    sup = Supervisor(specs, LogSink(out, color=False), stack_id=uuid.uuid4().hex[:12], start_timeout=30)
    sup.BACKOFF_S = (0.0,)
    return sup


def test_a_child_that_keeps_failing_before_ready_stops_the_start():
    from c4.stack.supervisor import ChildSpec

    out = io.StringIO()
    # an error, then a line of no interest (as uvicorn's "Application shutdown complete.")
    lines = ('{"ts": "2026-01-01T00:00:00.000Z", "level": "error", "msg": "bad file"}', "bye")
    broken = ChildSpec("broken", [sys.executable, "-c", f"print({lines[0]!r}); print({lines[1]!r}); raise SystemExit(3)"],
                       ready=lambda: (False, "never"))
    sup = quick_supervisor([broken, ChildSpec("later", ["sleep", "1000"], stage=1)], out)
    assert sup.run() == 1  # not a wait for the whole start timeout
    assert ("broken exited 4 times before it was ready (last exit code 3): ERROR   bad file"
            in out.getvalue())
    assert sup.child("later").proc is None


def test_a_stop_while_starting_starts_no_further_stage():
    import threading

    from c4.stack.supervisor import ChildSpec

    out = io.StringIO()
    sup = quick_supervisor([ChildSpec("first", ["sleep", "1000"], ready=lambda: (False, "not yet")),
                            ChildSpec("second", ["sleep", "1000"], stage=1)], out)
    runner = threading.Thread(target=sup.run)
    runner.start()
    wait_for(lambda: sup.child("first").running(), "the first stage to start")
    sup.request_stop()
    runner.join(60)
    assert not runner.is_alive()
    assert sup.child("second").proc is None, out.getvalue()
    assert not sup.child("first").running()


def test_the_summary_survives_a_console_nobody_reads(tmp_path):
    """`c4 up | head`: once head is gone, writing the summary must not stop the stack."""
    class Gone(io.StringIO):
        def write(self, _text):
            raise BrokenPipeError(32, "Broken pipe")

    sink = LogSink(Gone(), file=tmp_path / "stack.log", color=False)
    sink.announce("Connect Four is up.")
    sink.close()
    assert (tmp_path / "stack.log").read_text() == "Connect Four is up.\n"
