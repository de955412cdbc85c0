"""One position solved on several cores: null windows searched at once over one table.

Pons' driver (:func:`.search` ``score_of``) narrows the bounds ``lo <= score <= hi``
with one null-window search after another: the window ``(m, m + 1)`` answers
``score <= r`` or ``score >= r`` (``r`` its fail-hard value), which moves ``hi``
or ``lo``. An exact score needs at least the two windows ``s - 1`` and ``s``
(the empty board: "more than 0?" and "more than 1?"), and each window's search
fills the table the others read. Here each thread searches another window of
``[lo, hi)`` at the same time, all over the solver's one table:

* the first window is the one Pons' driver would take next, the others
  its neighbours, the one above first (:func:`next_windows`);
* every result narrows ``[lo, hi)``; a running window that fell outside it
  can no longer tell anything and is stopped (it stores nothing after the
  stop), and the freed thread takes the next window;
* the answer is exact by construction: every window's value is a proven
  bound, whatever the other threads did to the table.

The table is shared without locks. A word is written with one aligned
8-byte store, which no reader sees half done (x86-64, arm64), and it carries
its own key tag and epoch, so a read finds a whole word of its own position
or nothing; two threads racing on one bucket can lose an entry (speed only),
never make one up. Each thread has its own workspace (node count, budget,
abort flag, move lists) and stop flag; the kernels release the GIL.

The node budget covers all windows together (finished, running and stopped
ones); it and the caller's stop flag are checked every ``POLL_S``.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from connect4 import Position

from .errors import BudgetExceeded
from .table import ABORT, NODES

POLL_S = 0.01  # how often the coordinator looks at the budget and the caller's stop flag

Window = Callable[..., int]  # the window_pos kernel: (cur, mask, ply, bound, budget, tt, ws, stop) -> r
Job = tuple[int, int, int, int]  # (cur, mask, ply, bound): a null window on a position below the root
Helpers = Callable[[int], list[Job]]  # a window's bound -> the jobs an idle thread may search for it


def half(x: int) -> int:
    """C's ``x / 2`` (toward zero), as in Pons' driver."""
    return x // 2 if x >= 0 else -((-x) // 2)


def pons_probe(lo: int, hi: int) -> int:
    """The window Pons' driver searches next in ``[lo, hi)``: the middle, moved toward 0."""
    med = lo + (hi - lo) // 2
    if med <= 0 and half(lo) < med:
        return half(lo)
    if med >= 0 and half(hi) > med:
        return half(hi)
    return med


def next_windows(lo: int, hi: int, busy: set[int], n: int) -> list[int]:
    """Up to ``n`` windows of ``[lo, hi)`` not in ``busy``: Pons' probe, then its
    neighbours, the one above first. Near the score, where the windows cost
    the most, two threads so get the two windows an exact score needs; a
    chain of the probes his driver would take next (each answer guessed)
    searched more nodes (one line of Test_L1_R3: 53.7 M against 37.0 M)."""
    out: list[int] = []
    if n <= 0 or lo >= hi:
        return out
    first = pons_probe(lo, hi)
    for d in range(hi - lo + 1):
        for m in (first,) if d == 0 else (first + d, first - d):
            if lo <= m < hi and m not in busy and m not in out:
                out.append(m)
                if len(out) == n:
                    return out
    return out


def help_jobs(pos: Position, bound: int) -> list[Job]:
    """What an idle thread searches for the window ``bound`` of ``pos``: the
    two ways its answer is proved, each split where the search itself goes
    one way, taken from the other end.

    * "more than ``bound``": through the first move the search tries (the
      centre-most that does not hand over a win), every reply must leave
      a position whose score is more than ``bound``: those windows, the
      replies in the reverse of the search's centre-first order;
    * "at most ``bound``": every move must leave a position whose score is
      at least ``-bound``: those windows, the moves in reverse order.

    A finished window stores its proof in the table, where the window's own
    search finds it when it gets there; a job of the wrong kind costs only
    the idle thread's time."""
    order = [c for c in pos.geometry.center_order() if pos.can_play(c)]
    jobs: list[Job] = []
    seen: set[int] = set()

    def add(p: Position, b: int) -> None:
        if not p.is_over and not p.can_win_next() and p.canonical_key() not in seen:
            seen.add(p.canonical_key())
            jobs.append((p.current, p.mask, p.ply, b))

    first = next((c for c in order if not pos.played(c).can_win_next()), None)
    if first is not None and not pos.is_winning_move(first):
        child = pos.played(first)
        for r in reversed([r for r in order if child.can_play(r)] if not child.is_over else []):
            add(child.played(r), bound)  # score > bound after each reply
    for c in reversed(order):
        if not pos.is_winning_move(c):
            add(pos.played(c), -bound - 1)  # each move's score at least -bound
    return jobs


@dataclass
class _Search:
    bound: int
    ws: np.ndarray
    stop: np.ndarray
    thread: threading.Thread | None = None
    value: int = 0
    cancelled: bool = False
    jobs: list[Job] | None = None  # a helper: these windows below the root instead of the root's
    helped: int = 0  # a helper's nodes in the jobs it finished

    def nodes(self) -> int:
        return self.helped + int(self.ws[NODES])


def solve_in_parallel(window: Window, tt: np.ndarray, ws: np.ndarray, cur: int, mask: int, ply: int,
                      cells: int, *, weak: bool, threads: int, node_budget: int = 0,
                      stop: np.ndarray | None = None, helpers: Helpers | None = None) -> tuple[int, int]:
    """(score, nodes) of a position that is not over and whose side to move
    cannot win at once, on ``threads`` threads; ``ws`` is the solver's
    workspace (each thread gets a copy: the table's layout and epoch, its own
    counters). A thread with no window left to start helps the oldest running
    window with ``helpers(bound)``'s jobs (see :func:`help_jobs`). Raises
    :class:`BudgetExceeded` when the budget or ``stop`` ends it."""
    low, high = -((cells - ply) // 2), (cells + 1 - ply) // 2  # true bounds of the score
    free = [_Search(0, ws.copy(), np.zeros(1, dtype=np.uint8)) for _ in range(threads)]
    running: dict[int, _Search] = {}
    helping: dict[int, _Search] = {}  # a running window's bound -> its helper
    helped: set[int] = set()  # windows given a helper once: its proofs stay in the table
    finished: queue.Queue[_Search] = queue.Queue()
    spent = 0  # nodes of the searches that ended

    def interval() -> tuple[int, int]:
        """The windows still worth a search: ``[low, high)``, clamped to ``[-1, 1]`` when weak."""
        return (max(low, -1), min(high, 1)) if weak else (low, high)

    def run(s: _Search) -> None:
        try:
            if s.jobs is None:
                s.value = int(window(cur, mask, ply, s.bound, 0, tt, s.ws, s.stop))
                return
            for job in s.jobs:  # what it proves reaches the window through the table
                if s.stop[0]:
                    break
                window(*job, 0, tt, s.ws, s.stop)
                s.helped += int(s.ws[NODES])
                s.ws[NODES] = 0
        finally:
            finished.put(s)

    def start(m: int, jobs: list[Job] | None = None) -> None:
        s = free.pop()
        s.bound, s.cancelled, s.jobs, s.helped = m, False, jobs, 0
        s.stop[0] = 0
        s.ws[NODES] = 0
        s.ws[ABORT] = 0
        what = "help" if jobs is not None else "window"
        s.thread = threading.Thread(target=run, args=(s,), name=f"c4-solve-{what}-{m}", daemon=True)
        (helping if jobs is not None else running)[m] = s
        s.thread.start()

    def live() -> int:
        return sum(s.nodes() for s in (*running.values(), *helping.values()))

    def give_up(reason: str) -> BudgetExceeded:
        return BudgetExceeded(spent + live(), reason)

    def cancel(s: _Search) -> None:
        s.cancelled = True
        s.stop[0] = 1

    try:
        lo, hi = interval()
        while lo < hi:
            for m in next_windows(lo, hi, set(running), len(free)):
                start(m)
            if free and helpers is not None:  # nothing new worth a window: help the oldest one not helped yet
                oldest = next((m for m in running if m not in helped and not running[m].cancelled), None)
                if oldest is not None:
                    helped.add(oldest)
                    jobs = helpers(oldest)
                    if jobs:
                        start(oldest, jobs)
            try:
                s = finished.get(timeout=POLL_S)
            except queue.Empty:
                if stop is not None and stop[0]:
                    raise give_up("stop flag") from None
                if node_budget and spent + live() > node_budget:
                    raise give_up("node budget") from None
                continue
            spent += s.nodes()
            free.append(s)
            if s.jobs is not None:  # a helper ended (no budget of its own): its jobs done, or stopped
                del helping[s.bound]
                continue
            del running[s.bound]
            if s.bound in helping:
                cancel(helping[s.bound])
            if s.ws[ABORT]:
                if s.cancelled:
                    continue
                raise give_up("stop flag" if stop is not None and stop[0] else "node budget")
            if s.value <= s.bound:
                high = min(high, s.value)
            else:
                low = max(low, s.value)
            lo, hi = interval()
            for m, other in running.items():
                if not lo <= m < hi:  # its answer is known now
                    cancel(other)
                    if m in helping:
                        cancel(helping[m])
    finally:
        for s in (*running.values(), *helping.values()):
            cancel(s)
        for s in (*running.values(), *helping.values()):
            if s.thread is not None:
                s.thread.join()
        while not finished.empty():
            spent += finished.get().nodes()
    if weak:
        return (1 if low >= 1 else -1 if high <= -1 else 0), spent
    return low, spent
