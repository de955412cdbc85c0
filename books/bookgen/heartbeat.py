"""Worker heartbeats: a task held by a dead worker goes back to its queue
within a minute, not after the broker's visibility timeout (hours). (The
worker's own ``/healthz`` is :mod:`.liveness`.)

With ``task_acks_late`` a task a worker took sits in the Redis transport's
``unacked`` hash until that worker acknowledges it. When only the pool
process dies, Celery requeues it at once (``task_reject_on_worker_lost``);
when the whole worker dies (kill -9 of the main process, a lost machine),
kombu would hand it out again only after ``visibility_timeout``, which must
be longer than the longest task. So:

* every worker's main process refreshes ``c4:bookgen:alive:<node>:<pid>:<random>``
  (expiring after ``heartbeat_ttl_s``) every ``heartbeat_s``;
* the pool process that starts a task records ``c4:bookgen:holder:<task id>
  = <node>:<pid>:<random>`` (the main process's incarnation) (and deletes it when the task is done);
* every ``heartbeat_s`` each living worker looks through ``unacked``: a task
  whose holder's heartbeat has expired, or one that nobody started within
  ``unheld_grace_s`` of its delivery (its worker died between taking and
  starting it), is put back at the head of its queue with kombu's own
  transactional restore, so of several reapers only one puts it back.

A worker that was only slow (SIGSTOP, an overloaded machine) and comes back
finishes its copy too: tasks are idempotent (the result is looked up first),
so the duplicate changes nothing. The same holds for a task a worker keeps
unstarted on purpose for longer than ``unheld_grace_s`` (a retry waiting
out its back-off after a lost Redis connection): it may run twice.
"""

from __future__ import annotations

import json
import logging
import threading
import time

import redis

from .config import settings
import contextlib

log = logging.getLogger(__name__)

PREFIX = "c4:bookgen"
UNACKED_KEY = "unacked"  # kombu's Redis transport defaults
UNACKED_INDEX_KEY = "unacked_index"


# This worker's incarnation ("node:pid:random"), set in the main process before the
# pool forks, so its pool processes inherit it: a restarted worker keeps its node
# name (and in a container often its pid) but is a new incarnation, and the tasks
# of the old one are orphans.
SELF: str | None = None


def alive_key(node: str) -> str:
    return f"{PREFIX}:alive:{node}"


def holder_key(task_id: str) -> str:
    return f"{PREFIX}:holder:{task_id}"


def task_started(client: redis.Redis, task_id: str, node: str) -> None:
    """Said by the pool process that starts a task."""
    client.set(holder_key(task_id), node, ex=24 * 3600)


def task_done(client: redis.Redis, task_id: str) -> None:
    client.delete(holder_key(task_id))


def orphans(client: redis.Redis, unheld_grace_s: float, now: float | None = None) -> list[tuple[bytes, str, str]]:
    """(delivery tag, task id, why) of every taken task whose worker is gone."""
    now = time.time() if now is None else now
    taken: dict[bytes, bytes] = client.hgetall(UNACKED_KEY)  # type: ignore[assignment]
    if not taken:
        return []
    tags = list(taken)
    scores: list[float | None] = client.zmscore(UNACKED_INDEX_KEY, tags)  # type: ignore[arg-type, assignment]
    delivered = dict(zip(tags, scores, strict=True))
    found = []
    for tag, raw in taken.items():
        try:
            task_id = json.loads(raw)[0]["headers"]["id"]
        except (ValueError, KeyError, IndexError, TypeError):
            continue  # not a Celery task message: not ours to judge
        holder: bytes | None = client.get(holder_key(task_id))  # type: ignore[assignment]
        at = delivered.get(tag)
        if holder is not None:
            if not client.exists(alive_key(holder.decode())):
                found.append((tag, task_id, f"its worker {holder.decode()} stopped beating"))
        elif at is not None and now - at > unheld_grace_s:
            found.append((tag, task_id, f"taken {now - at:.0f}s ago and never started"))
    return found


def restore(app, tag: bytes) -> None:
    """Put one taken message back at the head of its queue (kombu's own
    transaction: it watches ``unacked``, so a second reaper restores nothing).
    Producers LPUSH and consumers BRPOP, so the right end (``leftmost=False``)
    is the one taken next."""
    with app.connection_for_write() as conn:
        conn.default_channel.qos.restore_by_tag(tag, leftmost=False)


def reap(app, client: redis.Redis, unheld_grace_s: float) -> list[str]:
    """Restore every orphaned task; the ids of those put back."""
    back = []
    for tag, task_id, why in orphans(client, unheld_grace_s):
        if not client.hexists(UNACKED_KEY, tag):
            continue  # acknowledged or restored meanwhile
        restore(app, tag)
        client.delete(holder_key(task_id))
        log.warning(f"task {task_id} sent again: {why}", extra={"task_id": task_id, "why": why})
        back.append(task_id)
    return back


class Heartbeat:
    """The main process's thread: beat, and reap for the dead."""

    def __init__(self, app, node: str, redis_url: str | None = None):
        cfg = settings()
        self.app = app
        self.node = node
        self.every = cfg.heartbeat_s
        self.ttl = cfg.heartbeat_ttl_s
        self.grace = cfg.unheld_grace_s
        self.client = redis.Redis.from_url(redis_url or cfg.redis_url, socket_timeout=5, socket_connect_timeout=5)
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="bookgen-heartbeat", daemon=True)

    def start(self) -> Heartbeat:
        self.thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        with contextlib.suppress(redis.RedisError):
            self.client.delete(alive_key(self.node))

    def _run(self) -> None:
        in_a_row = 0  # beats that reached Redis since it was last away
        while not self._stop.is_set():
            try:
                self.client.set(alive_key(self.node), str(time.time()), px=int(self.ttl * 1000))
                in_a_row += 1
                # After Redis was away every heartbeat may have expired: reap only once the
                # others have had a beat's time to say they live.
                if in_a_row >= 2:
                    reap(self.app, self.client, self.grace)
            except Exception:  # noqa: BLE001 - Redis away for a moment: beat again next time
                in_a_row = 0
                log.warning("heartbeat failed", exc_info=True)
            self._stop.wait(self.every)
