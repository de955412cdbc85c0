"""The heartbeat reaper on a real redis-server and kombu's real Redis
transport: a message taken (not acknowledged) by a consumer whose heartbeat
is gone goes back to its queue; one held by a living worker stays taken;
one taken and never started goes back after the grace time only."""

from __future__ import annotations

import redis

from books.bookgen import heartbeat
from books.bookgen.app import make_app


def take_one(app, queue: str):
    """Consume one message without acknowledging it: what a worker holding a task looks like."""
    conn = app.connection_for_read()
    got = []
    consumer = conn.Consumer(app.amqp.queues[queue], callbacks=[lambda body, msg: got.append(msg)], accept=["json"])
    consumer.qos(prefetch_count=1)
    with consumer:
        while not got:
            conn.drain_events(timeout=10)
    return conn, got[0]


def queue_length(client: redis.Redis, queue: str) -> int:
    return client.llen(queue)


def test_a_dead_holders_task_goes_back_and_a_living_ones_stays(redis_url):
    app = make_app(redis_url)
    client = redis.Redis.from_url(redis_url)
    queue = "c4.bookgen"
    result = app.send_task("bookgen.best", args=["7x6", [4, 4]], queue=queue)
    conn, _ = take_one(app, queue)
    try:
        assert queue_length(client, queue) == 0 and client.hlen(heartbeat.UNACKED_KEY) == 1

        # held by a worker that beats: nothing happens
        heartbeat.task_started(client, result.id, "w1@host:100")
        client.set(heartbeat.alive_key("w1@host:100"), "1", ex=30)
        assert heartbeat.reap(app, client, unheld_grace_s=60) == []
        assert client.hlen(heartbeat.UNACKED_KEY) == 1

        # its heartbeat gone: back in the queue, once, even with two reapers
        client.delete(heartbeat.alive_key("w1@host:100"))
        assert heartbeat.reap(app, client, unheld_grace_s=60) == [result.id]
        assert heartbeat.reap(app, client, unheld_grace_s=60) == []
        assert queue_length(client, queue) == 1 and client.hlen(heartbeat.UNACKED_KEY) == 0
        assert not client.exists(heartbeat.holder_key(result.id))
    finally:
        conn.release()


def test_a_task_taken_and_never_started_goes_back_after_the_grace_time(redis_url):
    app = make_app(redis_url)
    client = redis.Redis.from_url(redis_url)
    queue = "c4.bookgen"
    result = app.send_task("bookgen.best", args=["7x6", [4, 3]], queue=queue)
    conn, _ = take_one(app, queue)
    try:
        assert heartbeat.reap(app, client, unheld_grace_s=600) == []  # just taken: its worker may start it yet
        assert heartbeat.reap(app, client, unheld_grace_s=0) == [result.id]
        assert queue_length(client, queue) == 1
    finally:
        conn.release()
