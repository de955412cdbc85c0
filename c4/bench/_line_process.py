"""Another solver as a process speaking Pascal Pons' line protocol, for benchmarks.

We write one move string (1-based column digits) and a newline; it answers
``moves score`` and may add ``nodes`` and ``time_us`` (his benchmark main
prints all four: the nodes and the microseconds of ``solve()`` alone). Every
answer is checked: it must echo the line sent (else the two are out of
step), and its other fields must be whole numbers. A process that exits,
answers garbage, answers out of step or stays silent past the timeout
raises :class:`LineProcessFailed` naming the line.

``cpu_ns()`` is the CPU time the process and its descendants have used, from
Linux's ``/proc/PID/task/TID/schedstat`` (nanoseconds, every thread); None
where that is not available. Threads or children that ended are no longer
counted, so a solver measured this way should keep its threads alive.
"""

from __future__ import annotations

import os
import select
import shlex
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass
import contextlib

STDERR_KEPT = 20  # last lines of the process's stderr quoted in an error


class LineProcessFailed(RuntimeError):
    """The other solver failed a line: the message names it."""


@dataclass(frozen=True)
class Answer:
    score: int
    nodes: int | None  # its third field, when it prints one
    time_us: int | None  # its fourth field (its own timer), when it prints one


def parse_argv(command: str) -> list[str]:
    """The argv of ``command`` (shell words, run without a shell); ValueError when empty or unbalanced."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ValueError(f"cannot parse the command {command!r}: {exc}") from None
    if not argv:
        raise ValueError("the command is empty")
    return argv


def parse_answer(text: str, moves: str, where: str) -> Answer:
    """One output line of the other solver; LineProcessFailed when it is not ``moves score [nodes [time_us]]``."""
    fields = text.split()
    if not fields:
        raise LineProcessFailed(f"{where} ({moves}): the other solver answered an empty line "
                                "(it rejected the position)")
    if fields[0] != moves:
        raise LineProcessFailed(f"{where} ({moves}): out of step, the other solver answered {text.strip()[:80]!r}")
    numbers = []
    for f in fields[1:4]:
        if not f.lstrip("-").isdigit():
            raise LineProcessFailed(f"{where} ({moves}): garbage answer {text.strip()[:80]!r} ({f!r} is not a number)")
        numbers.append(int(f))
    if not numbers:
        raise LineProcessFailed(f"{where} ({moves}): garbage answer {text.strip()[:80]!r} (no score)")
    nodes = numbers[1] if len(numbers) > 1 else None
    time_us = numbers[2] if len(numbers) > 2 else None
    return Answer(numbers[0], nodes, time_us)


def _children_of() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            ppid = int(stat[stat.rindex(b")") + 2:].split()[1])  # the name may hold spaces: fields after ')'
            kids.setdefault(ppid, []).append(int(name))
    return kids


def tree_cpu_ns(pid: int, children: dict[int, list[int]] | None = None) -> int | None:
    """CPU nanoseconds of every thread of ``pid`` and of its descendants; None without schedstat."""
    total, todo, seen = 0, [pid], False
    while todo:
        p = todo.pop()
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{p}/task/{tid}/schedstat") as f:
                    total += int(f.read().split()[0])
                    seen = True
            except (OSError, ValueError, IndexError):
                continue
        if children is not None:
            todo.extend(children.get(p, ()))
    return total if seen else None


class LineProcess:
    """One running solver process; ``ask(moves, where)`` sends a line and returns its checked answer."""

    def __init__(self, argv: list[str], timeout_s: float):
        self.argv = argv
        self.timeout_s = timeout_s
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as exc:
            raise LineProcessFailed(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from None
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr  # all three are pipes
        self._stdin, self._stdout, self._stderr = self.proc.stdin, self.proc.stdout, self.proc.stderr
        self._out = self._stdout.fileno()
        self._buffer = b""
        self.stderr_lines: deque[str] = deque(maxlen=STDERR_KEPT)
        self._err = threading.Thread(target=self._drain_stderr, daemon=True, name="vs-stderr")
        self._err.start()
        self._with_children = False  # set when the process turns out to have children

    def _drain_stderr(self) -> None:
        for raw in self._stderr:
            line = raw.decode("utf-8", "replace").rstrip()
            if line:
                self.stderr_lines.append(line)

    def cpu_ns(self) -> int | None:
        children = _children_of() if self._with_children or self._has_children() else None
        return tree_cpu_ns(self.proc.pid, children)

    def _has_children(self) -> bool:
        kids = _children_of().get(self.proc.pid)
        self._with_children = bool(kids)
        return self._with_children

    def ask(self, moves: str, where: str) -> Answer:
        try:
            self._stdin.write(moves.encode() + b"\n")
            self._stdin.flush()
        except (BrokenPipeError, OSError):
            raise LineProcessFailed(f"{where} ({moves}): {self._gone()}") from None
        return parse_answer(self._read_line(moves, where), moves, where)

    def _read_line(self, moves: str, where: str) -> str:
        end = time.monotonic() + self.timeout_s
        while b"\n" not in self._buffer:
            left = end - time.monotonic()
            if left <= 0:
                raise LineProcessFailed(f"{where} ({moves}): no answer within {self.timeout_s:g} s")
            ready, _, _ = select.select([self._out], [], [], left)
            if ready:
                data = os.read(self._out, 1 << 16)
                if not data:
                    raise LineProcessFailed(f"{where} ({moves}): {self._gone()}")
                self._buffer += data
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode("utf-8", "replace")

    def _gone(self) -> str:
        try:
            code = self.proc.wait(5)
        except subprocess.TimeoutExpired:
            code = None
        self._err.join(1)
        said = f"; its stderr: {' | '.join(self.stderr_lines)}" if self.stderr_lines else ""
        return f"the other solver closed its output (exit status {code}) instead of answering{said}"

    def close(self) -> None:
        proc = self.proc
        with contextlib.suppress(OSError):
            self._stdin.close()
        try:
            proc.wait(2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        self._stdout.close()
        self._err.join(1)
        self._stderr.close()
