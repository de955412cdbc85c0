"""The hub (gateway/hub.py): one pub/sub connection per gateway process, against
a real redis-server, in this process."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from gateway.hub import Hub


def test_a_watcher_after_the_last_one_left_gets_live_changes(redis_server):
    """With no channel subscribed, redis-py health-checks the connection before a
    SUBSCRIBE: a PING and a read of its answer, while the hub's reader waits on the
    same connection. That second read failed ("readuntil() called while another
    coroutine is already waiting"; seen under load) and left the game's channel
    registered but never subscribed: every later watcher got no live change."""

    async def go():
        client = aioredis.Redis.from_url(redis_server.url, decode_responses=True, health_check_interval=2)
        hub = Hub(client, "c4:hub:test-keep")
        try:
            first = await hub.watch("c4:events:hub-a")
            await first.close()  # nobody watches any more
            await asyncio.sleep(0.3)  # the reader waits for a message on the hub's connection
            # Two seconds without a read make the health check due; set the
            # connection's clock rather than wait for that moment to fall in a read.
            hub.pubsub.connection.next_health_check = -1
            second = await hub.watch("c4:events:hub-b")
            await client.publish("c4:events:hub-b", "hello")
            got = await asyncio.wait_for(second.get(), 5)
            await second.close()
            third = await hub.watch("c4:events:hub-b")  # the channel is subscribed again, not left stale
            await client.publish("c4:events:hub-b", "again")
            return got, await asyncio.wait_for(third.get(), 5)
        finally:
            await hub.close()
            await client.aclose()

    assert asyncio.run(go()) == ("hello", "again")
