"""Prometheus metrics of the solver service (served by servicekit's metrics
server on ``C4_SOLVER_METRICS_PORT``; per-RPC counts and latency come from
servicekit's interceptor)."""

from prometheus_client import Counter, Gauge, Histogram

ANSWERS = Counter("solver_answers_total", "Answers given, by RPC and source", ["rpc", "source"])
CACHE_HITS = Counter("solver_cache_hits_total", "Answer cache hits", ["layer"])
CACHE_MISSES = Counter("solver_cache_misses_total", "Answer cache misses")
CACHE_ERRORS = Counter("solver_cache_redis_errors_total", "Redis cache calls that failed")
BOOK_HITS = Counter("solver_book_hits_total", "Answers found in the books", ["rpc"])
NODES = Counter("solver_nodes_total", "Positions searched by the built-in solver")
UNPROVED = Counter("solver_unproved_total", "Searches stopped by a deadline or node budget", ["rpc"])
SEARCH_SECONDS = Histogram(
    "solver_search_seconds", "Time of searches that ran (books and cache excluded)", ["backend"],
    buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300),
)
BUSY = Gauge("solver_busy_workers", "Built-in solvers searching now")
EXTERNAL_RESTARTS = Counter("solver_external_restarts_total", "External solver processes (re)started")
EXTERNAL_FAILURES = Counter("solver_external_failures_total", "External solver queries that failed", ["reason"])
FALLBACKS = Counter("solver_fallbacks_total", "Queries the built-in solver answered after the external one failed")
