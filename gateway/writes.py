"""Saving a changed game: the one path every write takes.

:meth:`Writer.commit` bumps the version, builds the state watchers get, and
saves with the store's compare-and-set on the version the change was built
on (:meth:`Store.save`), so concurrent requests from any number of gateways
give one winner and clear ``conflict`` errors.

Each commit is one operation with its own id, sent with the save: when the
reply of a save that landed is lost and redis-py sends it again, the store
answers "landed" and the commit succeeds with the stored state, instead of
refusing a write that is there (a create would leave an orphan, a join a seat
nobody holds).
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from connect4 import Position

from .document import Game
from .errors import GameError
from .model import public_state
from .settings import GatewaySettings
from .store import Store
import contextlib

# A claim on an opponent's turn lives this long unless its owner renews it
# (every third of it) while the services think: a crashed gateway's turn is
# taken over by another gateway's sweeper within about this time.
CLAIM_TTL_MS = 3000  # when a service is down, the sweeper tries the turn again after this


class Writer:
    def __init__(self, store: Store, settings: GatewaySettings, owner: str):
        self.store = store
        self.settings = settings
        self.owner = owner  # this process, for claims

    def view(self, doc: Game, you: str | None = None, pos: Position | None = None) -> dict[str, Any]:
        return public_state(doc, self.settings.public_url, you, pos)

    async def commit(self, doc: Game, expected: int, pos: Position | None = None, claim: bool = False,
                     carry: bool = False, seat: str | None = None) -> dict[str, Any]:
        """Save ``doc`` over version ``expected``, publish it; returns the public state.

        ``claim``: when an opponent program is to move next, this process claims
        that turn in the same atomic step (it is about to play it). ``carry``: a
        change that is not a move; whoever is playing the turn keeps playing it.
        A conflict of a player's request (``seat``) carries the game's latest state
        as that player sees it."""
        doc.version = expected + 1
        doc.updated = time.time()
        state = self.view(doc, None, pos)
        try:
            wrote = await self.store.save(doc, expected, {"type": "state", "state": state},
                                          pending=doc.program_to_move, active=not doc.is_over,
                                          claim_owner=self.owner if claim else "", claim_ttl_ms=CLAIM_TTL_MS,
                                          carry_claim=carry, op=secrets.token_hex(8))
        except GameError as exc:
            if exc.code == "conflict" and exc.state is None and seat is not None:  # a player's request
                with contextlib.suppress(GameError):
                    exc.state = self.view(await self.store.load(doc.id), seat)
            raise
        if not wrote:  # a retried save that had landed: answer with what is stored now
            stored = await self.store.load(doc.id)
            if stored.version != doc.version:
                return self.view(stored, None)
        return state
