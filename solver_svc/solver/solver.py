"""The Solver: a transposition table, a geometry's kernels, the public calls."""

from __future__ import annotations

import time
from dataclasses import dataclass
from collections.abc import Iterable, Mapping

import numpy as np

from connect4 import STANDARD, Geometry, InvalidPosition, Position
from connect4.kernels import require_single_word

from .errors import BudgetExceeded
from .quickload import load_cached
from .driver import ABORTED, ANALYZE, FRESH, FULL_COLUMN, NO_SCORE, OFF_BOARD, OK, WEAK, WINS, search_kernels
from .table import ABORT, NODES, NO_LOWER, NO_UPPER, TranspositionTable

DEFAULT_TT_LOG2 = 23  # 8M entries, 64 MiB

__all__ = ["Batch", "NO_SCORE", "OK", "OFF_BOARD", "FULL_COLUMN", "WINS", "ABORTED", "SolveResult", "Solver"]


@dataclass(frozen=True)
class SolveResult:
    """``score`` in Pons' convention from the side to move (weak: -1, 0 or 1),
    ``nodes`` searched and ``elapsed_s`` wall time of the call."""

    score: int
    nodes: int
    elapsed_s: float


@dataclass(frozen=True)
class Batch:
    """The answers of :meth:`Solver.solve_many` / :meth:`Solver.analyze_many`.

    ``scores``: int64, one a position (``solve_many``) or ``(n, width)``
    (``analyze_many``, ``NO_SCORE`` = -1000 for a full column); ``nodes``: the
    nodes searched for each position (exact); ``errors``: ``(n, 2)`` of
    ``(code, 1-based move)``, code ``OK`` (0) when the position was answered,
    else ``OFF_BOARD``, ``FULL_COLUMN`` or ``WINS`` (that move wins at once:
    the game would be over, so c4solver rejects the line; a ``Position``
    that is already won gets this for its last move). Scores of a line with
    an error are meaningless. ``elapsed_s``: wall time of the whole call.
    """

    scores: np.ndarray
    nodes: np.ndarray
    errors: np.ndarray
    elapsed_s: float

    def __len__(self) -> int:
        return len(self.nodes)

    @property
    def ok(self) -> np.ndarray:
        return self.errors[:, 0] == OK


class Solver:
    """Exact solver for one board geometry. Not thread-safe: one per thread
    (the kernels release the GIL, so several Solvers run in parallel)."""

    def __init__(self, geometry: Geometry = STANDARD, tt_log2: int | None = None):
        require_single_word(geometry, "the exact solver")  # boards past 64 bits: not yet
        self.geometry = geometry
        self.table = TranspositionTable(geometry, DEFAULT_TT_LOG2 if tt_log2 is None else tt_log2)
        self._k = search_kernels(geometry)
        self._tt = self.table.words
        self._ws = self.table.ws
        self._no_stop = np.zeros(1, dtype=np.uint8)
        self._out = np.zeros(geometry.width, dtype=np.int64)  # analyze's answer
        self._win_now_base = geometry.cells + 1
        self.last_nodes = 0  # nodes of the last search (solve, analyze, test, best_move or a batch)

    # -- public ------------------------------------------------------------
    def reset(self) -> None:
        """Forget every stored bound (O(1): a new table epoch)."""
        self.table.reset()

    def prefault(self) -> float:
        """Touch every page of the table now rather than during the first
        searches (64 MiB: ~20 ms once); seconds spent."""
        return self.table.prefault()

    def solve(self, pos: Position, *, weak: bool = False, node_budget: int = 0, stop=None,
              threads: int = 1) -> SolveResult:
        """Exact score of ``pos`` for the side to move; ``weak``: its sign only.
        ``threads`` > 1: null windows searched at once over this table (:mod:`.parallel`)."""
        t0 = time.perf_counter()
        self._check(pos)
        if threads != 1:
            return self._solve_in_parallel(pos, weak, node_budget, stop, threads, t0)
        args = (pos.current, pos.mask, len(pos.moves), weak, int(node_budget or 0), self._tt, self._ws,
                self._no_stop if stop is None else stop)
        score = self._entry("solve_pos", args)(*args)
        nodes = self.last_nodes = int(self._ws[NODES])
        if self._ws[ABORT]:
            self._raise(nodes, stop)
        return SolveResult(score, nodes, time.perf_counter() - t0)

    def _solve_in_parallel(self, pos: Position, weak: bool, node_budget: int, stop, threads: int,
                           t0: float) -> SolveResult:
        from .parallel import help_jobs, solve_in_parallel

        if not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be a whole number of at least 1, got {threads!r}")
        ply = len(pos.moves)
        if pos.can_win_next():
            self.last_nodes = 0
            return SolveResult(1 if weak else (self.geometry.cells + 1 - ply) // 2, 0, time.perf_counter() - t0)
        args = (pos.current, pos.mask, ply, 0, 0, self._tt, self._ws, self._no_stop)
        window = self._entry("window_pos", args)
        try:
            score, nodes = solve_in_parallel(window, self._tt, self._ws, pos.current, pos.mask, ply,
                                             self.geometry.cells, weak=weak, threads=threads,
                                             node_budget=int(node_budget or 0), stop=stop,
                                             helpers=lambda bound: help_jobs(pos, bound))
        except BudgetExceeded as exc:
            self.last_nodes = exc.nodes
            raise
        self.last_nodes = nodes
        return SolveResult(score, nodes, time.perf_counter() - t0)

    def analyze(self, pos: Position, *, node_budget: int = 0, stop=None, weak: bool = False) -> list[int | None]:
        """Score of playing each 0-based column, from ``pos``'s side to move
        (an immediate win is ``(W*H+1-ply)//2``); None for a full column.
        ``weak`` gives signs only. The budget counts the nodes of all columns."""
        self._check(pos)
        out = self._out
        args = (pos.current, pos.mask, len(pos.moves), weak, int(node_budget or 0), self._tt, self._ws,
                self._no_stop if stop is None else stop, out)
        self._entry("analyze_pos", args)(*args)
        nodes = self.last_nodes = int(self._ws[NODES])
        if self._ws[ABORT]:
            self._raise(nodes, stop)
        return [None if s == NO_SCORE else s for s in out.tolist()]

    def best_move(self, pos: Position, *, node_budget: int = 0, stop=None) -> tuple[int, int]:
        """(0-based column, score): the fastest win, else a draw, else the
        slowest loss; ties go to the column nearest the centre."""
        scores = self.analyze(pos, node_budget=node_budget, stop=stop)
        rank = {c: i for i, c in enumerate(self.geometry.center_order())}
        playable = {c: s for c, s in enumerate(scores) if s is not None}
        col = max(playable, key=lambda c: (playable[c], -rank[c]))
        return col, playable[col]

    def test(self, pos: Position, bound: int, *, node_budget: int = 0, stop=None) -> bool:
        """Is the exact score of ``pos`` (from its side to move) larger than
        ``bound``? One null-window search: much cheaper than :meth:`solve`
        when only the side of a bound matters. A full board (a draw) needs no
        search; budget and stop as for :meth:`solve`."""
        if pos.winner is None and len(pos.moves) == self.geometry.cells and pos.geometry == self.geometry:
            self.last_nodes = 0
            return bound < 0  # a full board without a line: a draw
        self._check(pos)
        args = (pos.current, pos.mask, len(pos.moves), int(bound), int(node_budget or 0), self._tt, self._ws,
                self._no_stop if stop is None else stop)
        r = self._entry("test_pos", args)(*args)
        nodes = self.last_nodes = int(self._ws[NODES])
        if self._ws[ABORT]:
            self._raise(nodes, stop)
        return bool(r)

    def preload(self, scores: Mapping[int, int]) -> int:
        """Store known exact scores in the table: ``{key: score}`` with Pons'
        key (``Position.key()``, its mirror or ``canonical_key()``) and the
        score from that position's side to move. A search that reaches one of
        these positions takes the score as proved: **a wrong score gives
        wrong answers**. Entries live until :meth:`reset` (or until the search
        overwrites their slot, which costs only speed). Returns the number
        stored."""
        if not scores:
            return 0
        keys = np.fromiter(scores.keys(), dtype=np.uint64, count=len(scores))
        values = np.fromiter(scores.values(), dtype=np.int64, count=len(scores))
        lim = (self.geometry.cells + 1) // 2
        if values.min() < max(NO_LOWER + 1, -lim) or values.max() > min(NO_UPPER, lim):
            raise ValueError(f"a score is out of range for {self.geometry.name}")
        if int(keys.max()) >> (self.geometry.width * self.geometry.h1):
            raise ValueError(f"a key has more bits than a {self.geometry.name} key")
        args = (keys, values, self._tt, self._ws)
        self._entry("preload", args)(*args)
        return len(keys)

    def solve_many(self, positions: Iterable, *, weak: bool = False, fresh: bool = True,
                   node_budget: int = 0, stop=None) -> Batch:
        """Solve many positions in one numba call: ``positions`` are move
        strings (1-based column digits, as in Pons' test sets and c4solver),
        ``Position`` objects or lists of 0-based columns. Every move is
        replayed and checked (see :class:`Batch` for the error codes).
        ``fresh``: each position starts from an empty table (a new epoch,
        O(1)), as in Pons' benchmark; otherwise the table is kept across them.
        ``node_budget`` is per position; when a search is stopped,
        :class:`BudgetExceeded` carries ``.index`` (that position) and
        ``.batch`` (the answers so far)."""
        return self._many(positions, weak, False, fresh, node_budget, stop)

    def analyze_many(self, positions: Iterable, *, weak: bool = False, fresh: bool = True,
                     node_budget: int = 0, stop=None) -> Batch:
        """:meth:`analyze` of many positions in one numba call (as
        :meth:`solve_many`); ``scores`` has one row of ``width`` a position."""
        return self._many(positions, weak, True, fresh, node_budget, stop)

    # -- internals -----------------------------------------------------------
    def encode(self, positions: Iterable) -> tuple[np.ndarray, np.ndarray]:
        """(0-based columns of all move lists back to back, start offsets)."""
        items = positions if isinstance(positions, (list, tuple)) else list(positions)
        if all(type(p) is str for p in items):
            parts = [p.encode("latin-1", "replace") for p in items]
            data = np.frombuffer(b"".join(parts), dtype=np.uint8) - np.uint8(49)  # '1' -> 0; others: off the board
            lengths = [len(p) for p in parts]
        else:
            cols = []
            for p in items:
                if isinstance(p, Position):
                    if p.geometry != self.geometry:
                        raise InvalidPosition(f"position is {p.geometry.name}, this solver solves {self.geometry.name}")
                    cols.append(bytes(p.moves))
                elif isinstance(p, str):
                    cols.append(bytes((b - 49) & 0xFF for b in p.encode("latin-1", "replace")))
                else:
                    cols.append(bytes(min(int(c), 255) if int(c) >= 0 else 255 for c in p))
            data = np.frombuffer(bytearray(b"".join(cols)), dtype=np.uint8)
            lengths = [len(c) for c in cols]
        starts = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=starts[1:])
        return data, starts

    def _many(self, positions, weak, analyze, fresh, node_budget, stop) -> Batch:
        t0 = time.perf_counter()
        data, starts = self.encode(positions)
        n = len(starts) - 1
        width = self.geometry.width
        scores = np.zeros(n * width if analyze else n, dtype=np.int64)
        nodes = np.zeros(n, dtype=np.int64)
        errors = np.zeros(2 * n, dtype=np.int64)
        flags = (WEAK if weak else 0) | (ANALYZE if analyze else 0) | (FRESH if fresh else 0)
        args = (data, starts, flags, int(node_budget or 0), self._tt, self.table.small, self._ws,
                self._no_stop if stop is None else stop, scores, nodes, errors)
        done = self._entry("run_batch", args)(*args)
        self.last_nodes = int(nodes.sum())
        batch = Batch(scores.reshape(n, width) if analyze else scores, nodes, errors.reshape(n, 2),
                      time.perf_counter() - t0)
        if done < n:
            exc = self._exception(int(nodes[done]), stop)
            exc.index = done
            exc.batch = Batch(batch.scores[:done], nodes[:done], batch.errors[:done], batch.elapsed_s)
            raise exc
        return batch

    def _entry(self, name: str, args):
        """The kernel ``name``, its cached code loaded the quick way on first use."""
        k = self._k
        if name not in k.loaded:
            load_cached(getattr(k, name), args)
            k.loaded.add(name)
        return getattr(k, name)

    def _check(self, pos: Position) -> None:
        if pos.geometry != self.geometry:
            raise InvalidPosition(f"position is {pos.geometry.name}, this solver solves {self.geometry.name}")
        if pos.winner is not None or len(pos.moves) == self.geometry.cells:
            what = "a draw (the board is full)" if pos.winner is None else "won"
            raise InvalidPosition(f"the game is over ({what}): there is nothing to solve")

    def _exception(self, nodes: int, stop) -> BudgetExceeded:
        return BudgetExceeded(nodes, "stop flag" if stop is not None and stop[0] else "node budget")

    def _raise(self, nodes: int, stop):
        raise self._exception(nodes, stop)
