"""bookgen_queue_length counts what Celery really put in Redis: tasks sent with
the bookgen app's own client to a real redis-server, no worker running, then
the exporter's /metrics over HTTP."""

from __future__ import annotations

import urllib.request

import pytest

from c4.stack.plan import free_port
from c4.stack.queue_metrics import QueueCollector, bookgen_queues, serve


def scrape(port: int) -> dict[str, float]:
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


def test_queue_length_counts_sent_tasks(redis_url):
    bookgen = pytest.importorskip("books.bookgen.app")
    app = bookgen.make_app(redis_url)
    queue, learn = bookgen_queues()
    port = free_port()
    server, thread = serve(redis_url, port)
    try:
        before = scrape(port)
        assert before[f'bookgen_queue_length{{queue="{queue}"}}'] == 0
        assert before["bookgen_queue_up"] == 1
        for i in range(3):
            app.send_task("bookgen.solve", args=["7x6", [4, 4, i + 1]], queue=queue)
        app.send_task("bookgen.learn", args=["7x6", [4]], queue=learn)
        app.send_task("bookgen.solve", args=["7x6", [1]], queue=queue, priority=5)
        after = scrape(port)
        assert after[f'bookgen_queue_length{{queue="{queue}"}}'] == 4
        assert after[f'bookgen_queue_length{{queue="{learn}"}}'] == 1
        assert after["bookgen_tasks_unacked"] == 0
    finally:
        server.shutdown()
        app.close()


def test_redis_down_is_reported_not_raised():
    dead = f"redis://127.0.0.1:{free_port()}/0"
    families = {f.name: f for f in QueueCollector(dead, ["q"]).collect()}
    assert [s.value for s in families["bookgen_queue_up"].samples] == [0]
    assert "bookgen_queue_length" not in families
