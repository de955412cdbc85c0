"""The engine: iterative deepening of the search kernels on a wall clock.

:class:`Engine` owns a transposition table and the state array of the kernels
(:mod:`engine_svc.negamax`). ``search`` deepens one ply at a time (the last
iteration a budget lets start may jump ahead, :mod:`engine_svc.pace`), keeps
the last finished depth when a clock or a cancel stops it, falls back to the
first safe column when not even depth 1 finished, and, in a proven draw or
loss, plays the column with the most chances (:mod:`engine_svc.chances`).
The words a person reads about a result are the players' business
(:mod:`engine_svc.players.messages`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import int64

from connect4.errors import InvalidPosition
from connect4.geometry import STANDARD, Geometry

from .chances import CHANCE_DEPTH, MIN_EMPTIES, move_with_chances
from .evaluation import family_eval_kernels
from .negamax import ST_FIXED, ST_NODES, ST_STOP, search_kernels
from .pace import IterationPace
from .result import DepthReport, SearchResult
from .scores import MATE, describe_outcome, is_proven
from .stopping import Cancel, call_after, stop_on
from .tt import DEFAULT_MB, NO_MOVE, TranspositionTable

__all__ = ["CHANCE_TABLE_MB", "DepthReport", "Engine", "SearchResult"]

CHANCE_TABLE_MB = 1  # the table of the short searches that rank the moves of a proven draw or loss


class Engine:
    """The heuristic engine for one geometry with its own table (not thread-safe:
    one search at a time; a service keeps a pool of engines)."""

    def __init__(self, geometry: Geometry = STANDARD, tt_mb: float = DEFAULT_MB, driver: str = "mtdf"):
        if driver not in ("mtdf", "pvs"):
            raise ValueError(f"driver {driver!r} must be 'mtdf' or 'pvs'")
        self.geometry = geometry
        self.driver = driver
        self._board: Callable[[int], Any]  # a Python bitboard as the kernels take it
        self.kernels = search_kernels(geometry)  # either kernel family (connect4.kernels.family_for)
        self.eval = family_eval_kernels(geometry)
        if geometry.wide:  # past 64 bits: one word per column, the table keyed by key64
            from connect4.wide import to_words, wide_kernels_for

            wk = wide_kernels_for(geometry)
            self._board = lambda bits: to_words(bits, geometry)
            self._table_key = lambda p: int(wk.key64(to_words(p.current, geometry), to_words(p.mask, geometry)))
        else:
            self._board = np.uint64
            self._table_key = lambda p: p.key()
        self.tt = TranspositionTable(tt_mb)
        # nodes, stop flag, heights, line states: one int64 array (see ST_*)
        self.state = np.zeros(self.kernels.st_size, dtype=np.int64)
        self._chance_engine: Engine | None = None  # ranks the moves of a proven draw or loss (_keep_chances)

    def stop(self) -> None:
        """Abort the running search (from another thread); it keeps its last finished depth."""
        self.state[ST_STOP] = 1

    def _prepare(self, cur: int, mask: int, ply: int) -> int:
        g = self.geometry
        first, second = (cur, cur ^ mask) if ply % 2 == 0 else (cur ^ mask, cur)
        for c in range(g.width):
            self.state[ST_FIXED + c] = bin(mask & g.column_mask(c)).count("1")
        return int(self.eval.init_lines(self.state, ST_FIXED + g.width, self._board(first), self._board(second)))

    def pv(self, pos, first_move: int, limit: int) -> list[int]:
        """Follow the table's best moves from ``pos`` after ``first_move``."""
        line = [first_move]
        p = pos.copy().play(first_move)
        while len(line) < limit and not p.is_over:
            hit = self.tt.lookup(self._table_key(p))
            if hit is None or hit[3] == NO_MOVE or not p.can_play(hit[3]):
                break
            line.append(hit[3])
            p.play(hit[3])
        return line

    def search(
        self,
        pos,
        max_depth: int | None = None,
        budget_ms: float | None = None,
        on_progress: Callable[[DepthReport], None] | None = None,
        cancel: Cancel | None = None,
    ) -> SearchResult:
        """Iterative deepening to ``max_depth`` (default: to the end of the game)
        and/or within ``budget_ms``; deterministic at a fixed depth without a budget.

        Budget rule: a new depth starts only while less than a third of the
        budget is spent; an iteration still running at twice the budget is
        aborted and the last finished one answers. The last iteration the rule
        lets start may skip ahead several plies (see ``pace``)."""
        g = self.geometry
        if pos.geometry != g:
            raise InvalidPosition(f"position is {pos.geometry.name}, engine is {g.name}")
        if pos.is_over:
            raise InvalidPosition("the game is over: there is no move to search")
        start = time.perf_counter()
        empties = g.cells - pos.ply
        limit = empties if max_depth is None else max(1, min(int(max_depth), empties))
        # The clock (an iteration still running at twice the budget) and a cancel
        # (a gRPC deadline, a client gone) raise the stop flag the kernels poll.
        hard_stop_s = None if budget_ms is None else 2.0 * budget_ms / 1000.0
        # Lowered before the cancel is watched: a cancel set already (or while the
        # search starts) raises the flag at once and nothing lowers it again.
        self.state[ST_STOP] = 0
        with call_after(hard_stop_s, self.stop), stop_on(cancel, self.state, ST_STOP):
            best = self._deepen(pos, limit, budget_ms, on_progress, start)
            if best is not None and self._proven_draw_or_loss(best, empties):
                deadline = None if budget_ms is None else start + budget_ms / 1000.0
                best = (best[0], self._keep_chances(pos, best[0], best[1], deadline), best[2])
        elapsed = (time.perf_counter() - start) * 1000.0
        if best is None:
            return self._fallback(pos, elapsed)
        return self._result(pos, best, elapsed)

    def _deepen(self, pos, limit: int, budget_ms: float | None,
                on_progress: Callable[[DepthReport], None] | None, start: float) -> tuple[int, int, int] | None:
        """(score, column, depth) of the last finished iteration, None when none finished."""
        k = self.kernels
        ply = pos.ply
        empties = self.geometry.cells - ply
        cur, mask = self._board(pos.current), self._board(pos.mask)
        ls = self._prepare(pos.current, pos.mask, ply)
        # A search at a fixed depth starts from an empty table, so it is
        # deterministic; a timed one keeps what earlier searches stored (they are
        # bounds of the same positions, whichever game they came from), which
        # gets it about a ply deeper in the same time.
        gen = self.tt.new_search() if budget_ms is None or self.tt.gen == 0 else self.tt.gen
        self.state[ST_NODES] = 0
        best: tuple[int, int, int] | None = None
        pace = IterationPace()
        guess = 0
        depth = 0
        while depth < limit:
            if best is not None and budget_ms is not None:
                spent = (time.perf_counter() - start) * 1000.0
                if spent >= budget_ms / 3.0:
                    break
                depth = pace.next_depth(limit, spent, budget_ms)  # one ply deeper, or the last jump
            else:
                depth += 1
            tail = (ls, self.state, self.tt.table, self.tt.shift, gen)
            if self.driver == "mtdf":
                score, col = k.mtdf(cur, mask, ply, depth, guess, *tail)
            else:
                score, col = k.alphabeta(cur, mask, ply, depth, *tail)
            if self.state[ST_STOP] or col < 0:
                break
            score, col = int(score), int(col)
            best = (score, col, depth)
            pace.finished(depth, int(self.state[ST_NODES]), (time.perf_counter() - start) * 1000.0)
            guess = score
            proven = is_proven(score) or depth >= empties
            if on_progress is not None:
                on_progress(DepthReport(depth, int(self.state[ST_NODES]), score, col,
                                        (time.perf_counter() - start) * 1000.0, proven))
            if proven:
                break
        return best

    @staticmethod
    def _proven_draw_or_loss(best: tuple[int, int, int], empties: int) -> bool:
        score, _, depth = best
        return empties >= MIN_EMPTIES and (score < -MATE or (score == 0 and depth >= empties))

    def _fallback(self, pos, elapsed: float) -> SearchResult:
        """Not even depth 1 finished (stopped at once): a winning column, else the first safe one."""
        safe = pos.non_losing_moves() or pos.legal_moves()
        order = [c for c in self.geometry.center_order() if c in safe]
        wins = pos.winning_moves()
        col = wins[0] if wins else order[0]
        return SearchResult(column=col, nodes=int(self.state[ST_NODES]), elapsed_ms=elapsed, pv=[col],
                            stopped=True)

    def _result(self, pos, best: tuple[int, int, int], elapsed: float) -> SearchResult:
        """The result of the last finished iteration: its value, outcome and line."""
        g = self.geometry
        score, col, depth = best
        proven = is_proven(score) or depth >= g.cells - pos.ply
        outcome, plies = describe_outcome(score, proven, pos.ply, g.cells)
        return SearchResult(
            column=col, score=score, depth=depth, nodes=int(self.state[ST_NODES]), elapsed_ms=elapsed,
            proven=proven, pv=self.pv(pos, col, depth), outcome=outcome, plies_to_end=plies,
            resign=outcome == "loss",
        )

    def _keep_chances(self, pos, score: int, proven_col: int, deadline: float | None) -> int:
        """A proven draw or loss (``score``): of the columns that keep it, the
        one a short heuristic search likes best (see ``chances``); the exact
        proofs run on this table until the deadline (None: no clock), and the
        proven column stands if they stop."""
        g, k = self.geometry, self.kernels
        if self._chance_engine is None:
            self._chance_engine = Engine(g, tt_mb=CHANCE_TABLE_MB, driver=self.driver)
        helper = self._chance_engine

        def heuristic(c: int) -> int:
            child = pos.played(c)
            if child.is_over:
                return 0  # the last cell (a win would not be a proven draw or loss)
            r = helper.search(child, max_depth=CHANCE_DEPTH - 1)
            self.state[ST_NODES] += r.nodes
            return -r.score

        def holds(c: int) -> bool | None:
            child = pos.played(c)
            if child.is_over:
                return score == 0 and child.winner is None  # the last cell: a draw
            if (deadline is not None and time.perf_counter() >= deadline) or self.state[ST_STOP]:
                return None
            ls = self._prepare(child.current, child.mask, child.ply)
            # Does c keep the proven score? It does when the opponent, after c, can
            # do no better than -score: an exact null-window search at that bound.
            bound = -score
            s, m = k.root(self._board(child.current), self._board(child.mask), child.ply, g.cells - child.ply,
                          int64(bound), int64(bound + 1), ls, self.state, self.tt.table, self.tt.shift,
                          self.tt.gen)
            if self.state[ST_STOP] or m < 0:
                return None
            return int(s) <= bound

        columns = [c for c in g.center_order() if pos.can_play(c)]
        if len(columns) < 2:
            return proven_col
        col, _ = move_with_chances(columns, proven_col, heuristic, holds)
        return col
