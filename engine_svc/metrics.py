"""Prometheus metrics of the engine service (served by servicekit's metrics
server on ``C4_ENGINE_METRICS_PORT``; per-RPC counts and latency come from
servicekit's interceptor).

Nodes per second is ``rate(engine_nodes_total[1m]) /
rate(engine_search_seconds_sum[1m])`` (per family: the same by ``family``).
"""

from prometheus_client import Counter, Histogram

NODES = Counter("engine_nodes_total", "Positions searched (mcts: simulations), by player family", ["family"])
MOVES = Counter("engine_moves_total", "Moves answered, by player family and how", ["family", "how"])
SEARCH_SECONDS = Histogram(
    "engine_search_seconds", "Time of each move's search (book answers included), by player family", ["family"],
    buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600),
)
