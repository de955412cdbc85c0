"""One Redis read of a game for all the watchers that need its state at once.

A thousand WebSocket watchers of one game connecting together need the game's
state after their subscription; reading it once per watcher drew a pooled
connection each (43 of 300 got ``Too many connections``). :meth:`SharedReads.state`
joins a read already on its way, but only one that started after the caller's
subscription was confirmed (:meth:`SharedReads.mark`), so no watcher can miss
a change published between the read and its subscription.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

State = dict[str, Any]


class SharedReads:
    def __init__(self, read: Callable[[str], Awaitable[State]]):
        self._read = read
        self._counter = itertools.count(1)
        self._started = 0  # the number of the last read started
        self._inflight: dict[str, tuple[int, asyncio.Task[State]]] = {}

    def mark(self) -> int:
        """Call right after the subscription is confirmed; pass the result to :meth:`state`."""
        return self._started

    async def state(self, game_id: str, mark: int) -> State:
        """The game's state from a read that started after ``mark`` (the view is
        shared: do not change it)."""
        while True:
            got = self._inflight.get(game_id)
            if got is not None and got[1].done() and got[0] <= mark:
                # ended, its done-callback not run yet (awaiting it would not yield)
                del self._inflight[game_id]
                got = None
            if got is None:
                number = next(self._counter)
                self._started = number
                task = asyncio.ensure_future(self._read(game_id))
                self._inflight[game_id] = (number, task)
                task.add_done_callback(functools.partial(self._done, game_id, number))
                got = (number, task)
            number, task = got
            if number > mark:
                return await asyncio.shield(task)
            # a read from before the subscription: let it end (its callers see its
            # error), then read anew
            with contextlib.suppress(Exception):
                await asyncio.shield(task)

    def _done(self, game_id: str, number: int, _task: asyncio.Task[State]) -> None:
        got = self._inflight.get(game_id)
        if got is not None and got[0] == number:
            del self._inflight[game_id]
