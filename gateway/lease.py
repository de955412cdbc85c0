"""The turn lease: who plays an opponent program's turn, exactly once.

The turn at version v belongs to whoever first claims ``(game, v)`` in Redis
(:meth:`Store.claim`, a key with a TTL of :data:`CLAIM_TTL_MS`): normally the
request that made the move (it claims in the same save), else the sweeper of
any gateway. The owner renews the claim every third of its TTL while the
services think (:meth:`TurnLease.hold`), so a crashed gateway's turn is taken
over about three seconds later; at each renewal it checks the turn is still
the game's, and stops the search when it is not (an undo or replay meanwhile,
another gateway holding it, the game gone).

Inside one process the claim is shared by every coroutine, so :attr:`playing`
keeps two local coroutines (a waiting move and the sweeper's task, or a stale
task after an undo) off the same turn.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from .document import Game
from .errors import GameError
from .store import Store
from .writes import CLAIM_TTL_MS

log = logging.getLogger(__name__)


class TurnLease:
    def __init__(self, store: Store, owner: str):
        self.store = store
        self.owner = owner
        # game id -> the version whose turn a coroutine of this process is playing
        self.playing: dict[str, int] = {}

    def busy(self, game_id: str, version: int, any_version: bool = False) -> bool:
        """A coroutine of this process plays this turn (or, ``any_version``, one of this game)."""
        return self.playing.get(game_id) == version or (any_version and game_id in self.playing)

    async def claim(self, game_id: str, version: int) -> bool:
        return await self.store.claim(game_id, version, self.owner, CLAIM_TTL_MS)

    async def release(self, game_id: str, version: int) -> None:
        await self.store.release(game_id, version, self.owner)

    def enter(self, game_id: str, version: int) -> bool:
        """Mark the turn as played here; False when another local coroutine took it first."""
        if self.playing.get(game_id) == version:
            return False
        self.playing[game_id] = version
        return True

    def leave(self, game_id: str, version: int) -> None:
        if self.playing.get(game_id) == version:
            del self.playing[game_id]

    async def hold(self, doc: Game, think: asyncio.Future[Any]) -> None:
        """Renew the claim on ``doc``'s turn while ``think`` searches it; stop ``think``
        when that turn is no longer the game's: an undo or replay meanwhile (then a
        new move too, whose turn this process may hold as well), another gateway
        holding it, or the game gone. Its answer would be thrown away, and the
        engine would go on searching for nobody, delaying the next turn."""
        game_id, version = doc.id, doc.version
        while True:
            await asyncio.sleep(CLAIM_TTL_MS / 3000)
            try:
                live = await self.store.renew(game_id, version, self.owner, CLAIM_TTL_MS)
                if live:
                    latest = await self.store.load(game_id)
                    live = latest.same_turn(doc) and not latest.is_over
            except GameError:
                live = False  # expired
            except Exception as exc:  # Redis away for a moment: try again next time
                log.warning("claim renewal failed", extra={"game": game_id, "error": repr(exc)})
                continue
            if not live:
                log.info("opponent search stopped: the game changed", extra={"game": game_id, "version": version})
                think.cancel()
                return
