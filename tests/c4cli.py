"""The c4 command run in-process by tests."""

from __future__ import annotations


def run_c4(argv: list[str], capsys) -> tuple[int, str]:
    """(exit status, stderr) of ``c4 ARGV``; an exception escaping the command fails the test."""
    from c4.main import main

    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refuses a value
        code = exc.code
    return code, capsys.readouterr().err
