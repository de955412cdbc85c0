"""One Redis subscription per gateway process, shared by every local watcher.

A WebSocket watcher does not get its own Redis connection (a few hundred
watchers would empty the connection pool every request shares). The hub holds
one pub/sub connection, subscribes each game's channel once however many
watchers it has, and copies every message into each watcher's queue.

The hub's connection is read by its reader task alone. redis-py's pub/sub
runs a health check (a PING *and a read of its answer*) before a command
when nothing is subscribed; with the reader waiting on the same connection
that was a second reader ("readuntil() called while another coroutine is
already waiting"): the subscribe failed, and the channel stayed registered
without being subscribed, so every later watcher of that game on this
process got no live change. So the hub stays subscribed to a channel of its
own (``keep_channel``, named by the store) from its first watcher on, and a failed subscribe leaves
nothing behind.

A watcher's queue is bounded: a watcher too slow to keep up, and every watcher
after the hub lost its connection (messages may have been missed while Redis
was away), gets ``RESYNC`` instead of the missed messages and reloads the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import redis.asyncio as aioredis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

RESYNC = None  # put in a queue: messages were lost, reload the state
QUEUE_SIZE = 256
CONFIRM_TIMEOUT_S = 2.0


class Watch:
    """One watcher's subscription: ``await watch.get()`` gives the next message text, or RESYNC."""

    def __init__(self, hub: Hub, channel: str):
        self.hub = hub
        self.channel = channel
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE_SIZE)

    async def get(self) -> str | None:
        return await self.queue.get()

    def offer(self, item: str | None) -> None:
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:  # too slow: drop what is queued, the watcher reloads
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(RESYNC)

    async def close(self) -> None:
        await self.hub.leave(self)


class Hub:
    def __init__(self, redis: aioredis.Redis, keep_channel: str):
        self.redis = redis
        self.pubsub = redis.pubsub()
        self.watches: dict[str, set[Watch]] = {}
        self.confirmed: dict[str, asyncio.Event] = {}
        self.lock = asyncio.Lock()
        self.reader: asyncio.Task[None] | None = None
        self._hooked: object = None  # the connection our reconnect callback is registered on
        self.keep = keep_channel  # subscribed for good (nothing is published on it)

    async def watch(self, channel: str) -> Watch:
        """Subscribe (once per channel) and return when Redis has confirmed it, so a
        state read after this call cannot miss a change published later."""
        w = Watch(self, channel)
        event: asyncio.Event | None
        async with self.lock:
            fresh = channel not in self.watches
            self.watches.setdefault(channel, set()).add(w)
            if fresh:
                event = self.confirmed[channel] = asyncio.Event()
                try:
                    # The first subscribe also takes the keep channel, before the reader starts.
                    await self.pubsub.subscribe(channel, *(() if self.pubsub.subscribed else (self.keep,)))
                except BaseException:
                    self.watches[channel].discard(w)
                    if not self.watches[channel]:
                        del self.watches[channel]
                        self.confirmed.pop(channel, None)
                    raise
                self._hook()
                if self.reader is None or self.reader.done():
                    self.reader = asyncio.create_task(self._read())
            else:
                event = self.confirmed.get(channel)
        if event is not None:
            with contextlib.suppress(TimeoutError):  # Redis is slow or away: the watcher resyncs when it is back
                await asyncio.wait_for(event.wait(), CONFIRM_TIMEOUT_S)
        return w

    async def leave(self, w: Watch) -> None:
        async with self.lock:
            group = self.watches.get(w.channel)
            if group is None or w not in group:
                return
            group.discard(w)
            if group:
                return
            del self.watches[w.channel]
            self.confirmed.pop(w.channel, None)
            with contextlib.suppress(RedisError, OSError):  # the connection is gone; a reconnect subscribes
                await self.pubsub.unsubscribe(w.channel)   # only what is watched

    def _hook(self) -> None:
        conn = self.pubsub.connection
        if conn is not None and conn is not self._hooked:
            conn.register_connect_callback(self._reconnected)
            self._hooked = conn

    async def _reconnected(self, _conn: object) -> None:
        # redis-py subscribes the channels again on a new connection; what was
        # published meanwhile is lost, so every watcher reloads.
        for group in list(self.watches.values()):
            for w in group:
                w.offer(RESYNC)

    async def _read(self) -> None:
        delay = 0.05
        while True:
            try:
                msg = await self.pubsub.get_message(timeout=1.0)
                delay = 0.05
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away: keep trying, the watchers resync when it is back
                log.info("watch connection lost", extra={"error": repr(exc)})
                await self._reconnected(None)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)
                continue
            if not msg:
                continue
            kind, channel = msg.get("type"), msg.get("channel")
            if kind == "subscribe":
                event = self.confirmed.get(channel)
                if event is not None:
                    event.set()
            elif kind == "message":
                for w in list(self.watches.get(channel, ())):
                    w.offer(msg["data"])

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.reader
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()  # type: ignore[no-untyped-call]
