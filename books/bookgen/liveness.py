"""A bookgen worker's liveness, for ``/healthz`` on ``C4_BOOKGEN_HEALTH_PORT``.

A consumer bootstep: once the worker's consumer is connected and taking
tasks, it puts a repeating timer into the consumer's own event loop. Healthy
means: consuming (started, not stopped by a lost broker connection) and that
timer ticked lately, i.e. the loop that takes tasks from Redis is turning.
A probe reads these two facts over HTTP in a thread of the worker: no
``celery inspect`` broadcast, no Celery import in the probe process.
"""

from __future__ import annotations

import threading
import time

from celery import bootsteps
from celery.worker.consumer.tasks import Tasks

TICK_S = 2.0
STALE_S = 30.0  # a loop that has not turned for this long is stuck


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.consuming = False
        self.last_tick = 0.0
        self.server: object | None = None  # the HealthServer, once started

    def tick(self) -> None:
        with self.lock:
            self.last_tick = time.monotonic()

    def health(self) -> tuple[bool, str]:
        with self.lock:
            consuming, age = self.consuming, time.monotonic() - self.last_tick
        if not consuming:
            return False, "NOT_SERVING: the consumer is not taking tasks (starting, or the broker connection is lost)"
        if age > STALE_S:
            return False, f"NOT_SERVING: the consumer's event loop has not turned for {age:.0f} s"
        return True, "SERVING"


STATE = _State()


class Liveness(bootsteps.StartStopStep):
    """Consumer step, after the task consumer: marks the worker consuming and ticks."""

    requires = (Tasks,)

    def __init__(self, parent, **kwargs) -> None:
        super().__init__(parent, **kwargs)
        from .config import settings

        cfg = settings()
        start_health_server(cfg.health_port, cfg.health_host)

    def start(self, consumer) -> None:
        STATE.tick()
        consumer.timer.call_repeatedly(TICK_S, STATE.tick)
        with STATE.lock:
            STATE.consuming = True

    def stop(self, consumer) -> None:
        with STATE.lock:
            STATE.consuming = False

    shutdown = stop


def start_health_server(port: int, host: str = "127.0.0.1") -> None:
    """``/healthz`` and ``/metrics`` of this worker; once per process, port 0: none."""
    from servicekit.metrics import start_metrics_server

    if port and STATE.server is None:
        STATE.server = start_metrics_server(port, host, STATE.health)
