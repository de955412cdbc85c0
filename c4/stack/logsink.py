"""One readable log for all the children of ``c4 up``: every line prefixed
with its child's name (in colour on a terminal), the JSON lines of
``servicekit.logs`` rendered as ``time level message key=value``, to the
console and a file."""

from __future__ import annotations

import json
import threading
from collections import deque
from pathlib import Path
from typing import TextIO

_COLORS = ["36", "32", "35", "33", "34", "96", "92", "95", "93", "94"]
_LEVEL_COLORS = {"warning": "33", "error": "31", "critical": "31"}
_SKIP_KEYS = {"ts", "level", "service", "logger", "msg", "color_message"}


class LogSink:
    """One readable log for all children: a console and, optionally, a file."""

    def __init__(self, console: TextIO, file: Path | None = None, color: bool | None = None, raw: bool = False):
        self.console = console
        self.color = console.isatty() if color is None else color
        self.raw = raw
        self.lock = threading.Lock()
        self.width = 10
        self.file = open(file, "a", encoding="utf-8", buffering=1) if file else None  # noqa: SIM115 (held open)
        self._colors: dict[str, str] = {}

    def set_names(self, names: list[str]) -> None:
        self.width = max([self.width, *map(len, names)])
        for name in names:
            self._colors.setdefault(name, _COLORS[len(self._colors) % len(_COLORS)])

    def render(self, line: str) -> tuple[str, str]:
        """(text, level) of one line of a child; JSON log lines made readable."""
        line = line.rstrip("\r\n")
        if self.raw or not line.startswith("{"):
            return line, ""
        try:
            record = json.loads(line)
        except ValueError:
            return line, ""
        if not isinstance(record, dict) or "msg" not in record:
            return line, ""
        ts = str(record.get("ts", ""))
        clock = ts[11:23] if len(ts) >= 23 else ts
        level = str(record.get("level", "")).lower()
        extras = " ".join(
            f"{k}={v if isinstance(v, (int, float, bool)) or v is None else json.dumps(v) if ' ' in str(v) else v}"
            for k, v in record.items() if k not in _SKIP_KEYS and k != "exc"
        )
        text = f"{clock} {level.upper():<7} {record['msg']}" + (f"  {extras}" if extras else "")
        if record.get("exc"):
            text += "\n" + str(record["exc"])
        return text, level

    def write(self, name: str, line: str) -> None:
        text, level = self.render(line)
        prefix = f"{name:<{self.width}} | "
        plain = "\n".join(prefix + part for part in text.split("\n"))
        if self.color:
            pcol = f"\x1b[{self._colors.get(name, '37')}m{name:<{self.width}}\x1b[0m | "
            body = text if level not in _LEVEL_COLORS else f"\x1b[{_LEVEL_COLORS[level]}m{text}\x1b[0m"
            shown = "\n".join(pcol + part for part in body.split("\n"))
        else:
            shown = plain
        self._emit(shown, plain)

    def announce(self, text: str) -> None:
        """Unprefixed lines (the summary once the stack is up), to the console and the file."""
        self._emit(text, text)

    def _emit(self, shown: str, plain: str) -> None:
        """``shown`` to the console, ``plain`` to the log file. A console nobody reads
        any more (``c4 up | head``) must not stop the stack."""
        with self.lock:
            try:
                self.console.write(shown + "\n")
                self.console.flush()
            except (OSError, ValueError):
                pass
            if self.file:
                self.file.write(plain + "\n")

    def note(self, message: str) -> None:
        """A line from the supervisor itself."""
        self.write("c4 up", message)

    def close(self) -> None:
        if self.file:
            self.file.close()
            self.file = None


def pump(stream, name: str, sink: LogSink, tail: deque) -> None:
    """Every line of a child's output stream into the sink under its name; the
    last readable ones (text, level) into ``tail``, for its last words."""
    with stream:
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace")
            text, level = sink.render(line)
            if text.strip():  # a JSON record without its clock: "ERROR   [Errno 98] ..."
                tail.append((text.split(" ", 1)[1].strip() if level else text.strip(), level))
            sink.write(name, line)
