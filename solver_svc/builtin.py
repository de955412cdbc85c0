"""The built-in numba solver as a pool: one :class:`Solver` (and table) per
concurrent search, per board size, with deadlines.

Numba has no clock, so a deadline becomes a stop flag: every pooled solver owns
a one-byte array the search polls, and :class:`Alarm` (one thread for the whole
process) sets it when the deadline passes, and :meth:`Budget.cancel` (a
client that cancelled or went away) sets it at once. The search then raises
BudgetExceeded: no unproved value ever leaves here.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import queue
import threading
import time
from contextlib import contextmanager

import numpy as np

from connect4 import Geometry

from solver_svc.solver import BudgetExceeded, Solver

from .metrics import BUSY, NODES
from .warming import KernelWarmer
from .wide_board import WideBoardSolver, exact_solver

log = logging.getLogger(__name__)


class Alarm:
    """Sets stop flags at their deadlines; one daemon thread for all of them."""

    def __init__(self):
        self._heap: list[tuple[float, int, np.ndarray]] = []
        self._cancelled: set[int] = set()
        self._ids = itertools.count()
        self._cv = threading.Condition()
        self._thread = threading.Thread(target=self._run, daemon=True, name="solver-alarm")
        self._thread.start()

    def set(self, flag: np.ndarray, at: float) -> int:
        """Set ``flag[0] = 1`` at monotonic time ``at``; returns a handle for cancel."""
        handle = next(self._ids)
        with self._cv:
            heapq.heappush(self._heap, (at, handle, flag))
            self._cv.notify()
        return handle

    def cancel(self, handle: int) -> None:
        """After cancel returns the flag is never set by this alarm."""
        with self._cv:
            if any(h == handle for _, h, _ in self._heap):
                self._cancelled.add(handle)

    def _run(self) -> None:
        with self._cv:
            while True:
                while self._heap and self._heap[0][1] in self._cancelled:
                    self._cancelled.discard(heapq.heappop(self._heap)[1])
                if not self._heap:
                    self._cv.wait()
                    continue
                at, handle, flag = self._heap[0]
                now = time.monotonic()
                if at > now:
                    self._cv.wait(min(at - now, 3600.0))
                    continue
                heapq.heappop(self._heap)
                flag[0] = 1


CANCEL_POLL_S = 0.05  # how often a request waiting for a free solver looks for a cancel


class Budget:
    """How long and how many nodes a search may take (None: no limit), and
    whether the asker still wants the answer: :meth:`cancel` (from any thread,
    e.g. a gRPC termination callback) sets the stop flag of the search
    running under this budget, or of the one about to start."""

    __slots__ = ("deadline", "nodes", "_cancelled", "_flags", "_lock")

    def __init__(self, seconds: float | None = None, nodes: int = 0):
        self.deadline = None if seconds is None else time.monotonic() + max(0.0, seconds)
        self.nodes = nodes
        self._cancelled = False
        self._flags: list[np.ndarray] = []
        self._lock = threading.Lock()

    def left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        """Stop the search now; later searches under this budget stop at once."""
        with self._lock:
            self._cancelled = True
            for flag in self._flags:
                flag[0] = 1

    @contextmanager
    def watching(self, flag: np.ndarray):
        """While inside, :meth:`cancel` sets ``flag`` (at once when already cancelled)."""
        with self._lock:
            self._flags.append(flag)
            if self._cancelled:
                flag[0] = 1
        try:
            yield
        finally:
            with self._lock:
                self._flags.remove(flag)

    def __repr__(self) -> str:
        return f"Budget(left={self.left()}, nodes={self.nodes}, cancelled={self._cancelled})"


class _Slot:
    __slots__ = ("solver", "stop")

    def __init__(self, solver: Solver | WideBoardSolver):
        self.solver = solver
        self.stop = np.zeros(1, dtype=np.uint8)


class SolverPool:
    """``workers`` solvers per board size, created on first use of a size."""

    def __init__(self, workers: int = 2, tt_log2: int | None = None):
        self.workers = max(1, workers)
        self.tt_log2 = tt_log2
        self.alarm = Alarm()
        self.warmer = KernelWarmer()  # boards past 64 bits: their kernels compile in the background
        self._pools: dict[Geometry, queue.Queue[_Slot]] = {}
        self._lock = threading.Lock()

    def _pool(self, g: Geometry) -> queue.Queue:
        with self._lock:
            pool = self._pools.get(g)
            if pool is None:
                pool = queue.Queue()
                for _ in range(self.workers):
                    pool.put(_Slot(exact_solver(g, self.tt_log2)))
                self._pools[g] = pool
            return pool

    @contextmanager
    def _slot(self, g: Geometry, budget: Budget):
        if g.wide:  # Warming when its kernels are still compiling (a request never sits in a compile)
            self.warmer.wait(g, budget.left())
        pool = self._pool(g)
        slot = self._wait_for_slot(pool, budget)
        slot.stop[0] = 0
        handle = None
        if budget.deadline is not None:
            handle = self.alarm.set(slot.stop, budget.deadline)
        BUSY.inc()
        try:
            with budget.watching(slot.stop):
                yield slot
        finally:
            BUSY.dec()
            if handle is not None:
                self.alarm.cancel(handle)
            NODES.inc(slot.solver.last_nodes)
            pool.put(slot)

    @staticmethod
    def _wait_for_slot(pool: queue.Queue, budget: Budget) -> _Slot:
        """A free solver, waiting while every one is busy: until the deadline,
        or until the budget is cancelled (looked at every CANCEL_POLL_S)."""
        while True:
            if budget.cancelled:
                raise BudgetExceeded(0, "cancel (before a solver was free)")
            left = budget.left()
            if left is not None and left <= 0:
                raise BudgetExceeded(0, "deadline (every solver stayed busy)")
            wait = CANCEL_POLL_S if left is None else min(CANCEL_POLL_S, left)
            try:
                return pool.get(timeout=wait)
            except queue.Empty:
                continue

    def solve(self, pos, budget: Budget, weak: bool = False):
        """SolveResult; BudgetExceeded when the budget runs out."""
        with self._slot(pos.geometry, budget) as slot:
            return slot.solver.solve(pos, weak=weak, node_budget=budget.nodes, stop=slot.stop)

    def analyze(self, pos, budget: Budget) -> tuple[tuple[int | None, ...], int]:
        """(score of every column, nodes); BudgetExceeded when the budget runs out."""
        with self._slot(pos.geometry, budget) as slot:
            scores = slot.solver.analyze(pos, node_budget=budget.nodes, stop=slot.stop)
            return tuple(scores), slot.solver.last_nodes

    def analyze_partial(self, pos, budget: Budget) -> tuple[tuple[int | None, ...], frozenset[int], int]:
        """A board past 64 bits: (score of every column or None, the open columns
        not proved in the budget, nodes). Never raises for the budget: a
        column it cannot prove comes back unproved (all of them when every
        solver stayed busy until the deadline)."""
        g = pos.geometry
        try:
            with self._slot(g, budget) as slot:
                solver = slot.solver
                assert isinstance(solver, WideBoardSolver)
                scores, unproved = solver.analyze_partial(pos, node_budget=budget.nodes, stop=slot.stop)
                return tuple(scores), frozenset(unproved), solver.last_nodes
        except BudgetExceeded:  # no solver was free in time
            return (None,) * g.width, frozenset(c for c in range(g.width) if pos.can_play(c)), 0

    def best_move(self, pos, budget: Budget) -> tuple[int, int, int, list[tuple[int, int]]]:
        """The perfect player's move without scoring every column: solve the
        position (value S), then try the columns centre first and stop at the
        first whose value is S (so ties go to the centre). The table filled
        by the first search makes the child searches cheap.

        Returns (column, S, nodes, [(column, proved child score) ...]) —
        the child scores are worth caching; BudgetExceeded when out of budget.
        """
        g = pos.geometry
        with self._slot(g, budget) as slot:
            solver, nodes, children = slot.solver, 0, []
            try:
                best = solver.solve(pos, node_budget=budget.nodes, stop=slot.stop).score
                nodes += solver.last_nodes
                win_now = (g.cells + 1 - pos.ply) // 2
                for c in g.center_order():
                    if not pos.can_play(c):
                        continue
                    if pos.is_winning_move(c):
                        value = win_now
                    else:
                        child = pos.played(c)
                        if child.ply == g.cells:
                            value = 0
                        else:
                            value = -solver.solve(child, node_budget=budget.nodes, stop=slot.stop).score
                            nodes += solver.last_nodes
                            children.append((c, -value))
                    if value == best:
                        solver.last_nodes = nodes
                        return c, best, nodes, children
            except BudgetExceeded as exc:
                solver.last_nodes = nodes + exc.nodes
                raise BudgetExceeded(nodes + exc.nodes, exc.reason) from None
        raise AssertionError(f"no column reaches the solved value {best} of {pos!r}")

    def warm(self, g: Geometry, pos) -> float:
        """Compile the kernels for ``g`` and run one solve on every solver; seconds taken."""
        started = time.perf_counter()
        pool = self._pool(g)
        slots = [pool.get() for _ in range(self.workers)]
        try:
            for slot in slots:
                slot.solver.analyze(pos)
                slot.solver.reset()
        finally:
            for slot in slots:
                pool.put(slot)
        return time.perf_counter() - started
