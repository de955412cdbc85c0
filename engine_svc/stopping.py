"""Stopping a numba search from another thread.

A kernel polls a stop flag (one cell of a numpy array). A :class:`Cancel`
(what a gRPC termination callback or a deadline timer sets) raises the flags
of the searches running under it the moment it is set: no watcher thread.

    cancel = Cancel()
    stop = np.zeros(1, dtype=np.uint8)
    with stop_on(cancel, stop):
        kernel(..., stop)
    if stop[0]:
        raise Stopped(...)
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

import numpy as np


class Stopped(Exception):
    """A search was stopped (cancelled, or its deadline passed) before it had
    an answer; ``nodes`` counts the work done."""

    def __init__(self, message: str, nodes: int = 0):
        super().__init__(message)
        self.nodes = nodes


class Cancel(threading.Event):
    """An Event whose ``set`` also raises the stop flag of every search running
    under it (see :func:`stop_on`)."""

    def __init__(self) -> None:
        super().__init__()
        self._flags: list[tuple[np.ndarray, int]] = []
        self._guard = threading.Lock()  # set() and stop_on() never miss each other

    def set(self) -> None:
        with self._guard:
            super().set()
            for flag, index in self._flags:
                flag[index] = 1

    def _watch(self, flag: np.ndarray, index: int) -> tuple[np.ndarray, int]:
        with self._guard:
            entry = (flag, index)
            self._flags.append(entry)
            if self.is_set():
                flag[index] = 1
            return entry

    def _unwatch(self, entry: tuple[np.ndarray, int]) -> None:
        with self._guard:
            self._flags = [e for e in self._flags if e is not entry]


@contextmanager
def stop_on(cancel: Cancel | None, flag: np.ndarray, index: int = 0):
    """While inside, ``flag[index]`` becomes 1 when ``cancel`` is set (at once
    if it already is; never without a cancel). After the block the cancel no
    longer touches the flag, so the next search on the same array starts clean."""
    if cancel is None:
        yield flag
        return
    if not isinstance(cancel, Cancel):
        raise TypeError(f"a search is stopped by engine_svc.stopping.Cancel, not {type(cancel).__name__}")
    entry = cancel._watch(flag, index)
    try:
        yield flag
    finally:
        cancel._unwatch(entry)


@contextmanager
def call_after(seconds: float | None, fn):
    """While inside, ``fn()`` runs on a timer thread once ``seconds`` have passed
    (never with None); leaving the block first cancels it."""
    if seconds is None:
        yield
        return
    timer = threading.Timer(seconds, fn)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
