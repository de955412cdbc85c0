"""A cancel (a ``threading.Event`` that a gRPC callback or a timer sets)
turned into the stop flag a numba kernel polls, for the ladder's kernels
without an answer of their own when stopped (minimax, mcts).

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

POLL_S = 0.01  # how soon a cancel reaches the flag


class Stopped(Exception):
    """A search was stopped (cancelled, or its deadline passed) before it had
    an answer; ``nodes`` counts the work done."""

    def __init__(self, message: str, nodes: int = 0):
        super().__init__(message)
        self.nodes = nodes


@contextmanager
def stop_on(cancel: threading.Event | None, flag: np.ndarray, index: int = 0):
    """While inside, ``flag[index]`` becomes 1 soon after ``cancel`` is set
    (never, without one), watched by a daemon thread."""
    if cancel is None:
        yield flag
        return
    if cancel.is_set():
        flag[index] = 1
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            if cancel.wait(POLL_S):
                flag[index] = 1
                return

    threading.Thread(target=watch, daemon=True, name="stop-watch").start()
    try:
        yield flag
    finally:
        done.set()
