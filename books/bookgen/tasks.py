"""Worker tasks: solve or analyse one position in-process, result in Redis.

A position travels as its board name (``7x6``, ``6x5``, ``7x6k5``) and its
1-based move list, like everywhere else. Every task first looks in the store
(:mod:`.store`) and returns when the answer is there, so a task delivered
twice (after a worker was killed, or sent twice by the coordinator) changes
nothing. Lost Redis connections are retried with exponential back-off.

Task names (for ``send_task`` from processes that must not import solver
code, like the gateway): ``bookgen.best``, ``bookgen.solve``,
``bookgen.analyze``, ``bookgen.learn``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
import uuid

import redis
from celery.signals import task_postrun, task_prerun, worker_init, worker_ready, worker_shutdown

from connect4 import Geometry, Position
from connect4.book import child_scores

from .app import app
from solver_svc.solver import BudgetExceeded
from . import heartbeat
from .config import settings
from .solving import BookSolver, Known
from connect4.keys import canonical

from .store import ResultStore

log = logging.getLogger(__name__)

RETRY = dict(
    autoretry_for=(redis.exceptions.ConnectionError, redis.exceptions.TimeoutError),
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=12,
)
KNOWN_REFRESH_S = 5.0


def geometry_named(name: str) -> Geometry:
    """``7x6`` -> Geometry(7, 6, 4); ``7x6k5`` -> line length 5."""
    size, _, k = name.lower().partition("k")
    return Geometry.parse(size, int(k) if k else 4)


class _Worker:
    """Per-process state: one solver per board, the known scores, the store."""

    def __init__(self):
        self.solvers: dict[Geometry, BookSolver] = {}
        self.stores: dict[Geometry, ResultStore] = {}
        self.known: dict[Geometry, dict[int, int]] = {}
        self.known_at: dict[Geometry, float] = {}

    def solver(self, g: Geometry) -> BookSolver:
        if g not in self.solvers:
            self.solvers[g] = BookSolver(g, tt_log2=settings().tt_log2)
        return self.solvers[g]

    def store(self, g: Geometry) -> ResultStore:
        if g not in self.stores:
            self.stores[g] = ResultStore.from_url(settings().redis_url, g)
        return self.stores[g]

    def refresh_known(self, g: Geometry) -> dict[int, int]:
        """Every exact score in the store, preloaded into the solver's table."""
        now = time.monotonic()
        if now - self.known_at.get(g, -1e9) >= KNOWN_REFRESH_S:
            self.known[g] = self.store(g).all_scores()
            self.known_at[g] = now
        known = self.known.get(g, {})
        self.solver(g).preload(known)
        return known


STATE = _Worker()


@worker_init.connect
def _warm(**_):
    """Compile (or load from numba's cache) the kernels of the boards in
    ``C4_BOOKGEN_WARM`` (default 7x6) in the parent
    worker process, before the pool forks: every pool process (also one
    started after a child was killed) inherits them ready."""
    try:
        from solver_svc.solver import Solver

        for name in filter(None, settings().warm.split(",")):
            g = geometry_named(name.strip())
            with contextlib.suppress(BudgetExceeded):  # a few thousand nodes are enough to compile the search
                Solver(g, tt_log2=18).solve(Position(g), node_budget=5000)
    except Exception:  # pragma: no cover - warming is best effort
        log.exception("warm-up failed")


_heartbeat: heartbeat.Heartbeat | None = None
_holder_client: redis.Redis | None = None


@worker_init.connect
def _name_this_worker(sender=None, **_):
    """Before the pool forks: this incarnation's name, inherited by the pool processes."""
    # node name, pid and a random part: a restarted container has the same name and often the same pid
    heartbeat.SELF = f"{getattr(sender, 'hostname', None) or 'worker'}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@worker_ready.connect
def _start_heartbeat(**_):
    global _heartbeat
    if heartbeat.SELF and _heartbeat is None:
        _heartbeat = heartbeat.Heartbeat(app, heartbeat.SELF).start()


@worker_shutdown.connect
def _stop_heartbeat(**_):
    if _heartbeat is not None:
        _heartbeat.stop()


def _holders() -> redis.Redis:
    global _holder_client
    if _holder_client is None:
        _holder_client = redis.Redis.from_url(settings().redis_url, socket_timeout=10, socket_connect_timeout=5)
    return _holder_client


@task_prerun.connect
def _hold(task_id=None, **_):
    if heartbeat.SELF and task_id:
        try:
            heartbeat.task_started(_holders(), task_id, heartbeat.SELF)
        except redis.RedisError:  # without the record the task is still put back, after unheld_grace_s
            log.warning("could not record the task's holder", exc_info=True)


@task_postrun.connect
def _release(task_id=None, **_):
    if heartbeat.SELF and task_id:
        try:
            heartbeat.task_done(_holders(), task_id)
        except redis.RedisError:
            log.warning("could not clear the task's holder", exc_info=True)


def _position(size: str, moves) -> tuple[Geometry, Position]:
    g = geometry_named(size)
    return g, Position.from_moves([int(m) - 1 for m in moves], g)


class _Running:
    def __init__(self, store: ResultStore, pos: Position):
        self.store, self.key = store, canonical(pos)[0]

    def __enter__(self):
        self.store.task_started(self.key)

    def __exit__(self, *exc):
        self.store.task_finished()


@app.task(name="bookgen.best", ignore_result=True, **RETRY)
def best(size: str, moves: list[int]) -> dict:
    """The perfect player's move and the exact score of a position."""
    g, pos = _position(size, moves)
    store = STATE.store(g)
    found = store.best(pos)
    if found is None:
        with _Running(store, pos):
            bm = STATE.solver(g).best_move(pos, _proved_scores(store, g, pos))
            store.put_best(pos, bm.column, bm.score)
            found = (bm.column, bm.score)
            log.info("best", extra={"board": g.name, "moves": len(moves), "column": bm.column + 1,
                                    "score": bm.score, "nodes": bm.nodes, "pid": os.getpid()})
    return {"column": found[0] + 1, "score": found[1]}


@app.task(name="bookgen.ties", ignore_result=True, **RETRY)
def ties(size: str, moves: list[int]) -> dict:
    """Every column of the best score of a position, and the score."""
    g, pos = _position(size, moves)
    store = STATE.store(g)
    key, flipped = canonical(pos)
    found = store.ties_of([key])[0]
    if found is not None and flipped:  # stored for the mirror image
        found = (tuple(g.width - 1 - c for c in found[0]), found[1])
    if found is None:
        with _Running(store, pos):
            bm = STATE.solver(g).best_move(pos, _proved_scores(store, g, pos), ties=True)
            assert bm.ties is not None
            store.put_ties(pos, bm.ties, bm.score)
            found = (bm.ties, bm.score)
            log.info("ties", extra={"board": g.name, "moves": len(moves), "columns": [c + 1 for c in bm.ties],
                                    "score": bm.score, "nodes": bm.nodes, "pid": os.getpid()})
    return {"columns": [c + 1 for c in found[0]], "score": found[1]}


@app.task(name="bookgen.solve", ignore_result=True, **RETRY)
def solve(size: str, moves: list[int]) -> dict:
    """The exact score of a position."""
    g, pos = _position(size, moves)
    store = STATE.store(g)
    score = store.score(pos)
    if score is None:
        with _Running(store, pos):
            known = STATE.refresh_known(g)
            score = STATE.solver(g).solve(pos, known.get)
            store.put_score(pos, score)
    return {"score": score}


@app.task(name="bookgen.analyze", ignore_result=True, **RETRY)
def analyze(size: str, moves: list[int]) -> dict:
    """The exact score of every column of a position."""
    g, pos = _position(size, moves)
    store = STATE.store(g)
    scores = store.analysis(pos)
    if scores is None:
        with _Running(store, pos):
            scores = STATE.solver(g).analyze(pos, _proved_scores(store, g, pos))
            store.put_scores(child_scores(pos, scores))  # for the other workers' searches
            store.put_analysis(pos, scores)
    return {"scores": scores}


@app.task(name="bookgen.learn", **RETRY)
def learn(moves, size: str = "7x6", engine: str = "auto", book: str | None = None) -> dict:
    """Trace a finished game (see :mod:`.learn`); returns the report as a dict.

    ``moves``: a string in any notation (``"4453"``, ``"d d e c"``) or a list
    of 1-based columns. Bad moves raise ``connect4.Connect4Error`` (a
    ValueError), which the caller's ``result.get()`` re-raises."""
    from connect4.notation import parse_moves

    from .learn import learn_game

    g = geometry_named(size)
    cols = parse_moves(moves, g)  # 1-based at this edge -> 0-based
    report = learn_game(cols, g, engine=engine, book=book, solver=STATE.solver(g))
    return report.as_dict()


def _proved_scores(store: ResultStore, g: Geometry, pos: Position) -> Known:
    """Exact scores by canonical key that a search below ``pos`` may take as
    proved: its children's fresh ones from the store, then the known ones."""
    known = STATE.refresh_known(g)
    fresh = _children_known(store, pos)
    return lambda k: fresh.get(k, known.get(k))


def _children_known(store: ResultStore, pos: Position) -> dict[int, int]:
    """Fresh scores of the children of ``pos`` (one round trip)."""
    keys = [pos.played(c).canonical_key() for c in pos.legal_moves() if not pos.played(c).is_over]
    return {k: s for k, s in zip(keys, store.scores(keys), strict=True) if s is not None}
