"""The gateway's Redis pool on a real redis-server: never more connections than
its cap; a request that finds them all in use waits for the next release, in
line, and one that waits past the pool's timeout gets ConnectionError (503)."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from gateway.redis_pool import BoundedPool


def test_a_full_pool_hands_the_next_release_to_the_first_in_line(redis_server):
    async def go():
        pool = BoundedPool.from_url(redis_server.url, max_connections=2, timeout=30)
        held = [await pool.get_connection(), await pool.get_connection()]
        first = asyncio.ensure_future(pool.get_connection())
        second = asyncio.ensure_future(pool.get_connection())
        while len(pool._waiters) < 2:  # both wait in line
            await asyncio.sleep(0)
        await pool.release(held.pop())
        got = await first
        assert not second.done() and len(pool._in_use_connections) == 2
        await pool.release(got)
        await pool.release(await second)
        await pool.release(held.pop())
        assert len(pool._in_use_connections) == 0 and len(pool._available_connections) <= 2
        await pool.aclose()

    asyncio.run(go())


def test_a_wait_past_the_timeout_is_a_connection_error_and_frees_its_place(redis_server):
    async def go():
        pool = BoundedPool.from_url(redis_server.url, max_connections=1, timeout=0.2)
        held = await pool.get_connection()
        with pytest.raises(RedisConnectionError, match="No connection available"):
            await pool.get_connection()
        assert not pool._waiters
        await pool.release(held)
        again = await pool.get_connection()  # free again: taken without a wait
        await pool.release(again)
        await pool.aclose()

    asyncio.run(go())


def test_many_commands_at_once_share_the_capped_pool(redis_server):
    """200 commands at once on 4 connections: all answered, never a fifth connection."""
    async def go():
        pool = BoundedPool.from_url(redis_server.url, max_connections=4, timeout=30, decode_responses=True)
        r = aioredis.Redis.from_pool(pool)
        await r.set("c4:test:pool", "x")
        answers = await asyncio.gather(*(r.get("c4:test:pool") for _ in range(200)))
        assert answers == ["x"] * 200
        # the pool never drops a healthy connection: all it ever made are here
        assert len(pool._in_use_connections) == 0 and len(pool._available_connections) <= 4
        await r.delete("c4:test:pool")
        await r.aclose()

    asyncio.run(go())
