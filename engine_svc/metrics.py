"""Prometheus metrics of the engine service (served by servicekit's metrics
server on ``C4_ENGINE_METRICS_PORT``; per-RPC counts and latency come from
servicekit's interceptor).

Nodes per second over a window is ``rate(engine_nodes_total[1m]) /
rate(engine_search_seconds_sum[1m])`` (per family: the same by ``family``);
``engine_nodes_per_second`` is that of the last search of at least 10 ms.
"""

from prometheus_client import Counter, Gauge, Histogram

NODES = Counter("engine_nodes_total", "Positions searched (mcts: simulations), by player family", ["family"])
MOVES = Counter("engine_moves_total", "Moves answered, by player family and how", ["family", "how"])
SEARCH_SECONDS = Histogram(
    "engine_search_seconds", "Time of each move's search (book answers included), by player family", ["family"],
    buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600),
)
NODES_PER_SECOND = Gauge("engine_nodes_per_second", "Nodes per second of the last search of 10 ms or more, "
                         "by player family", ["family"])


def record_speed(family: str, nodes: int, seconds: float) -> None:
    if seconds >= 0.01 and nodes:  # shorter searches (book moves, table hits) say nothing of speed
        NODES_PER_SECOND.labels(family).set(nodes / seconds)
