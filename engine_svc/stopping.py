"""A cancel (a ``threading.Event`` that a gRPC callback or a timer sets)
turned into the stop flag a numba kernel polls, for the ladder's kernels
without an answer of their own when stopped (minimax, mcts).

    with stop_flag(cancel) as stop:
        kernel(..., stop)
    if stop[0]:
        raise Stopped(...)
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

import numpy as np

POLL_S = 0.01  # how soon a cancel reaches the flag


class Stopped(Exception):
    """A search was stopped (cancelled, or its deadline passed) before it had
    an answer; ``nodes`` counts the work done."""

    def __init__(self, message: str, nodes: int = 0):
        super().__init__(message)
        self.nodes = nodes


@contextmanager
def stop_flag(cancel: threading.Event | None):
    """A one-byte array that becomes 1 soon after ``cancel`` is set (never,
    without one), watched by a daemon thread while inside."""
    flag = np.zeros(1, dtype=np.uint8)
    if cancel is None:
        yield flag
        return
    if cancel.is_set():
        flag[0] = 1
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            if cancel.wait(POLL_S):
                flag[0] = 1
                return

    threading.Thread(target=watch, daemon=True, name="stop-watch").start()
    try:
        yield flag
    finally:
        done.set()
