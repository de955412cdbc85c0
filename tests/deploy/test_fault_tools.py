"""The tools of the fault runs on real parts: the reply-dropping proxy in
front of a real redis-server (the command lands, its answer never comes),
and ``c4 bench faults`` refusing an unknown fault before it starts anything."""

from __future__ import annotations

import pytest
import redis

from c4.stack.fault_proxy import ReplyDropProxy


def test_the_proxy_forwards_then_drops_one_armed_reply(redis_url):
    port = int(redis_url.rsplit(":", 1)[1].split("/")[0])
    proxy = ReplyDropProxy(port, marker=b"landed")  # the key: the handshake holds SETINFO
    try:
        through = redis.Redis.from_url(proxy.url, socket_timeout=5)
        assert through.ping()
        proxy.arm(1)
        with pytest.raises(redis.exceptions.ConnectionError):
            redis.Redis.from_url(proxy.url, socket_timeout=5, retry_on_timeout=False).set("landed", "yes")
        assert proxy.dropped == 1
        assert redis.Redis.from_url(redis_url).get("landed") == b"yes"  # the write landed all the same
        assert through.set("next", "1") and through.get("next") == b"1"  # disarmed: answers come again
    finally:
        proxy.close()


def test_bench_faults_refuses_an_unknown_fault(capsys):
    from c4.main import main

    assert main(["bench", "faults", "--faults", "engine,nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown fault(s) nope" in err and "redis-stop" in err
