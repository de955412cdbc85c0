"""An external solver process speaking Pascal Pons' line protocol.

The process is started like ``c4solver -a`` (analysis mode; extra arguments
pass through): we write a move string, 1-based digits from the empty board,
and a newline; it answers one line ``<moves> s1 ... sW``, the score of every
column, ``-1000`` for a full one (some solvers leave full columns out). An
illegal line is answered on stderr only, so we never send one: positions are
checked before they get here.

The process stays alive between queries. A query that outlives its deadline
cannot be interrupted in this protocol, so the process is killed and a fresh
one started; a process that dies, answers garbage or cannot start raises
:class:`ExternalFailed` and is restarted on its next use. The caller (the
oracle) lets the built-in solver answer instead.
"""

from __future__ import annotations

import logging
import queue
import shlex
import subprocess
import threading
import time

from connect4 import STANDARD, Geometry

from .metrics import EXTERNAL_FAILURES, EXTERNAL_RESTARTS
import contextlib

log = logging.getLogger(__name__)

FULL = -1000  # Pons' INVALID_MOVE
_EOF = object()
CANCEL_POLL_S = 0.05  # how often a waiting query looks whether it was cancelled


def _get(q: queue.Queue, timeout: float | None, cancelled):
    """``q.get(timeout=timeout)``, but raising :class:`Cancelled` soon after
    ``cancelled()`` turns true (looked at every CANCEL_POLL_S)."""
    if cancelled is None:
        return q.get(timeout=timeout)
    end = None if timeout is None else time.monotonic() + timeout
    while True:
        if cancelled():
            raise Cancelled("the query was cancelled")
        wait = CANCEL_POLL_S if end is None else min(CANCEL_POLL_S, end - time.monotonic())
        if wait <= 0:
            raise queue.Empty
        try:
            return q.get(timeout=wait)
        except queue.Empty:
            continue


class ExternalFailed(RuntimeError):
    """The external solver could not answer (died, bad output, would not start)."""


class ExternalTimeout(RuntimeError):
    """The deadline passed before the external solver answered."""


class Cancelled(ExternalTimeout):
    """The asker cancelled before the external solver answered (its search
    was killed, as at a deadline)."""


def command_line(cmd: str | list[str]) -> list[str]:
    """The argv of the external solver, with ``-a`` added when missing."""
    argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
    if not argv:
        raise ValueError("the external solver command is empty")
    if "-a" not in argv[1:]:
        argv.append("-a")
    return argv


def parse_answer(line: str, moves: str, pos) -> tuple[int | None, ...]:
    """One output line -> the score of every column (None for full columns)."""
    g = pos.geometry
    tokens = line.split()
    if moves and tokens and tokens[0] == moves:
        tokens = tokens[1:]
    elif moves:
        raise ExternalFailed(f"answer {line.strip()!r} does not echo the position {moves!r}")
    try:
        values = [int(t) for t in tokens]
    except ValueError:
        raise ExternalFailed(f"answer {line.strip()!r} has a score that is not a number") from None
    legal = pos.legal_moves()
    if len(values) == g.width:
        by_col = values
    elif len(values) == len(legal):  # only the playable columns were listed
        by_col = [FULL] * g.width
        for c, v in zip(legal, values, strict=True):
            by_col[c] = v
    else:
        raise ExternalFailed(f"answer {line.strip()!r} has {len(values)} scores for {g.width} columns")
    out: list[int | None] = []
    for c, v in enumerate(by_col):
        if c not in legal:
            if v != FULL:
                raise ExternalFailed(f"answer {line.strip()!r}: column {c + 1} is full but scored {v}")
            out.append(None)
        elif v == FULL or abs(v) > g.cells:
            raise ExternalFailed(f"answer {line.strip()!r}: column {c + 1} is playable but scored {v}")
        else:
            out.append(v)
    return tuple(out)


class ExternalProcess:
    """One external solver process, restarted on demand."""

    def __init__(self, argv: list[str], name: str = "external"):
        self.argv = argv
        self.name = name
        self.proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue()
        self.starts = 0

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        self.stop()
        try:
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, bufsize=1,
            )
        except OSError as exc:
            EXTERNAL_FAILURES.labels("start").inc()
            raise ExternalFailed(f"cannot start {self.argv[0]!r}: {exc}") from None
        self.starts += 1
        EXTERNAL_RESTARTS.inc()
        self._lines = queue.Queue()
        threading.Thread(target=self._read_stdout, args=(self.proc, self._lines), daemon=True,
                         name=f"{self.name}-out").start()
        threading.Thread(target=self._read_stderr, args=(self.proc,), daemon=True,
                         name=f"{self.name}-err").start()
        log.info("external solver started", extra={"argv": " ".join(self.argv), "pid": self.proc.pid})

    @staticmethod
    def _read_stdout(proc, lines: queue.Queue) -> None:
        try:
            for line in proc.stdout:
                lines.put(line)
        except (OSError, ValueError):
            pass
        lines.put(_EOF)

    @staticmethod
    def _read_stderr(proc) -> None:
        try:
            for line in proc.stderr:
                if line.strip():
                    log.info("external solver says", extra={"pid": proc.pid, "line": line.rstrip()[:500]})
        except (OSError, ValueError):
            pass

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # a process that ignores SIGKILL
            proc.wait(5)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()

    def analyze(self, pos, timeout: float | None = None, cancelled=None) -> tuple[int | None, ...]:
        """The score of every column of ``pos`` (a legal 7x6 position in play).
        ``cancelled()`` true while waiting kills the search (as a timeout does)."""
        moves = "".join(str(c + 1) for c in pos.moves)
        if not self.alive():
            if self.proc is not None:
                log.warning("external solver died, restarting",
                            extra={"pid": self.proc.pid, "returncode": self.proc.returncode})
            self.start()
        assert self.proc is not None and self.proc.stdin is not None  # started with a pipe
        try:
            self.proc.stdin.write(moves + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError) as exc:
            EXTERNAL_FAILURES.labels("died").inc()
            self.stop()
            raise ExternalFailed(f"external solver closed its input: {exc}") from None
        try:
            line = _get(self._lines, timeout, cancelled)
        except queue.Empty:
            # The protocol has no way to interrupt a search: start afresh.
            EXTERNAL_FAILURES.labels("timeout").inc()
            self.stop()
            raise ExternalTimeout(f"no answer within {timeout:.3f} s") from None
        except Cancelled:
            EXTERNAL_FAILURES.labels("cancelled").inc()
            self.stop()
            raise
        if line is _EOF:
            EXTERNAL_FAILURES.labels("died").inc()
            code = self.proc.poll() if self.proc else None
            self.stop()
            raise ExternalFailed(f"external solver exited (code {code}) before answering")
        try:
            return parse_answer(line, moves, pos)
        except ExternalFailed:
            EXTERNAL_FAILURES.labels("garbage").inc()
            self.stop()  # its output may be out of step now
            raise


class ExternalPool:
    """Several external processes; each query takes one for itself."""

    def __init__(self, cmd: str | list[str], size: int = 2, geometry: Geometry = STANDARD):
        self.argv = command_line(cmd)
        self.geometry = geometry
        self.processes = [ExternalProcess(self.argv, f"external-{i}") for i in range(max(1, size))]
        self._idle: queue.Queue[ExternalProcess] = queue.Queue()
        for p in self.processes:
            self._idle.put(p)

    def start(self) -> None:
        for p in self.processes:
            if not p.alive():
                p.start()

    def analyze(self, pos, timeout: float | None = None, cancelled=None) -> tuple[int | None, ...]:
        """Raises ExternalTimeout when no process is free or none answers in
        time, Cancelled soon after ``cancelled()`` (a callable) turns true."""
        started = time.monotonic()
        try:
            proc = _get(self._idle, timeout, cancelled)
        except queue.Empty:
            raise ExternalTimeout("every external solver stayed busy past the deadline") from None
        try:
            left = None if timeout is None else max(0.0, timeout - (time.monotonic() - started))
            return proc.analyze(pos, left, cancelled)
        finally:
            self._idle.put(proc)

    def close(self) -> None:
        for p in self.processes:
            p.stop()
