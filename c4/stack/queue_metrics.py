"""Bookgen queue length as Prometheus metrics, read from Redis at scrape time.

Celery's Redis transport keeps a queue as a Redis list named after it (with
``<name>\\x06\\x16<p>`` lists for priorities), and the messages a worker has
taken but not yet acknowledged (``task_acks_late``: the ones being solved) in
the ``unacked`` hash. Exported:

- ``bookgen_queue_length{queue}``: tasks waiting;
- ``bookgen_tasks_unacked``: tasks taken by a worker and not finished;
- ``bookgen_queue_up``: 1 when Redis answered the last scrape.

``c4 up`` serves these from its own process; docker-compose.yml runs
``python -m c4.stack.queue_metrics`` (port ``C4_QUEUE_METRICS_PORT``, default 9103).
"""

from __future__ import annotations

import logging
import signal
import threading

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector, CollectorRegistry
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

log = logging.getLogger(__name__)

PRIORITY_SEP = "\x06\x16"
UNACKED_KEY = "unacked"


class QueueMetricsSettings(BaseSettings):
    """``C4_QUEUE_METRICS_*`` and the shared ``REDIS_URL``."""

    model_config = SettingsConfigDict(env_prefix="C4_QUEUE_METRICS_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 9103
    redis_url: str = Field("redis://127.0.0.1:6379/0", validation_alias="REDIS_URL")
    log_level: str = "INFO"


DEFAULT_QUEUES = ["c4.bookgen", "c4.learn"]


def bookgen_queues() -> list[str]:
    """The queue names the bookgen settings give (their defaults without bookgen installed)."""
    try:
        from books.bookgen.config import BookgenSettings
    except ImportError:
        return list(DEFAULT_QUEUES)
    cfg = BookgenSettings()
    return list(dict.fromkeys([cfg.queue, cfg.learn_queue]))


class QueueCollector(Collector):
    def __init__(self, redis_url: str, queues: list[str]):
        import redis

        self.queues = queues
        self.client = redis.Redis.from_url(redis_url, socket_timeout=2, socket_connect_timeout=2)

    def lengths(self) -> tuple[dict[str, int], int]:
        pipe = self.client.pipeline(transaction=False)
        for q in self.queues:
            pipe.llen(q)
            for p in range(1, 10):
                pipe.llen(f"{q}{PRIORITY_SEP}{p}")
        pipe.hlen(UNACKED_KEY)
        answers = pipe.execute()
        out = {q: sum(answers[i * 10:(i + 1) * 10]) for i, q in enumerate(self.queues)}
        return out, int(answers[-1])

    def collect(self):
        length = GaugeMetricFamily("bookgen_queue_length", "Bookgen tasks waiting in the queue", labels=["queue"])
        unacked = GaugeMetricFamily("bookgen_tasks_unacked", "Bookgen tasks taken by a worker, not yet finished")
        up = GaugeMetricFamily("bookgen_queue_up", "1 when Redis answered this scrape")
        try:
            lengths, taken = self.lengths()
        except Exception as err:  # Redis down: say so, keep serving
            log.warning("queue length unavailable", extra={"error": str(err)})
            up.add_metric([], 0)
            yield up
            return
        for q, n in lengths.items():
            length.add_metric([q], n)
        unacked.add_metric([], taken)
        up.add_metric([], 1)
        yield length
        yield unacked
        yield up


def serve(redis_url: str, port: int, host: str = "127.0.0.1", queues: list[str] | None = None):
    """Serve /metrics with the queue gauges in a daemon thread; returns (server, thread)."""
    from prometheus_client import start_http_server

    registry = CollectorRegistry()
    registry.register(QueueCollector(redis_url, queues or bookgen_queues()))
    return start_http_server(port, addr=host, registry=registry)


def main() -> None:
    from servicekit.logs import configure_logging

    from servicekit.settings_check import settings_or_exit

    cfg = settings_or_exit(QueueMetricsSettings, "queue-metrics")
    configure_logging("queue-metrics", cfg.log_level)
    serve(cfg.redis_url, cfg.port, cfg.host)
    log.info("serving bookgen queue metrics", extra={"address": f"{cfg.host}:{cfg.port}"})
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()


if __name__ == "__main__":
    main()
