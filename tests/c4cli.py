"""The c4 command run in-process by tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def run_c4(argv: list[str], capsys) -> tuple[int, str]:
    """(exit status, stderr) of ``c4 ARGV``; an exception escaping the command fails the test."""
    from c4.main import main

    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refuses a value
        code = exc.code
    return code, capsys.readouterr().err


def c4_process(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``c4 ARGS`` as a real process from the repository's root (text output captured)."""
    return subprocess.run([sys.executable, "-m", "c4", *args], cwd=Path(__file__).resolve().parents[1],
                          capture_output=True, text=True, timeout=timeout)
