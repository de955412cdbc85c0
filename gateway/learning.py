"""Learning from a finished game: the ``bookgen.learn`` Celery task, sent by name.

The gateway never imports solver, engine or bookgen code: it only needs
``celery`` to put a message on the ``c4.learn`` queue of the Redis it already
uses (``REDIS_URL``) and to read the task's result back. A bookgen worker
(``c4 bookgen worker``) traces the game with the solver, appends what it
learned to the corrective book and returns a JSON-safe report (docs/bookgen.md,
"Learning from lost games").

When no worker answers within ``C4_GATEWAY_LEARN_TIMEOUT_S`` the caller gets
``learning_unavailable``; the message expires in the queue after that time, so
a worker started later does not do stale work. Nothing here touches the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from .errors import GameError

log = logging.getLogger(__name__)

TASK = "bookgen.learn"
POLL_S = 0.1


class Learner:
    """Sends ``bookgen.learn`` and waits for its report (in a thread: Celery's client blocks)."""

    def __init__(self, redis_url: str, queue: str, timeout_s: float):
        self.redis_url = redis_url
        self.queue = queue
        self.timeout_s = timeout_s
        self._app: Any = None

    @property
    def app(self) -> Any:
        if self._app is None:  # imported on first use: most gateways never learn
            from celery import Celery

            app = Celery("c4gateway", broker=self.redis_url, backend=self.redis_url)
            app.conf.update(task_serializer="json", result_serializer="json", accept_content=["json"],
                            broker_connection_retry_on_startup=True, broker_connection_max_retries=3,
                            result_expires=3600)
            self._app = app
        return self._app

    async def learn(self, moves: str | list[int], size: str, engine: str) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        # A margin over the wait inside the thread: publishing to a Redis that is
        # down retries a few times before it gives up.
        try:
            return await asyncio.wait_for(loop.run_in_executor(None, self._run, moves, size, engine),
                                          self.timeout_s + 15)
        except TimeoutError:
            raise _unavailable(self.timeout_s) from None

    def _run(self, moves: str | list[int], size: str, engine: str) -> dict[str, Any]:
        from celery import states

        app = self.app
        if not self._worker_listens():
            raise GameError("learning_unavailable",
                            "learning is unavailable: no bookgen worker is running "
                            "(start one with `c4 bookgen worker`); the game is kept")
        try:
            result = app.send_task(TASK, kwargs={"moves": moves, "size": size, "engine": engine},
                                   queue=self.queue, expires=self.timeout_s,
                                   retry=True, retry_policy={"max_retries": 2, "interval_start": 0.2,
                                                             "interval_step": 0.5, "interval_max": 1})
        except Exception as exc:  # broker down
            raise GameError("service_unavailable", f"learning unavailable: cannot reach the task queue ({exc})") from exc
        # Poll the result key (a plain Redis GET, safe from any thread) rather than
        # Celery's pub/sub consumer, which is not meant to be shared by threads.
        deadline = time.monotonic() + self.timeout_s
        while True:
            meta = app.backend.get_task_meta(result.id)
            status = meta.get("status")
            if status in states.READY_STATES:
                break
            if time.monotonic() >= deadline:
                log.warning("learn: no worker answered", extra={"task": result.id, "timeout_s": self.timeout_s})
                raise _unavailable(self.timeout_s)
            time.sleep(POLL_S)
        with contextlib.suppress(Exception):
            app.backend.forget(result.id)
        if status != states.SUCCESS:
            detail = meta.get("result")
            if isinstance(detail, dict):
                detail = f"{detail.get('exc_type', '')}: {detail.get('exc_message', '')}"
            raise GameError("learning_failed", f"the learning task failed: {detail}")
        report = meta.get("result")
        if not isinstance(report, dict):
            raise GameError("learning_failed", f"the learning task answered {type(report).__name__}, not a report")
        return report


    def _worker_listens(self) -> bool:
        """Whether a bookgen worker consumes the learn queue (a broadcast to the
        workers, answered within a second), so nobody waits the whole timeout for
        a worker that is not there. When the question cannot be asked, assume yes."""
        try:
            replies = self.app.control.inspect(timeout=1.0).active_queues() or {}
        except Exception as exc:
            log.warning("learn: cannot ask the workers", extra={"error": repr(exc)})
            return True
        return any(q.get("name") == self.queue for queues in replies.values() for q in queues or ())


def _unavailable(timeout_s: float) -> GameError:
    return GameError("learning_unavailable",
                     f"learning is unavailable: no bookgen worker answered within {timeout_s:g} s "
                     "(start one with `c4 bookgen worker`); the game is kept")
