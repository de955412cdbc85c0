"""The solver service's brain, without gRPC: books first, then the cache,
then a backend (the external process or the built-in solver), and the
built-in solver again whenever the external one fails.

Every answer here is proved. When a deadline or node budget runs out,
:class:`Unproved` is raised (the service turns it into DEADLINE_EXCEEDED, or
``proven=false`` for BestMove).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from connect4 import STANDARD, Position
from connect4.bookset import BookSet, best_of
from solver_svc.solver import BudgetExceeded

from .builtin import Budget, SolverPool
from .cache import Answer, AnswerCache
from .external import ExternalFailed, ExternalPool, ExternalTimeout
from .metrics import ANSWERS, BOOK_HITS, FALLBACKS, SEARCH_SECONDS, UNPROVED

log = logging.getLogger(__name__)


class Unproved(Exception):
    """The budget ran out before a value was proved."""

    def __init__(self, message: str, nodes: int = 0):
        super().__init__(message)
        self.nodes = nodes


@dataclass(frozen=True)
class Verdict:
    score: int
    nodes: int
    source: str  # "book", "cache", "solver", "external"
    weak: bool


@dataclass(frozen=True)
class Analysis:
    scores: tuple[int | None, ...]  # by 0-based column, None = full (or in ``unproved``)
    nodes: int
    source: str
    unproved: frozenset[int] = frozenset()  # boards past 64 bits: open 0-based columns not proved in the budget


@dataclass(frozen=True)
class Choice:
    proven: bool
    column: int | None  # 0-based; None when not proved
    score: int
    nodes: int
    source: str


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


class Oracle:
    def __init__(
        self,
        pool: SolverPool,
        books: BookSet | None = None,
        cache: AnswerCache | None = None,
        external: ExternalPool | None = None,
    ):
        self.pool = pool
        self.books = books if books is not None else BookSet()
        self.cache = cache if cache is not None else AnswerCache(0)
        self.external = external

    # -- the three questions -----------------------------------------------------
    def solve(self, pos: Position, budget: Budget, weak: bool = False) -> Verdict:
        score = self.books.score(pos)
        if score is not None:
            BOOK_HITS.labels("solve").inc()
            return self._count("solve", Verdict(sign(score) if weak else score, 0, "book", weak))
        known = self.cache.get(pos)
        if known is not None:
            strong = known.score if known.score is not None else _max(known.scores)
            if strong is not None:
                return self._count("solve", Verdict(sign(strong) if weak else strong, 0, "cache", weak))
            if weak and known.sign is not None:
                return self._count("solve", Verdict(known.sign, 0, "cache", True))
        if self._use_external(pos, budget):
            scores = self._external_analyze(pos, budget)
            if scores is not None:
                strong = _max(scores)
                assert strong is not None  # a position in play has an open column
                self.cache.put(pos, Answer(scores=scores, score=strong))
                return self._count("solve", Verdict(sign(strong) if weak else strong, 0, "external", weak))
        started = time.perf_counter()
        try:
            result = self.pool.solve(pos, budget, weak)
        except BudgetExceeded as exc:
            UNPROVED.labels("solve").inc()
            raise Unproved(str(exc), exc.nodes) from None
        finally:
            SEARCH_SECONDS.labels("solver").observe(time.perf_counter() - started)
        self.cache.put(pos, Answer(sign=result.score) if weak else Answer(score=result.score))
        return self._count("solve", Verdict(result.score, result.nodes, "solver", weak))

    def analyze(self, pos: Position, budget: Budget, rpc: str = "analyze") -> Analysis:
        scores = self.books.analysis(pos)
        if scores is not None:
            BOOK_HITS.labels(rpc).inc()
            return self._count(rpc, Analysis(scores, 0, "book"))
        known = self.cache.get(pos)
        if known is not None and known.scores is not None:
            return self._count(rpc, Analysis(known.scores, 0, "cache"))
        if self._use_external(pos, budget):
            scores = self._external_analyze(pos, budget)
            if scores is not None:
                self.cache.put(pos, Answer(scores=scores, score=_max(scores)))
                return self._count(rpc, Analysis(scores, 0, "external"))
        if pos.geometry.wide:
            return self._wide_analyze(pos, budget, rpc)
        started = time.perf_counter()
        try:
            scores, nodes = self.pool.analyze(pos, budget)
        except BudgetExceeded as exc:
            UNPROVED.labels(rpc).inc()
            raise Unproved(str(exc), exc.nodes) from None
        finally:
            SEARCH_SECONDS.labels("solver").observe(time.perf_counter() - started)
        self.cache.put(pos, Answer(scores=scores, score=_max(scores)))
        return self._count(rpc, Analysis(scores, nodes, "solver"))

    def best_move(self, pos: Position, budget: Budget) -> Choice:
        """The perfect player's move; ``proven=False`` when the budget runs out."""
        hit = self.books.best_move(pos)  # a move book's best move, else an analysis
        if hit is not None:
            BOOK_HITS.labels("best_move").inc()
            return self._count("best_move", Choice(True, hit[0], hit[1], 0, "book"))
        known = self.cache.get(pos)
        if known is not None and known.scores is not None:
            col, score = _best(known.scores, pos.geometry)
            return self._count("best_move", Choice(True, col, score, 0, "cache"))
        if known is not None and known.best is not None and known.score is not None:
            return self._count("best_move", Choice(True, known.best, known.score, 0, "cache"))
        try:
            if self._use_external(pos, budget):
                scores = self._external_analyze(pos, budget)
                if scores is not None:
                    self.cache.put(pos, Answer(scores=scores, score=_max(scores)))
                    col, score = _best(scores, pos.geometry)
                    return self._count("best_move", Choice(True, col, score, 0, "external"))
            # The built-in solver needs no score of every column for this:
            # the value, then the columns centre first until one keeps it.
            started = time.perf_counter()
            try:
                col, score, nodes, children = self.pool.best_move(pos, budget)
            except BudgetExceeded as exc:
                UNPROVED.labels("best_move").inc()
                raise Unproved(str(exc), exc.nodes) from None
            finally:
                SEARCH_SECONDS.labels("solver").observe(time.perf_counter() - started)
        except Unproved as exc:
            return self._count("best_move", Choice(False, None, 0, exc.nodes, "unproved"))
        self.cache.put(pos, Answer(score=score, best=col))
        for c, child_score in children:
            self.cache.put(pos.played(c), Answer(score=child_score))
        return self._count("best_move", Choice(True, col, score, nodes, "solver"))

    # -- helpers -----------------------------------------------------------------
    def _wide_analyze(self, pos: Position, budget: Budget, rpc: str) -> Analysis:
        """A board past 64 bits: each column proved within the budget or left
        unproved (never guessed); only a complete analysis is cached."""
        started = time.perf_counter()
        try:
            scores, unproved, nodes = self.pool.analyze_partial(pos, budget)
        finally:
            SEARCH_SECONDS.labels("solver").observe(time.perf_counter() - started)
        if unproved:
            UNPROVED.labels(rpc).inc()
        else:
            self.cache.put(pos, Answer(scores=scores, score=_max(scores)))
        return self._count(rpc, Analysis(scores, nodes, "solver", unproved))

    def _use_external(self, pos: Position, budget: Budget) -> bool:
        # Pons' protocol knows 7x6 only and has no node budget.
        return self.external is not None and pos.geometry == STANDARD and not budget.nodes

    def _external_analyze(self, pos: Position, budget: Budget) -> tuple[int | None, ...] | None:
        """Scores from the external solver; None when it failed (the built-in
        solver answers then); Unproved when the deadline passed."""
        started = time.perf_counter()
        try:
            assert self.external is not None  # _use_external
            return self.external.analyze(pos, budget.left(), lambda: budget.cancelled)
        except ExternalTimeout as exc:
            UNPROVED.labels("external").inc()
            raise Unproved(f"external solver: {exc}") from None
        except ExternalFailed as exc:
            FALLBACKS.inc()
            log.warning("external solver failed, the built-in solver answers", extra={"error": str(exc)})
            return None
        finally:
            SEARCH_SECONDS.labels("external").observe(time.perf_counter() - started)

    @staticmethod
    def _count(rpc: str, answer):
        ANSWERS.labels(rpc, answer.source).inc()
        return answer


def _max(scores) -> int | None:
    known = [s for s in scores or () if s is not None]
    return max(known) if known else None


def _best(scores, g) -> tuple[int, int]:
    """The best column of a full analysis (a position in play has an open column)."""
    best = best_of(scores, g)
    assert best is not None
    return best
