"""The Celery application of the bookgen workers.

Reliability settings, and why:

* ``task_acks_late``: a task is acknowledged after it ran, not when it was
  received, so a worker that dies mid-task does not lose it.
* ``task_reject_on_worker_lost``: when the pool process running a task is
  killed (SIGKILL, OOM), the parent worker rejects the message with requeue and
  another process takes it at once.
* ``worker_prefetch_multiplier = 1``: a worker reserves one task at a time, so
  long solves spread evenly over the workers instead of queueing behind one.
* broker ``visibility_timeout`` longer than the longest task: Redis hands an
  unacknowledged task to another worker only after that time, which covers a
  worker that vanished together with its connection (a lost machine).
* retries with exponential back-off and jitter for a lost Redis connection
  (see :mod:`.tasks`).

Tasks are idempotent: each stores its result in Redis under the position key
(:mod:`.store`) and returns at once when it is there already.
"""

from __future__ import annotations

from celery import Celery

from .config import settings


def make_app(redis_url: str | None = None) -> Celery:
    cfg = settings()
    url = redis_url or cfg.redis_url
    app = Celery("c4bookgen", broker=url, backend=url, include=["books.bookgen.tasks"])
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_transport_options={"visibility_timeout": cfg.visibility_timeout},
        result_backend_transport_options={"visibility_timeout": cfg.visibility_timeout},
        broker_connection_retry_on_startup=True,
        task_default_queue=cfg.queue,
        task_routes={"bookgen.learn": {"queue": cfg.learn_queue}},
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_expires=24 * 3600,
        task_track_started=True,
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
        worker_max_tasks_per_child=None,
        broker_heartbeat=0,
        worker_proc_alive_timeout=120,  # a new pool process may load numba code on a busy machine
    )
    from .liveness import Liveness

    app.steps["consumer"].add(Liveness)  # /healthz on C4_BOOKGEN_HEALTH_PORT
    return app


app = make_app()
