"""The gRPC adapter of the engine: proto in, library calls, proto out.

Columns are 1-based on the wire and 0-based inside; this module is the one
place that converts. Bad positions and specs answer INVALID_ARGUMENT with the
library's message; a deadline caps the search budget; searches run at once up
to MAX_CONCURRENT (the numba kernels release the GIL), each with an engine
(and its table) borrowed from a pool. Every search, of every player, stops
when its RPC ends (a cancel, a client gone) or its deadline passes: the
engine answers from its last depth, minimax and mcts stop at once
(DEADLINE_EXCEEDED or CANCELLED).
"""

from __future__ import annotations

import contextvars
import logging
import queue
import threading
import time
from contextlib import contextmanager, suppress

import grpc

from c4proto.connect4.v1 import common_pb2, engine_pb2, engine_pb2_grpc
from connect4 import Connect4Error, Geometry, Position
from servicekit.deadlines import time_left

from connect4 import STANDARD
from connect4.bookset import BookSet
from connect4.geometry import large_boards
from .evaluation import evaluate
from .metrics import MOVES, NODES, SEARCH_SECONDS, record_speed
from .players import DEFAULT_ENGINE_MS, Cancel, InvalidSpec, Stopped, list_players, make_player, parse_spec
from .search import Engine, SearchResult
from .settings import EngineSettings

log = logging.getLogger(__name__)

SERVICE_NAME = engine_pb2.DESCRIPTOR.services_by_name["EngineService"].full_name
OUTCOMES = {
    "unknown": engine_pb2.OUTCOME_UNKNOWN,
    "win": engine_pb2.OUTCOME_WIN,
    "draw": engine_pb2.OUTCOME_DRAW,
    "loss": engine_pb2.OUTCOME_LOSS,
}


class BadRequest(Exception):
    """A request that cannot be answered: INVALID_ARGUMENT with this message."""


def position_from_proto(msg: common_pb2.Position) -> Position:
    try:
        g = Geometry(msg.width or 7, msg.height or 6, msg.k or 4)
        pos = Position.from_moves([m - 1 for m in msg.moves], g)  # 1-based on the wire
    except Connect4Error as exc:
        raise BadRequest(f"bad position: {exc}") from None
    if pos.is_over:
        raise BadRequest("bad position: the game is over" + (" (a line is complete)" if pos.winner is not None else " (the board is full)"))
    return pos


def result_to_proto(r: SearchResult) -> engine_pb2.SearchResult:
    return engine_pb2.SearchResult(
        column=r.column + 1, score=int(r.score), depth=r.depth, nodes=r.nodes, elapsed_ms=r.elapsed_ms,
        book=r.book, proven=r.proven, pv=[c + 1 for c in r.pv], outcome=OUTCOMES[r.outcome],
        plies_to_end=r.plies_to_end, resign=r.resign, message=r.message, player=r.player,
    )


class EnginePool:
    """Engines (each with its own table) per geometry, borrowed one per search."""

    def __init__(self, tt_mb: float, size: int):
        self.tt_mb = tt_mb
        self.size = size
        self._free: dict[Geometry, queue.Queue] = {}
        self._lock = threading.Lock()

    def _queue(self, g: Geometry) -> queue.Queue:
        with self._lock:
            q = self._free.get(g)
            if q is None:
                q = queue.Queue()
                # Tables of other sizes than 7x6 are rare requests: smaller tables.
                mb = self.tt_mb if g.is_standard else min(self.tt_mb, 16.0)
                for _ in range(self.size):
                    q.put(Engine(g, mb))
                self._free[g] = q
            return q

    @contextmanager
    def engine(self, g: Geometry):
        q = self._queue(g)
        e = q.get()
        try:
            yield e
        finally:
            q.put(e)


class EngineServicer(engine_pb2_grpc.EngineServiceServicer):
    def __init__(self, settings: EngineSettings | None = None):
        self.settings = settings or EngineSettings()
        self.books = BookSet(self.settings.book_paths(), STANDARD)
        self.pool = EnginePool(self.settings.tt_mb, max(1, self.settings.max_concurrent))
        self.slots = threading.BoundedSemaphore(max(1, self.settings.max_concurrent))

    # -- helpers -------------------------------------------------------------
    def _budget(self, request, spec: str, context) -> float | None:
        name, arg = parse_spec(spec)
        if name != "engine":
            return None
        budget = float(request.budget_ms) if request.budget_ms > 0 else float(arg or DEFAULT_ENGINE_MS)
        remaining = time_left(context)
        if remaining is not None:
            # An iteration may run to twice the budget before it is aborted, so
            # half of what is left (less a margin for the answer) is the most.
            cap = (remaining * 1000.0 - self.settings.deadline_margin_ms) / 2.0
            budget = max(1.0, min(budget, cap))
        return budget

    def _run(self, request, context, on_progress=None) -> SearchResult:
        pos = position_from_proto(request.position)
        spec = request.player.strip() or "engine"
        try:
            name, _ = parse_spec(spec)
        except InvalidSpec as exc:
            raise BadRequest(str(exc)) from None
        budget = self._budget(request, spec, context)
        cancel = Cancel()
        timer = None
        if context is not None:
            if not context.add_callback(cancel.set):  # the client went away, or the RPC ended otherwise
                cancel.set()  # it has ended already
            remaining = time_left(context)
            if remaining is not None:
                # Every search stops at the deadline (less the margin), whether or
                # not gRPC has ended the call yet: nobody waits for it after that.
                timer = threading.Timer(max(0.0, remaining - self.settings.deadline_margin_ms / 1000.0), cancel.set)
                timer.daemon = True
                timer.start()
        started = time.perf_counter()
        try:
            with self.slots:
                started = time.perf_counter()  # the search's time, not the wait for a slot
                if name == "engine":
                    with self.pool.engine(pos.geometry) as engine:
                        player = make_player(spec, pos.geometry, seed=request.seed, engine=engine,
                                             books=None if request.no_book else self.books)
                        result = player.choose(pos, budget_ms=budget, on_progress=on_progress, cancel=cancel)
                    assert budget is not None  # an engine spec always has one (_budget)
                    result.player = f"engine:{max(1, round(budget))}"  # what played: the budget it had
                else:
                    try:
                        player = make_player(spec, pos.geometry, seed=request.seed)
                    except InvalidSpec as exc:  # e.g. a learned player whose weights file is bad
                        raise BadRequest(str(exc)) from None
                    result = player.choose(pos, cancel=cancel)
        except Stopped as exc:
            seconds = time.perf_counter() - started
            NODES.labels(name).inc(exc.nodes)
            SEARCH_SECONDS.labels(name).observe(seconds)
            MOVES.labels(name, "stopped").inc()
            log.info("move stopped", extra={"player": spec, "moves": len(pos.moves), "nodes": exc.nodes,
                                            "ms": round(seconds * 1000.0, 1)})
            raise
        finally:
            if timer is not None:
                timer.cancel()
        NODES.labels(name).inc(result.nodes)
        SEARCH_SECONDS.labels(name).observe(result.elapsed_ms / 1000.0)
        record_speed(name, result.nodes, result.elapsed_ms / 1000.0)
        MOVES.labels(name, "book" if result.book else "search").inc()
        log.info("move", extra={"player": result.player, "moves": len(pos.moves), "column": result.column + 1,
                                "depth": result.depth, "nodes": result.nodes, "ms": round(result.elapsed_ms, 1),
                                "book": result.book, "proven": result.proven})
        return result

    def _stopped(self, context) -> None:
        """The status of a search stopped before its answer: its deadline, else a cancel."""
        remaining = time_left(context)
        if remaining is not None and remaining * 1000.0 <= self.settings.deadline_margin_ms:
            context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "the deadline passed before the move was found")
        context.abort(grpc.StatusCode.CANCELLED, "the request was cancelled")

    # -- RPCs ------------------------------------------------------------------
    def ListPlayers(self, request, context):
        return engine_pb2.ListPlayersResponse(players=[
            engine_pb2.PlayerInfo(spec=p.spec, family=p.family, description=p.description, takes_budget=p.takes_budget,
                                  param_min=p.param_min, param_max=p.param_max,
                                  default_budget_ms=p.default_budget_ms, param_is_budget_ms=p.param_is_budget_ms)
            for p in list_players()
        ])

    def Move(self, request, context):
        try:
            return result_to_proto(self._run(request, context))
        except BadRequest as exc:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        except Stopped:
            self._stopped(context)

    def Think(self, request, context):
        updates: queue.Queue = queue.Queue()
        done = object()
        box: dict = {}

        def on_progress(d):
            updates.put(engine_pb2.ThinkUpdate(progress=engine_pb2.DepthReport(
                depth=d.depth, nodes=d.nodes, score=int(d.score), best_column=d.best_column + 1,
                elapsed_ms=d.elapsed_ms, proven=d.proven)))

        def work():
            try:
                box["result"] = self._run(request, context, on_progress)
            except BaseException as exc:  # handed to the RPC thread below
                box["error"] = exc
            finally:
                updates.put(done)

        # Validate before streaming anything, so a bad request fails at once.
        try:
            position_from_proto(request.position)
            parse_spec(request.player.strip() or "engine")
        except (BadRequest, InvalidSpec) as exc:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        # The worker runs in a copy of this RPC's context, so its log lines
        # keep the request id (a plain thread starts with empty context variables).
        ctx = contextvars.copy_context()
        threading.Thread(target=ctx.run, args=(work,), daemon=True, name="think").start()
        while True:
            item = updates.get()
            if item is done:
                break
            yield item
        if "error" in box:
            err = box["error"]
            if isinstance(err, BadRequest):
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(err))
            if isinstance(err, Stopped):
                self._stopped(context)
            raise err
        yield engine_pb2.ThinkUpdate(result=result_to_proto(box["result"]))

    def Evaluate(self, request, context):
        try:
            pos = position_from_proto(request.position)
        except BadRequest as exc:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        e = evaluate(pos)
        def cell(c, r):
            return common_pb2.Cell(column=c + 1, row=r + 1)
        return engine_pb2.EvaluateResponse(
            score=e.score, line_score=e.line_score, threat_score=e.threat_score,
            first_threats=[cell(c, r) for c, r in e.first_threats],
            second_threats=[cell(c, r) for c, r in e.second_threats],
        )


def warm_up(servicer: EngineServicer) -> None:
    """Compile (or load from the cache) every kernel and touch each player once."""
    started = time.perf_counter()
    pos = Position.parse("4453")
    for spec in ("random", "greedy", "gated", "easy", "minimax:2", "mcts:50", "search", "alphabeta"):
        make_player(spec, pos.geometry, seed=0).choose(pos)
    with servicer.pool.engine(pos.geometry) as engine:
        engine.search(pos, max_depth=4)
    evaluate(pos)
    list_players()  # checks the learned players' weights once; a bad file is one warning, its players left out
    log.info("kernels warm", extra={"seconds": round(time.perf_counter() - started, 2),
                                    "books": [str(p) for p in servicer.books.paths], "book_entries": len(servicer.books)})


PREWARM_SPECS = ("random", "greedy", "easy", "minimax:2", "mcts:50", "alphabeta", "search")  # search: solver's kernels too


def prewarm_boards(text: str) -> list[Geometry]:
    """The large boards of C4_ENGINE_PREWARM (the others run on the 64-bit kernels, warm already)."""
    return large_boards(text, "C4_ENGINE_PREWARM")


def prewarm(servicer: EngineServicer, boards: list[Geometry]) -> threading.Thread:
    """Compile (or load) the kernels of ``boards`` in a background thread; the service serves meanwhile."""

    def run() -> None:
        try:
            warm(boards)
        except Exception:  # the same failure shows, with its traceback, in the first request of that size
            log.exception("pre-warming large boards failed")

    def warm(boards: list[Geometry]) -> None:
        for g in boards:
            started, cpu = time.perf_counter(), time.thread_time()
            pos = Position.from_moves([g.width // 2, g.width // 2], g)
            for spec in PREWARM_SPECS:
                with suppress(InvalidSpec):  # a player that does not play this board
                    make_player(spec, g, seed=0).choose(pos)
            with servicer.pool.engine(g) as engine:
                engine.search(pos, max_depth=4)
            log.info("kernels warm", extra={"board": g.name, "seconds": round(time.perf_counter() - started, 2),
                                            "cpu_s": round(time.thread_time() - cpu, 2)})

    thread = threading.Thread(target=run, daemon=True, name="engine-prewarm")
    thread.start()
    return thread


def add_servicer(servicer: EngineServicer):
    def add(server):
        engine_pb2_grpc.add_EngineServiceServicer_to_server(servicer, server)
        return [SERVICE_NAME]

    return add


def main() -> None:
    from servicekit.grpc_server import run_service
    from servicekit.logs import configure_logging
    from servicekit.settings_check import settings_or_exit

    settings = settings_or_exit(EngineSettings, "engine")
    configure_logging("engine", settings.log_level)
    try:
        boards = prewarm_boards(settings.prewarm)
    except (Connect4Error, ValueError) as exc:
        raise SystemExit(f"engine: {exc}") from None
    servicer = EngineServicer(settings)

    def warm() -> None:
        warm_up(servicer)
        prewarm(servicer, boards)

    run_service(
        "engine", settings.address, add_servicer(servicer), warmup=warm,
        max_workers=2 * max(1, settings.max_concurrent) + 4, metrics_port=settings.metrics_port,
        metrics_host=settings.host,  # reachable wherever the service is (the container network)
        grace_s=settings.shutdown_grace_s,
    )
