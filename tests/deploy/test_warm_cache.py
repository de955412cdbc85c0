"""The image's warm numba cache: ``deploy/warm_cache.py`` (what the Dockerfile
runs) fills ``NUMBA_CACHE_DIR`` by starting each service until SERVING (and
compiling the large boards they pre-warm in the background); a
service (or bookgen worker) started afterwards with the same cache finds every
kernel there and compiles (writes) nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


def snapshot(cache: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(cache)): (p.stat().st_mtime_ns, p.stat().st_size)
            for p in cache.rglob("*") if p.is_file()}


def warm(cache: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["NUMBA_CACHE_DIR"] = str(cache)
    return subprocess.run([sys.executable, "deploy/warm_cache.py"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=1100)


def test_warm_cache_is_complete(tmp_path):
    cache = tmp_path / "numba"
    first = warm(cache)
    assert first.returncode == 0, first.stderr[-3000:]
    assert "engine SERVING" in first.stderr and "solver SERVING" in first.stderr
    filled = snapshot(cache)
    indexes = [name for name in filled if name.endswith(".nbi")]
    assert indexes, "no numba cache index written"
    # kernels of the game library and of each service are in it
    for package in ("connect4_", "solver_", "engine_svc_"):
        assert any(name.startswith(package) for name in indexes), (package, sorted(indexes)[:20])

    second = warm(cache)
    assert second.returncode == 0, second.stderr[-3000:]
    assert snapshot(cache) == filled, "a warm start compiled kernels again"

    # a bookgen worker's warm-up, as it runs before taking tasks, finds its kernels too
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    worker = subprocess.run([sys.executable, "-c", "from books.bookgen.tasks import _warm; _warm()"],
                            cwd=REPO, env={**env, "NUMBA_CACHE_DIR": str(cache)}, capture_output=True, text=True)
    assert worker.returncode == 0, worker.stderr[-3000:]
    assert snapshot(cache) == filled, "the bookgen worker compiled kernels the image does not carry"
