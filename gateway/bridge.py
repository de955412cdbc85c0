"""The JSON socket bridge: Connect4-rs's control socket over TCP.

One JSON object per line in, one per line out, persistent connections. As in
Connect4-rs every connection plays the listener's one shared game, the
*table* (:mod:`gateway.bridge_table`): ``state`` shows it (and makes nothing),
``move`` plays in it, ``new`` starts the table's next game keeping its hints,
think time and opponent. ``attach`` (a game id and its token, or an invite)
seats this connection in a private game instead, as does ``new`` with
``opponent: "human"`` or ``table: false``. ``guard`` switches the gate on
this connection's seat (:mod:`gateway.guarding`; the table's ``new`` keeps it).

What a line means (strict JSON, field types, error texts) is
:mod:`gateway.bridge_protocol`; the reply's fields are Connect4-rs's
(:mod:`gateway.rs_format`) followed by this gateway's own (``game``,
``watch_url``, ``note``, ``token``, ...). No bad line closes the connection: a
line over :data:`MAX_LINE` is skipped up to its newline.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from connect4 import Position
from servicekit.logs import REQUEST_ID, new_request_id

from . import bridge_protocol as rs
from . import model, rs_format
from .auth import Auth, is_loopback
from .bridge_table import Table, table_name
from .document import COLORS, Game, Seat, geometry
from .errors import GameError
from .metrics import BRIDGE_COMMANDS
import contextlib

if TYPE_CHECKING:
    from .games import Games
    from .settings import GatewaySettings

log = logging.getLogger(__name__)

MAX_LINE = 1 << 20
LINE_TOO_LONG = {"error": f"bad json: line too long (over {MAX_LINE} bytes); it was skipped"}
NO_MISTAKE = "no engine mistake found - the opponent won on merit (or the engine was lost from the start)"
GUARD_NEEDS = "guard needs \"on\": true or false (a JSON boolean); the guard is unchanged"
ILLEGAL_CODES = ("full_column", "game_over", "not_your_turn", "illegal_column")


class LineTooLong(Exception):
    """A bridge line over MAX_LINE bytes; it has been read past and dropped."""


def _size(msg: dict[str, Any]) -> dict[str, int] | None:
    """``new``'s optional board: ``width``, ``height`` (1..16), ``k`` (2..max(width, height));
    the geometry itself checks the ranges (gateway.games.create), here only the types."""
    given: dict[str, int] = {key: msg[key] for key in ("width", "height", "k") if key in msg}
    if not given:
        return None
    bad = [key for key, value in given.items() if rs.as_u64(value) is None]
    if bad:
        raise BridgeError(f"{', '.join(bad)} must be a whole number: width and height 1..16, "
                          "line length k 2..max(width, height)")
    return {"width": 7, "height": 6, "k": 4, **given}


class BridgeError(Exception):
    """A reply ``{"error": message}`` (with ``state`` when given); the connection stays open."""

    def __init__(self, message: str, state: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.state = state


class Session:
    """One connection: the table's game, or the private game it attached to."""

    def __init__(self, bridge: Bridge, authorized: bool, client: str) -> None:
        self.bridge = bridge
        self.client = client  # the peer's address: its creates count against it (gateway/limits.py)
        self.games = bridge.games
        self.table: Table = bridge.table
        self.private: tuple[str, str] | None = None  # (game id, token) after attach / new with a person
        self.authorized = authorized

    # -- the game this connection plays ---------------------------------------
    async def game(self, create: bool) -> tuple[Game, str] | None:
        if self.private:
            return await self.games.store.load(self.private[0]), self.private[1]
        return await self.table.ensure(self.client) if create else await self.table.current()

    def reply(self, doc: Game, token: str) -> dict[str, Any]:
        human = model.seat_of(doc, token) or "red"
        out = rs_format.state(doc, human)
        out["game"] = doc.id
        if (doc.width, doc.height, doc.k) != (7, 6, 4):  # Connect4-rs knows 7x6 only: the size, beside its fields
            out["board"] = {"width": doc.width, "height": doc.height, "k": doc.k}
        if self.private:
            out["token"] = token
            out["watch_url"] = model.watch_url(self.games.settings.public_url, doc.id)
        else:
            out["watch_url"] = self.table.url
            out["game_url"] = model.watch_url(self.games.settings.public_url, doc.id)
        if doc.message and doc.result is None:
            out["note"] = doc.message  # the opponent's own words about its last move
        out["guarded"] = doc.seats[human].guarded  # the gate checks this seat's moves
        if doc.override:  # the gate replaced the last move of a person (gateway.guarding)
            out["override"] = doc.override
        return out

    async def reply_now(self) -> dict[str, Any]:
        found = await self.game(create=False)
        if found is None:
            record = await self.table.record()
            out = rs_format.empty_state(self.table.hints(record))
            out["watch_url"] = self.table.url
            out["guarded"] = self.table.guarded(record)
            return out
        return self.reply(*found)

    async def wait_engine(self, doc: Game) -> Game:
        """Play (or wait for) the engine's turn, so the reply shows its answer."""
        doc = await self.games.store.load(doc.id)
        if doc.program_to_move:
            doc = await self.games.run_opponent(doc)
        return doc

    # -- commands ----------------------------------------------------------------
    async def cmd_state(self, msg: dict[str, Any]) -> dict[str, Any]:
        return await self.reply_now()

    async def cmd_move(self, msg: dict[str, Any]) -> dict[str, Any]:
        found = await self.game(create=False)
        width = found[0].width if found else 7
        col = rs.column(msg, width)
        if col is None:
            raise BridgeError(f"col must be 1..{width}")
        doc, token = found if found else await self.table.ensure(self.client)
        try:
            doc, _seat, _state = await self.games.move_doc(doc.id, token, col, wait=True)
        except GameError as exc:
            if exc.code not in ILLEGAL_CODES:
                raise
            state = self.reply(await self.games.store.load(doc.id), token)
            raise BridgeError(rs.illegal_move(state["status"]), state) from None
        return self.reply(doc, token)

    async def cmd_new(self, msg: dict[str, Any]) -> dict[str, Any]:
        engine_starts = rs.as_bool(msg, "engine_starts") or False
        think_ms = msg.get("think_ms")
        if think_ms is not None and (rs.as_u64(think_ms) is None or not (think_ms == 0 or 50 <= think_ms <= 60000)):
            raise BridgeError("think_ms must be 0 (the opponent's own time) or 50..60000 milliseconds")
        opponent = msg.get("opponent")
        if opponent is not None:
            if not isinstance(opponent, str):
                raise BridgeError("opponent must be a string such as \"engine:1000\" or \"human\"")
            await self.games._check_spec(opponent.strip())
        size = _size(msg)
        if opponent == "human":
            return await self._new_private(engine_starts, think_ms or 0, size=size)
        # a game of this connection's own, not the table's (the table plays 7x6, as Connect4-rs)
        if self.private or msg.get("table") is False or size is not None:
            return await self._new_private(engine_starts, think_ms or 0, opponent, size)
        doc, token = await self.table.new(engine_starts, think_ms, opponent, self.client)
        return self.reply(await self.wait_engine(doc), token)

    async def _new_private(self, engine_starts: bool, think_ms: int, opponent: str | None = "human",
                           size: dict[str, int] | None = None) -> dict[str, Any]:
        board = size or {"width": 7, "height": 6, "k": 4}
        created = await self.games.create(
            width=board["width"], height=board["height"], k=board["k"],
            opponent=opponent or self.games.settings.bridge_opponent, engine_starts=engine_starts,
            think_ms=think_ms, player="llm", allow_analysis=True, wait=False, client=self.client)
        if self.private:
            await self.games.link_next(self.private[0], self.private[1], created["state"]["id"])
        self.private = (created["state"]["id"], created["token"])
        doc = await self.wait_engine(await self.games.store.load(self.private[0]))
        out = self.reply(doc, created["token"])
        if created.get("invite"):  # the other seat joins with this invite
            out.update(invite=created["invite"], invite_url=created["invite_url"])
        return out

    async def cmd_hints(self, msg: dict[str, Any]) -> dict[str, Any]:
        on = rs.as_bool(msg, "on")
        if on is not None:  # anything else leaves the hints as they are, as in Connect4-rs
            if self.private:
                await self.games.set_hints(self.private[0], self.private[1], on)
            else:
                await self.table.set_hints(on)
        return await self.reply_now()

    async def cmd_guard(self, msg: dict[str, Any]) -> dict[str, Any]:
        """The gate on or off for this connection's seat (the table's: kept by ``new``)."""
        on = rs.as_bool(msg, "on")
        if on is None:
            raise BridgeError(GUARD_NEEDS)
        if self.private:
            await self.games.set_guarded(self.private[0], self.private[1], on)
        else:
            await self.table.set_guarded(on)
        return await self.reply_now()

    async def cmd_replay(self, msg: dict[str, Any]) -> dict[str, Any]:
        found = await self.game(create=False)
        width = found[0].width if found else 7
        cols = rs.replay_moves(msg, width)
        if cols is None:
            raise BridgeError(rs.REPLAY_NEEDS if width == 7 else f"replay needs moves: array of columns 1..{width}")
        engine_starts = rs.as_bool(msg, "engine_starts") or False
        template = found[0] if found else None
        partial = self._partial(template, cols, engine_starts)
        if partial is not None:
            raise BridgeError(*partial)
        doc, token = found if found else await self.table.ensure(self.client)
        moves: list[int | str] = list(cols)
        await self.games.replay(doc.id, token, moves, engine_starts, wait=True)
        doc = await self.wait_engine(doc)
        return self.reply(doc, token)

    def _partial(self, template: Game | None, cols: list[int],
                 engine_starts: bool) -> tuple[str, dict[str, Any]] | None:
        """Connect4-rs's replay error and the position it reached, or None when every move is legal."""
        g = template.geometry if template else geometry(7, 6, 4)
        pos = Position(g)
        for i, c in enumerate(cols):
            if pos.is_over or not pos.can_play(c - 1):
                human = "yellow" if engine_starts else "red"
                hints = template.hints_on if template else self.table.hints({})
                doc = Game(id="", width=g.width, height=g.height, k=g.k, moves=list(pos.moves),
                           seats={c: Seat("llm", hints=hints) if c == human else Seat("opponent")
                                  for c in ("red", "yellow")})
                doc.settle(pos)
                return f"illegal replay move {i + 1} (col {c})", rs_format.state(doc, human)
            pos.play(c - 1)
        return None

    async def cmd_attach(self, msg: dict[str, Any]) -> dict[str, Any]:
        game_id, token, invite = msg.get("game"), msg.get("token"), msg.get("invite")
        if isinstance(game_id, str) and isinstance(invite, str) and token is None:
            token = (await self.games.join(game_id, invite))["token"]  # take the invited seat
        if not isinstance(game_id, str) or not isinstance(token, str):
            raise BridgeError("attach needs \"game\" and \"token\" (or \"invite\") strings")
        doc = await self.games.store.load(game_id)
        if model.seat_of(doc, token) is None:
            raise BridgeError("bad token: it holds no seat in this game")
        self.private = (game_id, token)
        return self.reply(doc, token)

    async def cmd_learn(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Connect4-rs's learn: the solver traces the engine's moves of this game
        (finished or not) and books each one that threw a win or a draw away."""
        solver = msg.get("solver")
        if solver is not None and not isinstance(solver, str):
            raise BridgeError("solver must be a string (a solver command)")
        found = await self.game(create=False)
        lines = []
        if solver:
            lines.append(f"solver {solver[:80]!r} not used: this gateway learns with its bookgen workers' exact "
                         "solver and runs no command named on the socket")
        if found is None or not found[0].moves:
            return {"report": "\n".join(lines + [NO_MISTAKE])}
        doc, token = found
        if model.seat_of(doc, token) is None:
            raise BridgeError("bad token: it holds no seat in this game")
        report = await learn_report(self.games, doc)
        return {"report": "\n".join(lines + [report_text(report)]), "learned": report}

    async def cmd_auth(self, msg: dict[str, Any]) -> dict[str, Any]:
        token = msg.get("token")
        if not isinstance(token, str) or not self.bridge.auth.valid(token):
            raise BridgeError("unauthorized: that token is not one of this gateway's (C4_GATEWAY_AUTH_TOKENS_SHA256)")
        self.authorized = True
        return {"ok": True, "message": "authorized"}


COMMANDS: dict[str, Callable[[Session, dict[str, Any]], Awaitable[dict[str, Any]]]] = {
    "state": Session.cmd_state,
    "move": Session.cmd_move,
    "new": Session.cmd_new,
    "hints": Session.cmd_hints,
    "guard": Session.cmd_guard,
    "replay": Session.cmd_replay,
    "attach": Session.cmd_attach,
    "learn": Session.cmd_learn,
    "auth": Session.cmd_auth,
}


async def learn_report(games: Games, doc: Game) -> dict[str, Any]:
    programs = [c for c in COLORS if doc.seats[c].kind == "opponent"]
    engine = {"red": "first", "yellow": "second"}[programs[0]] if len(programs) == 1 else "auto"
    size = f"{doc.width}x{doc.height}" + ("" if doc.k == 4 else f"k{doc.k}")
    moves = "".join(str(c + 1) for c in doc.moves) if doc.width <= 9 else [c + 1 for c in doc.moves]
    return await games.learner.learn(moves, size, engine)


def _letter(col: object) -> str:
    return chr(ord("a") + col - 1) if isinstance(col, int) and 1 <= col <= 26 else str(col)


def report_text(report: dict[str, Any]) -> str:
    """Connect4-rs's learn report: one line per ply where the engine threw a result away."""
    lines = []
    for v in report.get("threw") or ():
        head = f"ply {v['ply']}: engine threw the {v['threw']}"
        if v.get("booked") is False and v.get("known"):
            lines.append(head + ", but the book already covers it")
        else:
            lines.append(head + f" (played {_letter(v['played'])}, only {_letter(v['best'])} keeps it)"
                         + (" - booked" if v.get("booked") else ""))
    return "\n".join(lines) or NO_MISTAKE


def _error_text(exc: GameError) -> str:
    if exc.code == "unknown_game":
        return f"unknown game: {exc.message}"
    if exc.code == "bad_token":
        return f"bad token: {exc.message}"
    if exc.code == "service_unavailable":
        return f"service unavailable: {exc.message}"
    if exc.code in ("learning_unavailable",):
        return exc.message
    return f"{exc.code.replace('_', ' ')}: {exc.message}"


class Bridge:
    def __init__(self, games: Games, settings: GatewaySettings) -> None:
        self.games = games
        self.settings = settings
        self.table = Table(games, settings, table_name(settings))
        self.auth = Auth(settings)
        self.server: asyncio.base_events.Server | None = None
        self.connections: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._serve, self.settings.bridge_host, self.settings.bridge_port,
                                                 limit=MAX_LINE, reuse_port=self.settings.workers > 1)
        if not self.auth.enabled and not is_loopback(self.settings.bridge_host):
            log.warning("the bridge listens beyond loopback without authentication; set "
                        "C4_GATEWAY_AUTH_TOKENS_SHA256 to require a token", extra={"host": self.settings.bridge_host})
        log.info("bridge listening", extra={"address": f"{self.settings.bridge_host}:{self.settings.bridge_port}",
                                            "table": self.table.name, "watch_url": self.table.url})

    async def stop(self) -> None:
        if self.server:
            self.server.close()
            for t in list(self.connections):
                t.cancel()
            with contextlib.suppress(TimeoutError, Exception):
                await asyncio.wait_for(self.server.wait_closed(), 2)

    async def handle_line(self, session: Session, line: bytes) -> dict[str, Any]:
        REQUEST_ID.set(new_request_id())  # one id a command, in the logs and the gRPC metadata
        try:
            msg = rs.parse_line(line)
        except rs.BadJson as exc:
            BRIDGE_COMMANDS.labels("?", "bad_json").inc()
            return {"error": str(exc)}
        cmd = msg.get("cmd") if isinstance(msg, dict) else None
        handler = COMMANDS.get(cmd) if isinstance(cmd, str) else None
        if handler is None:
            BRIDGE_COMMANDS.labels("?", "unknown").inc()
            return {"error": rs.UNKNOWN_CMD}
        if not session.authorized and cmd != "auth":
            BRIDGE_COMMANDS.labels(cmd, "unauthorized").inc()
            return {"error": "unauthorized: this bridge needs {\"cmd\":\"auth\",\"token\":\"...\"} first "
                             "(connections from beyond loopback)"}
        try:
            out = await handler(session, msg)
            BRIDGE_COMMANDS.labels(cmd, "ok").inc()
            return out
        except BridgeError as exc:
            BRIDGE_COMMANDS.labels(cmd, "error").inc()
            return {"error": exc.message, **({"state": exc.state} if exc.state is not None else {})}
        except GameError as exc:
            BRIDGE_COMMANDS.labels(cmd, exc.code).inc()
            failed: dict[str, Any] = {"error": _error_text(exc)}
            if exc.retry_after_s is not None:  # rate_limited, busy: when to try again
                failed["retry_after_s"] = round(exc.retry_after_s, 1)
            # An attach that failed is about another game: the connection's own state would mislead.
            if exc.code != "unknown_game" and cmd != "attach":
                with contextlib.suppress(GameError):
                    failed["state"] = await session.reply_now()
            return failed

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None  # a connection is served in a task of its own
        self.connections.add(task)
        peer = writer.get_extra_info("peername")
        host = str(peer[0]) if peer else None
        session = Session(self, authorized=not self.auth.required_for(host), client=host or "?")
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
            with contextlib.suppress(Exception):
                writer.close()


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
