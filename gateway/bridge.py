"""The JSON socket bridge: Connect4-rs's control-socket protocol over TCP.

One JSON object per line in, one per line out, persistent connections. Each
connection plays one game (made at its first command, or taken over with
``attach``); the game lives in Redis like any other, so it can be watched in
the browser at the ``watch_url`` every reply carries.

Commands are looked up in :data:`COMMANDS` (name -> coroutine); a new action
(e.g. ``learn``) is one more entry there.

Where Connect4-rs (``src/server.rs``, ``src/game.rs``) is lenient, so are we:
a missing or non-boolean ``engine_starts`` is false, ``hints`` without a
boolean ``on`` changes nothing and answers the state; an empty ``message`` is
its text for the status ("Your move", "You win!", ...), and after a finished
game ``to_move`` names the side that made the last move (the resigner after a
resignation). No bad line closes the connection: a line over :data:`MAX_LINE`
is skipped up to its newline, and JSON nested too deeply is bad json.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, cast

from connect4 import IllegalMove, InvalidPosition, parse_column
from servicekit.logs import REQUEST_ID, new_request_id

from . import model
from .rs_state import rs_state
from .document import Game
from .errors import GameError
from .games import Games
from .settings import GatewaySettings
from .metrics import BRIDGE_COMMANDS

log = logging.getLogger(__name__)

UNKNOWN_CMD = "unknown cmd, use state | move | new | hints | replay"
MAX_LINE = 1 << 20
LINE_TOO_LONG = {"error": f"bad json: line too long (over {MAX_LINE} bytes); it was skipped"}

def rs_bool(msg: dict[str, Any], key: str) -> bool:
    """Connect4-rs reads a flag with ``as_bool().unwrap_or(false)``: only true is true."""
    return msg.get(key) is True


class LineTooLong(Exception):
    """A bridge line over MAX_LINE bytes; it has been read past and dropped."""


class BridgeError(Exception):
    """A reply ``{"error": message, "state": ...}``; the connection stays open."""

    def __init__(self, message: str, with_state: bool = False):
        super().__init__(message)
        self.message = message
        self.with_state = with_state


class Session:
    """One connection's game: its id, the player token and the seat it plays."""

    def __init__(self, bridge: "Bridge"):
        self.bridge = bridge
        self.games = bridge.games
        self.game_id: str | None = None
        self.token: str | None = None
        self.human = "red"
        self.invite: dict[str, Any] | None = None  # the open seat's invite of a game made with opponent "human"

    @property
    def gid(self) -> str:
        """The connection's game id (commands make one with ensure_game first)."""
        if self.game_id is None:
            raise BridgeError("no game yet: send {\"cmd\":\"new\"}")
        return self.game_id

    async def reply(self, doc: Game | None = None) -> dict[str, Any]:
        if doc is None:
            doc = await self.games.store.load(self.gid)
        return rs_state(doc, self.human, self.games.settings.public_url, self.token)

    async def ensure_game(self) -> None:
        if self.game_id is None:
            await self.new_game(engine_starts=False)

    async def new_game(self, engine_starts: bool, opponent: str | None = None, think_ms: int = 0) -> None:
        created = await self.games.create(
            opponent=opponent or self.games.settings.bridge_opponent, engine_starts=engine_starts,
            think_ms=think_ms, player="llm", allow_analysis=True, wait=False)
        if self.game_id and self.token:  # watchers of the old game are pointed at this one
            await self.games.link_next(self.game_id, self.token, created["state"]["id"])
        self.game_id = created["state"]["id"]
        self.token = created["token"]
        self.human = created["seat"]
        self.invite = {"invite": created["invite"], "invite_url": created["invite_url"]} if created.get("invite") else None

    async def wait_engine(self) -> Game:
        """Play (or wait for) the engine's turn, so the reply shows its answer."""
        doc = await self.games.store.load(self.gid)
        if doc.program_to_move:
            doc = await self.games.run_opponent(doc)
        return doc

    # -- commands ----------------------------------------------------------------
    async def cmd_state(self, msg: dict[str, Any]) -> dict[str, Any]:
        await self.ensure_game()
        return await self.reply()

    async def cmd_new(self, msg: dict[str, Any]) -> dict[str, Any]:
        engine_starts = rs_bool(msg, "engine_starts")
        think_ms = msg.get("think_ms", 0)
        if not isinstance(think_ms, int) or isinstance(think_ms, bool):
            raise BridgeError("bad json: think_ms must be a number")
        opponent = msg.get("opponent")
        if opponent is not None and not isinstance(opponent, str):
            raise BridgeError("bad json: opponent must be a string")
        await self.new_game(engine_starts, opponent, think_ms)
        out = await self.reply(await self.wait_engine())
        if self.invite:  # opponent "human": the other seat joins with this invite
            out.update(self.invite)
        return out

    async def cmd_move(self, msg: dict[str, Any]) -> dict[str, Any]:
        await self.ensure_game()
        doc = await self.games.store.load(self.gid)
        width = doc.width
        col = msg.get("col")
        try:
            if isinstance(col, bool) or not isinstance(col, (int, str)):
                raise InvalidPosition("not a column")
            c = parse_column(col, doc.geometry)
        except (IllegalMove, InvalidPosition):
            raise BridgeError(f"col must be 1..{width}") from None
        doc, _seat, _state = await self.games.move_doc(self.gid, self.token, c + 1, wait=True)
        return await self.reply(doc)

    async def cmd_hints(self, msg: dict[str, Any]) -> dict[str, Any]:
        await self.ensure_game()
        on = msg.get("on")
        if isinstance(on, bool):  # anything else leaves the hints as they are, as in Connect4-rs
            await self.games.set_hints(self.gid, self.token, on)
        return await self.reply()

    async def cmd_replay(self, msg: dict[str, Any]) -> dict[str, Any]:
        moves = msg.get("moves")
        if not isinstance(moves, (list, str)):
            raise BridgeError("bad json: moves must be a list of columns")
        engine_starts = rs_bool(msg, "engine_starts")
        await self.ensure_game()
        await self.games.replay(self.gid, self.token, moves, engine_starts, wait=True)
        self.human = "yellow" if engine_starts else "red"
        return await self.reply()

    async def cmd_attach(self, msg: dict[str, Any]) -> dict[str, Any]:
        game_id, token, invite = msg.get("game"), msg.get("token"), msg.get("invite")
        if isinstance(game_id, str) and isinstance(invite, str) and token is None:
            token = (await self.games.join(game_id, invite))["token"]  # take the invited seat
        if not isinstance(game_id, str) or not isinstance(token, str):
            raise BridgeError("bad json: attach needs \"game\" and \"token\" (or \"invite\") strings")
        doc = await self.games.store.load(game_id)
        seat = model.seat_of(doc, token)
        if seat is None:
            raise BridgeError("bad token: it holds no seat in this game")
        self.game_id, self.token, self.human = game_id, token, seat
        return await self.reply(doc)

    async def cmd_learn(self, msg: dict[str, Any]) -> dict[str, Any]:
        """The connection's finished game to the bookgen workers: the report and the state."""
        await self.ensure_game()
        out = await self.games.learn(self.gid, self.token)
        reply = await self.reply()
        reply["report"] = out["report"]
        return reply


COMMANDS: dict[str, Callable[[Session, dict[str, Any]], Awaitable[dict[str, Any]]]] = {
    "state": Session.cmd_state,
    "move": Session.cmd_move,
    "new": Session.cmd_new,
    "hints": Session.cmd_hints,
    "replay": Session.cmd_replay,
    "attach": Session.cmd_attach,
    "learn": Session.cmd_learn,
}


def _bridge_error(exc: GameError) -> str:
    if exc.code in ("full_column", "game_over", "not_your_turn", "illegal_column"):
        return f"illegal move ({exc.message})"
    if exc.code == "unknown_game":
        return f"unknown game: {exc.message}"
    if exc.code == "bad_token":
        return f"bad token: {exc.message}"
    if exc.code == "service_unavailable":
        return f"service unavailable: {exc.message}"
    if exc.code in ("learning_unavailable", "game_not_over"):
        return exc.message
    return f"{exc.code.replace('_', ' ')}: {exc.message}"


class Bridge:
    def __init__(self, games: Games, settings: GatewaySettings):
        self.games = games
        self.settings = settings
        self.server: asyncio.base_events.Server | None = None
        self.connections: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._serve, self.settings.bridge_host, self.settings.bridge_port,
                                                 limit=MAX_LINE, reuse_port=self.settings.workers > 1)
        log.info("bridge listening", extra={"address": f"{self.settings.bridge_host}:{self.settings.bridge_port}"})

    async def stop(self) -> None:
        if self.server:
            self.server.close()
            for t in list(self.connections):
                t.cancel()
            try:
                await asyncio.wait_for(self.server.wait_closed(), 2)
            except (asyncio.TimeoutError, Exception):
                pass

    async def handle_line(self, session: Session, line: bytes) -> dict[str, Any]:
        REQUEST_ID.set(new_request_id())  # one id a command, in the logs and the gRPC metadata
        try:
            msg = json.loads(line)
        except ValueError as exc:
            BRIDGE_COMMANDS.labels("?", "bad_json").inc()
            return {"error": f"bad json: {exc}"}
        except RecursionError:  # e.g. 100000 "[": deeper than Python's parser goes
            BRIDGE_COMMANDS.labels("?", "bad_json").inc()
            return {"error": "bad json: nested too deeply"}
        if not isinstance(msg, dict):
            BRIDGE_COMMANDS.labels("?", "bad_json").inc()
            return {"error": "bad json: expected an object like {\"cmd\":\"state\"}"}
        cmd = msg.get("cmd")
        handler = COMMANDS.get(cmd) if isinstance(cmd, str) else None
        if handler is None:
            BRIDGE_COMMANDS.labels("?", "unknown").inc()
            return {"error": UNKNOWN_CMD}
        try:
            answer = await handler(session, msg)
            BRIDGE_COMMANDS.labels(cmd, "ok").inc()
            return answer
        except BridgeError as exc:
            BRIDGE_COMMANDS.labels(cmd, "error").inc()
            return {"error": exc.message}
        except GameError as exc:
            BRIDGE_COMMANDS.labels(cmd, exc.code).inc()
            out: dict[str, Any] = {"error": _bridge_error(exc)}
            # An attach that failed is about another game: the connection's own state would mislead.
            if session.game_id and exc.code != "unknown_game" and cmd != "attach":
                try:
                    out["state"] = await session.reply()
                except GameError:
                    pass
            return out

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = cast("asyncio.Task[None]", asyncio.current_task())
        self.connections.add(task)
        session = Session(self)
        try:
            while True:
                try:
                    line = await read_line(reader)
                except LineTooLong:
                    BRIDGE_COMMANDS.labels("?", "bad_json").inc()
                    writer.write(json.dumps(LINE_TOO_LONG, separators=(",", ":")).encode() + b"\n")
                    await writer.drain()
                    continue
                if not line:
                    break
                if not line.strip():
                    continue
                try:
                    reply = await self.handle_line(session, line)
                except Exception as exc:  # Redis down, ...: answer and keep the connection
                    log.warning("bridge command failed", extra={"error": repr(exc)})
                    reply = {"error": f"service unavailable: {exc}"}
                writer.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self.connections.discard(task)
            try:
                writer.close()
            except Exception:
                pass


async def read_line(reader: asyncio.StreamReader) -> bytes:
    """The next line with its newline; the last one without it at end of input;
    b"" at end of input. A line over the reader's limit (MAX_LINE) is read past
    up to and including its newline and raises LineTooLong, so the connection
    goes on with the next line."""
    try:
        return await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:  # end of input
        return exc.partial
    except asyncio.LimitOverrunError as exc:
        # readuntil() leaves the buffer as it was: drop what it looked at (up to the
        # newline when it saw one past the limit) and look again, until the rest
        # of the line fits under the limit.
        while True:
            try:
                await reader.readexactly(exc.consumed)
                await reader.readuntil(b"\n")
                raise LineTooLong() from None
            except asyncio.IncompleteReadError:  # the client went away mid-line
                return b""
            except asyncio.LimitOverrunError as more:
                exc = more
