"""A progress line on stderr: positions done, rate and time left."""

from __future__ import annotations

import sys
import time
from typing import TextIO


def _duration(seconds: float) -> str:
    seconds = int(max(0, seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s"


class Progress:
    """``[#####.....] 120/560 positions  3.4/s  left 2m09s``.

    The total may grow while the job runs (a tree being expanded); the time
    left is then a lower bound. On a terminal the line is redrawn in place,
    otherwise one line is printed every ``every_s`` seconds.
    """

    def __init__(self, label: str = "positions", stream: TextIO | None = None, every_s: float = 10.0):
        self.label = label
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.every_s = every_s if not self.tty else 0.2
        self.t0 = time.monotonic()
        self.last = 0.0
        self.done0: int | None = None

    def line(self, done: int, total: int, extra: str = "") -> str:
        elapsed = time.monotonic() - self.t0
        if self.done0 is None:
            self.done0 = done
        fresh = done - self.done0  # work of this run (a rerun starts with some done)
        rate = fresh / elapsed if elapsed > 0 else 0.0
        left = (total - done) / rate if rate > 0 else float("inf")
        width = 24
        fill = int(width * done / total) if total else width
        eta = _duration(left) if left != float("inf") else "?"
        text = f"[{'#' * fill}{'.' * (width - fill)}] {done}/{total} {self.label}  {rate:.2f}/s  left {eta}  elapsed {_duration(elapsed)}"
        return text + (f"  {extra}" if extra else "")

    def update(self, done: int, total: int, extra: str = "", force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < self.every_s:
            return
        self.last = now
        text = self.line(done, total, extra)
        if self.tty:
            self.stream.write("\r\x1b[2K" + text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def finish(self, done: int, total: int, extra: str = "") -> None:
        self.update(done, total, extra, force=True)
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
