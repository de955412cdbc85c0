"""Kernels of boards past 64 bits, compiled in the background.

Numba compiles the wide solver's kernels for each board size on their first
call: 10-40 s of CPU with a cold on-disk cache (a second or so to load them
from a warm one). A request must not sit in that compile past its deadline,
so the first request of a size starts the compile in a thread (or the
service does at start for the sizes it pre-warms) and waits for it at most
a short while; past that it gets :class:`Warming`, which the service answers
as FAILED_PRECONDITION "warming up the solver's kernels for 9x7, try again
in N s" with the seconds in the trailing metadata ``retry-after-s``.
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
from collections.abc import Callable

from connect4 import Geometry, Position

log = logging.getLogger(__name__)

EXPECTED_S = 30.0  # a guess at a cold compile before one was measured in this process
WAIT_S = 2.0  # the longest a request waits for a compile before it is told to come back


class Warming(Exception):
    """The kernels of ``geometry`` are still compiling; try again in ``retry_s`` seconds."""

    def __init__(self, geometry: Geometry, retry_s: int):
        super().__init__(f"warming up the solver's kernels for {geometry.name}, try again in {retry_s} s")
        self.geometry = geometry
        self.retry_s = retry_s


def compile_kernels(g: Geometry) -> None:
    """Run every kernel of the wide solver once on ``g`` (a short search of the empty board)."""
    from solver_svc.solver import BudgetExceeded

    from .wide_board import WideBoardSolver

    with contextlib.suppress(BudgetExceeded):  # 2,000 nodes of the empty board: every kernel ran
        WideBoardSolver(g, 10).solve(Position(g), node_budget=2000)


class KernelWarmer:
    """One background compile per board size; :meth:`wait` blocks a request a little."""

    def __init__(self, compile_fn: Callable[[Geometry], None] = compile_kernels):
        self._compile = compile_fn
        self._lock = threading.Lock()
        self._done: dict[Geometry, threading.Event] = {}
        self._started: dict[Geometry, float] = {}
        self._last_s = EXPECTED_S

    def start(self, g: Geometry) -> threading.Event:
        """Start compiling ``g``'s kernels unless that is done or under way; the event set when done."""
        with self._lock:
            done = self._done.get(g)
            if done is None:
                done = self._done[g] = threading.Event()
                self._started[g] = time.monotonic()
                threading.Thread(target=self._run, args=(g, done), daemon=True, name=f"warm-{g.name}").start()
            return done

    def _run(self, g: Geometry, done: threading.Event) -> None:
        t0, c0 = time.monotonic(), time.thread_time()
        try:
            self._compile(g)
        except Exception:  # a failure here shows again, with its traceback, in the request that runs the kernel
            log.exception("warming the solver's kernels failed", extra={"board": g.name})
        seconds = time.monotonic() - t0
        self._last_s = max(1.0, seconds)
        log.info("solver kernels warm", extra={"board": g.name, "seconds": round(seconds, 2),
                                               "cpu_s": round(time.thread_time() - c0, 2)})
        done.set()

    def ready(self, g: Geometry) -> bool:
        done = self._done.get(g)
        return done is not None and done.is_set()

    def wait(self, g: Geometry, seconds: float | None) -> None:
        """Return once ``g``'s kernels are ready, starting their compile if need be;
        :class:`Warming` when they are not within ``seconds`` (at most WAIT_S)."""
        done = self.start(g)
        if done.wait(WAIT_S if seconds is None else max(0.0, min(seconds, WAIT_S))):
            return
        left = self._last_s - (time.monotonic() - self._started[g])
        raise Warming(g, max(1, math.ceil(left)))
