"""A progress bar on stderr.

On a terminal the bar redraws itself in place; into a file or a pipe it
writes a plain line every tenth of the way (and at the end), so a log stays
readable.
"""

from __future__ import annotations

import sys
import time


def _clock(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    def __init__(self, total: int, unit: str = "items", stream=None, width: int = 28):
        self.total = total
        self.unit = unit
        self.stream = sys.stderr if stream is None else stream
        self.width = width
        self.done = 0
        self.t0 = time.monotonic()
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._next_line = 0
        self._finished = False

    def line(self, note: str = "") -> str:
        frac = self.done / self.total if self.total else 1.0
        filled = int(round(frac * self.width))
        elapsed = time.monotonic() - self.t0
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else 0.0
        bar = "█" * filled + "░" * (self.width - filled)
        text = f"{bar} {self.done}/{self.total} {self.unit} {frac:4.0%} {_clock(elapsed)} elapsed, eta {_clock(eta)}"
        return f"{text}  {note}" if note else text

    def advance(self, note: str = "", n: int = 1) -> None:
        self.done += n
        if self._tty:
            self.stream.write("\r\x1b[K" + self.line(note)[:200])
            self.stream.flush()
        elif self.done >= self._next_line or self.done == self.total:
            self.stream.write(self.line(note) + "\n")
            self.stream.flush()
            self._next_line = self.done + max(1, self.total // 10)

    def finish(self) -> None:
        if self._finished:
            return
        self._finished = True
        if self._tty:
            self.stream.write("\n")
            self.stream.flush()
