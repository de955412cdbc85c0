"""The shared game of a bridge listener, as Connect4-rs's control socket has
one game for every connection: two ``nc`` one-shots play two moves of one
game, and a watcher follows it at one fixed URL (``/tables/{name}``).

The table's record in Redis (:meth:`Store.table_get`) holds its current game's
id, the seat token sealed with the deployment's secret, and the table's
settings that ``new`` keeps (hints, guard, think time, opponent). Nothing is stored
before the first command that changes something: ``state`` of an empty table
answers Connect4-rs's fresh game without making one.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from . import model, sealing
from .document import Game
from .errors import GameError

if TYPE_CHECKING:
    from .games import Games
    from .settings import GatewaySettings
    from .store import Store

NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def table_name(settings: GatewaySettings) -> str:
    name = settings.bridge_table or f"bridge-{settings.bridge_port}"
    if not NAME.fullmatch(name):
        raise ValueError(f"C4_GATEWAY_BRIDGE_TABLE {name!r}: use 1-64 letters, digits, '_', '.', '-'")
    return name


def table_url(public_url: str, name: str) -> str:
    return f"{public_url.rstrip('/')}/tables/{name}"


async def deployment_secret(store: Store, settings: GatewaySettings) -> str:
    return settings.secret or await store.secret()


class Table:
    def __init__(self, games: Games, settings: GatewaySettings, name: str) -> None:
        self.games = games
        self.store = games.store
        self.settings = settings
        self.name = name
        self.url = table_url(settings.public_url, name)
        self._secret: str | None = None

    async def secret(self) -> str:
        if self._secret is None:
            self._secret = await deployment_secret(self.store, self.settings)
        return self._secret

    async def record(self) -> dict[str, str]:
        return await self.store.table_get(self.name)

    def hints(self, record: dict[str, str]) -> bool:
        return record.get("hints", "1" if self.settings.bridge_hints else "0") == "1"

    async def current(self, record: dict[str, str] | None = None) -> tuple[Game, str] | None:
        """The table's game and its seat token, or None (none yet, or expired)."""
        record = record if record is not None else await self.record()
        if not record.get("id"):
            return None
        try:
            doc = await self.store.load(record["id"])
        except GameError:
            return None
        return doc, sealing.unseal(record["sealed"], await self.secret(), record["id"])

    async def ensure(self, client: str) -> tuple[Game, str]:
        """The table's game, made now when it has none (calls at the same moment share one;
        the create counts against ``client``, the address of the connection that asked)."""
        record = await self.record()
        found = await self.current(record)
        if found:
            return found
        created = await self._create(record, engine_starts=False, client=client)
        gid, token = created["state"]["id"], created["token"]
        won = await self.store.table_adopt(self.name, gid, sealing.seal(token, await self.secret(), gid),
                                           record.get("id"))
        if won.get("id") != gid:  # another connection made the table's game first
            await self.store.drop(gid)
        found = await self.current()
        if found is None:
            raise GameError("conflict", "the table's game changed at the same moment; try again")
        return found

    async def new(self, engine_starts: bool, think_ms: int | None, opponent: str | None,
                  client: str) -> tuple[Game, str]:
        record = await self.record()
        old = await self.current(record)
        if think_ms is not None:
            record["think_ms"] = str(think_ms)
        if opponent is not None:
            record["opponent"] = opponent
        created = await self._create(record, engine_starts=engine_starts, client=client)
        gid, token = created["state"]["id"], created["token"]
        await self.store.table_set(self.name, id=gid, sealed=sealing.seal(token, await self.secret(), gid),
                                   think_ms=record.get("think_ms", "0"),
                                   opponent=record.get("opponent", self.settings.bridge_opponent))
        if old:  # watchers of the old game are pointed at this one
            await self.games.link_next(old[0].id, old[1], gid)
        return await self.store.load(gid), token

    async def set_hints(self, on: bool) -> None:
        await self.store.table_set(self.name, hints="1" if on else "0")
        found = await self.current()
        if found:
            await self.games.set_hints(found[0].id, found[1], on)

    def guarded(self, record: dict[str, str]) -> bool:
        return record.get("guarded") == "1"

    async def set_guarded(self, on: bool) -> None:
        """The gate on or off for the table's seat: its game now and the games ``new`` makes."""
        await self.store.table_set(self.name, guarded="1" if on else "0")
        found = await self.current()
        if found:
            await self.games.set_guarded(found[0].id, found[1], on)

    async def _create(self, record: dict[str, str], engine_starts: bool, client: str) -> dict[str, Any]:
        return await self.games.create(
            opponent=record.get("opponent") or self.settings.bridge_opponent, engine_starts=engine_starts,
            think_ms=int(record.get("think_ms") or 0), hints=self.hints(record), player="llm",
            allow_analysis=True, wait=False, client=client, guarded=self.guarded(record))


def human_of(doc: Game, token: str) -> str:
    return model.seat_of(doc, token) or "red"
