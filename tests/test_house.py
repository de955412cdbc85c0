"""The house rules that tools check: the layer table of DESIGN.md as an import
contract (import-linter), ruff and mypy over the paths pyproject.toml
configures (``[tool.importlinter]``, ``[tool.ruff]``, ``[tool.mypy]``).

Each runs as the developer would run it, from the repository's root, and the
test shows the tool's own report when it fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> str:
    """The tool installed beside this interpreter (the virtualenv's), else on PATH."""
    beside = Path(sys.executable).with_name(name)
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: pip install -e '.[test]'")
    return found


def _run(argv: list[str], timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's packages, not an installed copy
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def test_imports_keep_the_layers_of_the_design():
    r = _run([_tool("lint-imports"), "--no-cache"])
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
    assert "0 broken" in r.stdout


def test_ruff_finds_nothing_on_the_configured_paths():
    r = _run([_tool("ruff"), "check", "--no-cache", "--output-format", "concise", "."])
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]


def test_mypy_finds_nothing_on_the_configured_paths():
    """Strict on connect4/, mypy's defaults elsewhere (``[tool.mypy]``)."""
    r = _run([_tool("mypy"), "--no-incremental"])
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
    assert "Success" in r.stdout
