"""The Redis connection pool the gateway shares: at most ``max_connections`` at
once, and a request that finds them all in use waits at most ``timeout`` seconds
for one (then ``ConnectionError("No connection available.")``, which the
gateway answers with 503 and Retry-After).

redis-py's own ``BlockingConnectionPool`` does the same, but every checkout and
every release goes through an ``asyncio.Condition`` and a timeout context, even
when a connection is free: about 25 us of CPU a command on this machine, some
5 % of a move's cost in the gateway (docs/results/gateway-pool.md). This pool
takes the plain pool's path while a connection is free or may still be made,
and only a request that finds none waits, in line, for the next release.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Any

from redis.asyncio.connection import AbstractConnection, ConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import MaxConnectionsError


class BoundedPool(ConnectionPool):
    def __init__(self, *, timeout: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.timeout = timeout
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()

    async def _checkout(self) -> AbstractConnection:
        connection: AbstractConnection = await super().get_connection()  # type: ignore[no-untyped-call]
        return connection

    def _free(self) -> bool:
        return bool(self._available_connections) or len(self._in_use_connections) < self.max_connections

    async def get_connection(self, command_name: Any = None, *keys: Any, **options: Any) -> AbstractConnection:
        if self._free() and not self._waiters:  # the common case: no wait, no lock held across a yield
            try:
                return await self._checkout()
            except MaxConnectionsError:
                pass  # taken between the check and the checkout: wait in line
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise RedisConnectionError("No connection available.")
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append(waiter)
            try:
                await asyncio.wait_for(waiter, left)
            except TimeoutError:
                self._wake()  # had a release just woken this one, the next in line gets it
                raise RedisConnectionError("No connection available.") from None
            except asyncio.CancelledError:
                self._wake()  # this request is gone: its turn passes on
                raise
            finally:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
            try:
                return await self._checkout()
            except MaxConnectionsError:
                continue  # another task took it first: wait for the next one
            finally:
                self._wake()  # a connection may still be free for the next in line

    async def release(self, connection: AbstractConnection) -> None:
        await super().release(connection)
        self._wake()

    def _wake(self) -> None:
        """Let the first waiter try, when a connection is free."""
        if not self._free():
            return
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
