"""Assemble and run the solver service from its settings."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

import grpc

from c4proto.connect4.v1 import solver_pb2_grpc
from connect4 import STANDARD, Geometry, Position
from connect4.bookset import BookSet
from connect4.geometry import large_boards
from servicekit.grpc_server import build_server, mark_serving, run_service

from .builtin import SolverPool
from .cache import AnswerCache
from .external import ExternalPool
from .oracle import Oracle
from .service import SERVICE_NAME, SolverService
from .settings import SolverSettings

log = logging.getLogger(__name__)

# A 23-stone position (Pons' test set L2_R1, score 8): quick to solve, and it
# runs every kernel of the search.
WARMUP_MOVES = "52753311433677442422121"


def build_oracle(settings: SolverSettings) -> Oracle:
    backend = settings.backend.strip().lower()
    if backend not in ("builtin", "external"):
        raise ValueError(f"C4_SOLVER_BACKEND must be 'builtin' or 'external', not {settings.backend!r}")
    external = ExternalPool(settings.external_cmd, settings.external_pool) if backend == "external" else None
    return Oracle(
        pool=SolverPool(settings.workers, settings.tt_log2),
        books=BookSet.load(settings.books),
        cache=AnswerCache(settings.cache_size, settings.redis_url, settings.redis_ttl_s),
        external=external,
    )


def warm_up(oracle: Oracle, prewarm: Sequence[Geometry] = ()) -> None:
    """Compile the 7x6 kernels, solve once on every pooled solver, start
    the external solvers with one query each, and start compiling the
    ``prewarm`` boards' kernels in the background (the service is ready
    before they are; a request for such a size meanwhile is told to wait)."""
    for g in prewarm:
        oracle.pool.warmer.start(g)
    pos = Position.parse(WARMUP_MOVES, STANDARD)
    seconds = oracle.pool.warm(STANDARD, pos)
    log.info("built-in solvers warm", extra={"workers": oracle.pool.workers, "seconds": round(seconds, 3)})
    if oracle.external is not None:
        started = time.perf_counter()
        for proc in oracle.external.processes:
            try:
                proc.analyze(pos, timeout=120.0)
            except Exception as exc:  # the built-in solver answers while it is down
                log.warning("external solver failed its warm-up query", extra={"error": str(exc)})
        log.info("external solvers warm", extra={"processes": len(oracle.external.processes),
                                                 "seconds": round(time.perf_counter() - started, 3)})


def prewarm_sizes(text: str) -> list[Geometry]:
    """The large boards of C4_SOLVER_PREWARM (the others run on the 64-bit kernels, warm already)."""
    return large_boards(text, "C4_SOLVER_PREWARM")


def _add_servicers(oracle: Oracle, settings: SolverSettings):
    def add(server: grpc.Server):
        solver_pb2_grpc.add_SolverServiceServicer_to_server(
            SolverService(oracle, settings.deadline_margin_ms / 1000.0), server)
        return [SERVICE_NAME]

    return add


def _max_workers(settings: SolverSettings) -> int:
    # Searches wait for a pooled solver; extra threads keep book and cache
    # answers flowing while every solver is busy.
    return settings.workers * 2 + 8


def start_server(settings: SolverSettings, oracle: Oracle | None = None, warm: bool = True):
    """Start in this process (tests, benchmarks): (server, port, oracle).
    Health goes SERVING after the warm-up."""
    oracle = oracle or build_oracle(settings)
    server, health, port = build_server(settings.address, _add_servicers(oracle, settings), _max_workers(settings))
    server.start()
    if warm:
        warm_up(oracle, prewarm_sizes(settings.prewarm))
    mark_serving(health)
    return server, port, oracle


def main() -> None:
    from servicekit.logs import configure_logging
    from servicekit.settings_check import settings_or_exit

    settings = settings_or_exit(SolverSettings, "solver")
    configure_logging("solver", settings.log_level)
    try:
        prewarm = prewarm_sizes(settings.prewarm)
    except ValueError as exc:
        raise SystemExit(f"solver: {exc}") from None
    oracle = build_oracle(settings)
    log.info("solver configured", extra={
        "backend": settings.backend, "workers": settings.workers, "books": len(oracle.books),
        "cache_size": settings.cache_size, "redis": bool(settings.redis_url)})
    try:
        run_service("solver", settings.address, _add_servicers(oracle, settings), lambda: warm_up(oracle, prewarm),
                    max_workers=_max_workers(settings), metrics_port=settings.metrics_port,
                    metrics_host=settings.host, grace_s=settings.shutdown_grace_s)
    finally:
        if oracle.external is not None:
            oracle.external.close()
