"""The one progress line of every long job (arena, audit, bookgen), on stderr.

    ████████░░░░░░░░░░░░░░░░ 120/560 positions  21%  3.40/s  elapsed 1:02  left 2:09  note

On a terminal the line is redrawn in place (at most five times a second);
into a file or a pipe a plain line is written every tenth of the way or every
``every_s`` seconds, whichever comes first, and at the end, so a log stays
readable. The total may grow while a job runs (a tree being expanded): the
time left is then a lower bound. A rerun that starts with work already done
counts its rate from the work it does itself.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

REDRAW_S = 0.2  # on a terminal: the shortest time between two redraws


def clock(seconds: float) -> str:
    """``m:ss`` or ``h:mm:ss``."""
    seconds = int(max(seconds, 0))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    """Progress of ``total`` ``unit`` (the total may be given or changed later)."""

    def __init__(self, unit: str = "items", total: int = 0, stream: TextIO | None = None,
                 every_s: float = 10.0, width: int = 24):
        self.unit = unit
        self.total = total
        self.stream = sys.stderr if stream is None else stream
        self.every_s = every_s
        self.width = width
        self.done = 0
        self.t0 = time.monotonic()
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._done0: int | None = None  # done at the first report: a rerun's earlier work
        self._last = float("-inf")  # time of the last line written
        self._next_tenth = 0
        self._finished = False

    def line(self, note: str = "") -> str:
        elapsed = time.monotonic() - self.t0
        frac = min(1.0, self.done / self.total) if self.total else 1.0
        filled = int(round(frac * self.width))
        fresh = self.done - (self._done0 or 0)  # this run's work
        rate = fresh / elapsed if elapsed > 0 else 0.0
        left = clock((self.total - self.done) / rate) if rate > 0 else "?"
        text = (f"{'█' * filled}{'░' * (self.width - filled)} {self.done}/{self.total} {self.unit} {frac:4.0%}  "
                f"{rate:.2f}/s  elapsed {clock(elapsed)}  left {left}")
        return f"{text}  {note}" if note else text

    def advance(self, note: str = "", n: int = 1) -> None:
        """``n`` more done."""
        if self._done0 is None:
            self._done0 = 0  # counted from the start
        self.update(self.done + n, note=note)

    def update(self, done: int, total: int | None = None, note: str = "", force: bool = False) -> None:
        """``done`` of ``total`` (the total so far when None)."""
        if self._done0 is None:
            self._done0 = done  # work done before this run (a rerun) does not count for the rate
        self.done = done
        if total is not None:
            self.total = total
        now = time.monotonic()
        at_end = self.total > 0 and self.done >= self.total
        if self._tty:
            if force or at_end or now - self._last >= REDRAW_S:
                self._write("\r\x1b[2K" + self.line(note)[:200], now)
        elif force or at_end or self.done >= self._next_tenth or now - self._last >= self.every_s:
            self._write(self.line(note) + "\n", now)
            self._next_tenth = self.done + max(1, self.total // 10)

    def finish(self, done: int | None = None, total: int | None = None, note: str = "") -> None:
        """The last line (``done`` and ``total`` default to what was reported)."""
        if self._finished:
            return
        self._finished = True
        if done is not None or total is not None or note:
            self.update(self.done if done is None else done, total, note, force=True)
        if self._tty:
            self.stream.write("\n")
            self.stream.flush()

    def _write(self, text: str, now: float) -> None:
        self.stream.write(text)
        self.stream.flush()
        self._last = now
