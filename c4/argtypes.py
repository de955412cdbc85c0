"""argparse types that refuse a bad value while the command line is read.

A bad value ends the command before any work with argparse's usual two
lines and exit status 2, the option named::

    usage: c4 match [-h] ...
    c4 match: error: argument --games: must be even (...), got 3

Each factory returns a converter for ``add_argument(type=...)``.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def _span(lo: float | None, hi: float | None, lo_open: bool = False) -> str:
    if lo is not None and hi is not None:
        return f"more than {lo} and at most {hi}" if lo_open else f"in {lo}..{hi}"
    if lo is not None:
        return f"more than {lo}" if lo_open else f"at least {lo}"
    return f"at most {hi}"


def int_in(lo: int | None = None, hi: int | None = None, note: str = ""):
    """A whole number within ``lo..hi`` (either end may be open)."""

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise argparse.ArgumentTypeError(f"must be {_span(lo, hi)}{note}, got {value}")
        return value

    convert.__name__ = "integer"
    return convert


def float_in(lo: float | None = None, hi: float | None = None, lo_open: bool = False, note: str = ""):
    """A number within ``lo..hi``; ``lo_open``: strictly above ``lo``."""

    def convert(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        low = lo is not None and (value <= lo if lo_open else value < lo)
        if low or (hi is not None and value > hi):
            raise argparse.ArgumentTypeError(f"must be {_span(lo, hi, lo_open)}{note}, got {value:g}")
        return value

    convert.__name__ = "number"
    return convert


def even_games(text: str) -> int:
    """A game count for paired openings: even and at least 2."""
    value = int_in(2, note=" (each opening is played from both seats)")(text)
    if value % 2:
        raise argparse.ArgumentTypeError(
            f"must be even (each opening is played from both seats): use {value - 1} or {value + 1}, got {value}")
    return value


def int_list(lo: int | None = None, hi: int | None = None):
    """Comma-separated whole numbers, each within ``lo..hi``, at least one."""
    one = int_in(lo, hi)

    def convert(text: str) -> list[int]:
        items = [t.strip() for t in text.split(",") if t.strip()]
        if not items:
            raise argparse.ArgumentTypeError(f"wants comma-separated whole numbers, got {text!r}")
        return [one(t) for t in items]

    convert.__name__ = "list"
    return convert


def existing_file(text: str) -> str:
    """A path to a readable regular file."""
    path = Path(text).expanduser()
    if not path.exists():
        raise argparse.ArgumentTypeError(f"no such file: {text}")
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"not a file: {text}")
    try:
        with path.open("rb"):
            pass
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot read {text}: {exc.strerror}") from None
    return text


def tt_log2(text: str) -> int:
    """The solver's table size as a power of two, within the range the table accepts."""
    from solver_svc.solver.layout import MAX_LOG2, MIN_LOG2

    return int_in(MIN_LOG2, MAX_LOG2, note=" (a table of 2**N entries)")(text)


def table_mb(text: str) -> float:
    """The engine's table size in megabytes: more than 0, at most 64 GB."""
    return float_in(0, 65536, lo_open=True)(text)
