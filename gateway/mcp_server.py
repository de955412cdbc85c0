"""The MCP endpoint (``/mcp``): Connect Four tools over the official SDK,
streamable HTTP, stateless (every call carries what it needs, so any gateway
process answers it).

Every tool declares an ``outputSchema`` (:mod:`gateway.mcp_results`) and
returns ``structuredContent`` plus a text whose first line says the state in
plain words. ``game`` names a game in the caller's own namespace
(:mod:`gateway.mcp_identity`): ``"default"`` unless given. With
``C4_GATEWAY_MCP_OUTPUT=connect4-rs`` (or ``/mcp?output=connect4-rs`` per
client) the text is what Connect4-rs's ``connect4-mcp`` prints instead.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

import connect4

from . import mcp_args as args
from . import model, rs_format, sealing
from .bridge import learn_report, report_text
from .document import COLORS, Game
from .errors import GameError
from .limits import client_address
from .mcp_identity import NoNamespace, key_of, namespace_of
from .mcp_results import (
    AnalysisResult,
    GameResult,
    LearnResult,
    OpponentsResult,
    board_text,
    game_result,
)
from .metrics import MCP_CALLS
import contextlib

if TYPE_CHECKING:
    from .games import Games
    from .settings import GatewaySettings

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "Play Connect Four against the platform's engine (or another player). Columns are 1..7 from the left "
    "(1..width on a board made with connect4_new's width/height/k, up to 16 x 16); "
    "rows count from the bottom. connect4_new starts a game (engine_starts=true lets the engine open; you are "
    "then yellow), connect4_move plays your column and returns the board after the opponent's reply, "
    "connect4_state shows it, connect4_hints turns tactical hints on or off, connect4_guard lets a gate check "
    "your moves (a move that misses a win, leaves a threat or loses in two is replaced; the result's override "
    "says why), connect4_analyze gives each "
    "column's exact score (allowed by default in your own games against a program), connect4_undo takes your "
    "last move back, connect4_resign gives up, connect4_opponents lists who you can play. Every result's first "
    "line says the state in words (\"Your move.\", \"You win.\", \"The engine wins.\", \"Draw.\"); the "
    "structured result has the board, history, result and a URL where a person watches live. Pass game=NAME "
    "to play several games at once; your names are yours alone: no other client sees or moves in your games."
)

GameOut = Annotated[CallToolResult, GameResult]
MOVE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
SETTING = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
ENDING = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)


class Caller:
    """The client behind one tool call: its key, namespace and output format."""

    def __init__(self, ctx: Context[Any, Any], settings: GatewaySettings) -> None:
        self.key = key_of(ctx.headers)
        self.ns = namespace_of(self.key)
        request = ctx.request_context.request
        query = getattr(request, "query_params", None) or {}
        headers = ctx.headers or {}
        self.output = query.get("output") or headers.get("x-c4-output") or settings.mcp_output
        self.client = client_address(getattr(request, "client", None))  # its creates and analyses count


class Connect4MCP(MCPServer[Any]):
    """The SDK's server with the gateway's games (set in the app's lifespan), and
    argument errors said in a sentence."""

    gateway: Games | None = None
    _refresh: asyncio.Task[None] | None = None

    def games(self) -> Games:
        if self.gateway is None:
            raise ToolError("the gateway is starting; try again in a moment")
        return self.gateway

    def on_gateway_ready(self) -> None:
        """Put the engine's opponents into connect4_new's schema once the engine answers."""
        self._refresh = asyncio.get_running_loop().create_task(self._describe_opponents())

    async def _describe_opponents(self) -> None:
        for _ in range(30):
            try:
                players = await self.games().opponents()
            except (GameError, ToolError):
                await asyncio.sleep(2)
                continue
            tool = self._tool_manager.get_tool("connect4_new")
            if tool is None:
                return
            prop = tool.parameters["properties"]["opponent"]
            known = [p["spec"] for p in players]
            ranged = [f"{p['family']}:N (N {p['param_min']}..{p['param_max']})" for p in players if p.get("param_max")]
            prop["examples"] = known
            prop["description"] = args.OPPONENT_HELP + "; known: " + ", ".join(known) + (
                "; also " + ", ".join(dict.fromkeys(ranged)) if ranged else "")
            return

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            extra = args.unknown_arguments(name, tool.parameters, arguments)
            if extra:
                raise ToolError(extra)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError) and tool is not None:
                errors = [dict(e) for e in cause.errors()]
                raise ToolError(args.sentence(name, tool.parameters, errors)) from None
            raise


def build_mcp() -> Connect4MCP:
    mcp = Connect4MCP("connect4", title="Connect Four", instructions=INSTRUCTIONS, version=connect4.__version__)

    def gateway() -> Games:
        return mcp.games()

    # -- a caller's named games ----------------------------------------------------
    async def named(caller: Caller, name: str, create: bool) -> tuple[Game, str, str]:
        """(doc, token, seat) of the caller's game ``name``; made (a game against the
        gateway's engine) when it has none and ``create``."""
        games = gateway()
        rec = await games.store.ns_get(caller.ns, name)
        if rec:
            try:
                doc = await games.store.load(rec["id"])
                token = sealing.unseal(rec["sealed"], caller.key, rec["id"])
                seat = model.seat_of(doc, token)
                if seat:
                    return doc, token, seat
            except GameError:
                pass  # expired: make a new one
        if not create:
            raise GameError("unknown_game", f"you have no game named {name!r}; start one with connect4_new")
        created = await games.create(opponent=games.settings.bridge_opponent, player="llm", allow_analysis=True,
                                     client=caller.client)
        gid = created["state"]["id"]
        rec = await games.store.ns_adopt(caller.ns, name, gid, sealing.seal(created["token"], caller.key, gid))
        if rec["id"] != gid:  # a call at the same moment named its game first: play that one
            await games.store.drop(gid)
        doc = await games.store.load(rec["id"])
        token = sealing.unseal(rec["sealed"], caller.key, rec["id"])
        return doc, token, model.seat_of(doc, token) or created["seat"]

    def result(caller: Caller, doc: Game, seat: str, name: str, extra: dict[str, Any] | None = None,
               lead: str = "") -> CallToolResult:
        out = game_result(doc, seat, name, gateway().settings.public_url) | (extra or {})
        if caller.output == "connect4-rs":
            text = rs_format.render(rs_format.state(doc, seat) | {"game": name, "watch_url": out["watch_url"]})
        else:
            text = board_text(out)
        if lead:
            text = lead + "\n" + text
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=out)

    async def failed(caller: Caller | None, exc: GameError, name: str) -> CallToolResult:
        text = f"{exc.message[:1].upper()}{exc.message[1:]}" + ("" if exc.message.endswith(".") else ".")
        text += f" (error {exc.code}; nothing was changed)"
        structured: dict[str, Any] = {"error": {"code": exc.code, "message": exc.message}}
        if exc.retry_after_s is not None:  # rate_limited, busy: when to try again
            structured["error"]["retry_after_s"] = round(exc.retry_after_s, 1)
        if caller is not None:
            try:
                doc, _token, seat = await named(caller, name, create=False)
                state = game_result(doc, seat, name, gateway().settings.public_url)
                structured["state"] = state
                if caller.output == "connect4-rs":
                    text = exc.message + "\n" + rs_format.render(rs_format.state(doc, seat))
                else:
                    text += "\n" + board_text(state)
            except GameError:
                pass
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured,
                              is_error=True)

    async def run(tool: str, ctx: Context[Any, Any], name: str,
                  body: Callable[[Caller], Awaitable[CallToolResult]]) -> CallToolResult:
        caller = None
        try:
            caller = Caller(ctx, gateway().settings)
            out = await body(caller)
            MCP_CALLS.labels(tool, "ok").inc()
            return out
        except NoNamespace as exc:
            MCP_CALLS.labels(tool, "no_namespace").inc()
            return CallToolResult(content=[TextContent(type="text", text=str(exc))], is_error=True)
        except GameError as exc:
            MCP_CALLS.labels(tool, exc.code).inc()
            return await failed(caller, exc, name)

    async def change(tool: str, ctx: Context[Any, Any], name: str, action: Callable[[Game, str], Awaitable[object]],
                     create: bool = True) -> CallToolResult:
        """Resolve the caller's game `name`, run `action(doc, token)` on it, answer with the game as it is now."""
        async def body(caller: Caller) -> CallToolResult:
            doc, token, seat = await named(caller, name, create=create)
            await action(doc, token)
            return result(caller, await gateway().store.load(doc.id), seat, name)
        return await run(tool, ctx, name, body)

    @mcp.tool(title="New game", annotations=MOVE,
              description="Start a new game under the name `game` (replacing the one you had under that name), "
                          "on a 7x6 board with 4 in a row unless width, height (1..16) and k "
                          "(2..max(width, height)) say otherwise. "
                          "Returns the board, after the engine's first move when it starts.")
    async def connect4_new(
        ctx: Context[Any, Any],
        engine_starts: Annotated[args.Flag, Field(description="true: the engine plays first (red) and you are "
                                                              "yellow")] = False,
        game: args.GameName = "default",
        opponent: Annotated[str | None, Field(max_length=64, description=args.OPPONENT_HELP)] = None,
        think_ms: args.ThinkMs = 0,
        allow_analysis: Annotated[args.Flag | None, Field(description="allow connect4_analyze in this game "
                                                                      "(default: yes against a program, no "
                                                                      "against a person)")] = None,
        guarded: Annotated[args.Flag, Field(description="true: the gate checks each of your moves and replaces "
                                                        "one that fails its four checks (see connect4_guard)")] = False,
        width: args.Side = 7,
        height: args.Side = 6,
        k: args.LineLength = 4,
    ) -> GameOut:
        async def body(caller: Caller) -> CallToolResult:
            games = gateway()
            if 0 < think_ms < 50:
                raise GameError("bad_request", f"the think time must be 0 or 50..60000 ms, not {think_ms}")
            spec = (opponent or games.settings.bridge_opponent).strip()
            analysis = allow_analysis if allow_analysis is not None else spec != "human"
            created = await games.create(width=width, height=height, k=k, opponent=spec,
                                         engine_starts=engine_starts, think_ms=think_ms,
                                         player="llm", allow_analysis=analysis, wait=True, client=caller.client,
                                         guarded=guarded)
            gid = created["state"]["id"]
            before = await games.store.ns_get(caller.ns, game)
            await games.store.ns_set(caller.ns, game, gid, sealing.seal(created["token"], caller.key, gid))
            if before:  # watchers of the name's old game are pointed at this one
                with contextlib.suppress(GameError):
                    await games.link_next(before["id"], sealing.unseal(before["sealed"], caller.key, before["id"]), gid)
            doc = await games.store.load(gid)
            extra = {}
            lead = ""
            if created.get("invite"):
                extra = {"invite": created["invite"], "invite_url": created["invite_url"]}
                lead = (f"The other seat is open: another player joins with connect4_join(game_id={gid!r}, "
                        f"invite={created['invite']!r}) or in a browser at {created['invite_url']}")
            out = result(caller, doc, created["seat"], game, lead=lead)
            if extra:
                out.structured_content = dict(out.structured_content or {}, **extra)
            return out
        return await run("connect4_new", ctx, game, body)

    @mcp.tool(title="Join a game", annotations=MOVE,
              description="Take a seat in a game made elsewhere: the open seat of a game another player created "
                          "with opponent=human (its game_id and invite), or your own seat of a game made through "
                          "REST or the bridge (its game_id and player token). `game` is the name you give it.")
    async def connect4_join(
        ctx: Context[Any, Any],
        game_id: Annotated[str, Field(strict=True, min_length=1, max_length=64, description="the game's id")],
        invite: Annotated[str | None, Field(max_length=64, description="the invite code of the open seat")] = None,
        token: Annotated[str | None, Field(max_length=64, description="your player token in that game "
                                                                      "(instead of an invite)")] = None,
        game: args.GameName = "default",
    ) -> GameOut:
        async def body(caller: Caller) -> CallToolResult:
            games = gateway()
            if (invite is None) == (token is None):
                raise GameError("bad_request", "pass either invite (to take the open seat) or token (your seat)")
            if invite is not None:
                try:
                    joined = await games.join(game_id, invite)
                except GameError as exc:
                    if exc.code == "invite_used":  # also a game that never had an open seat
                        exc.message = ("this game has no open seat: it was made without an invite (it is not "
                                       "against opponent=human) or its invite was used")
                    raise
                seat, seat_token = joined["seat"], joined["token"]
            else:
                doc = await games.store.load(game_id)
                seat, seat_token = games.authorize(doc, token), token
            await games.store.ns_set(caller.ns, game, game_id, sealing.seal(seat_token, caller.key, game_id))
            return result(caller, await games.store.load(game_id), seat, game)
        return await run("connect4_join", ctx, game, body)

    @mcp.tool(title="Play a move", annotations=MOVE,
              description="Drop your disc in column col (1..7 on 7x6, 1..width on a wider board, left to right), "
                          "when it is your move. Returns the board after the opponent's reply.")
    async def connect4_move(ctx: Context[Any, Any], col: args.Column, game: args.GameName = "default") -> GameOut:
        async def body(caller: Caller) -> CallToolResult:
            doc, token, seat = await named(caller, game, create=True)
            doc, seat, _ = await gateway().move_doc(doc.id, token, col, wait=True)
            return result(caller, doc, seat, game)
        return await run("connect4_move", ctx, game, body)

    @mcp.tool(title="Show the game", annotations=READ,
              description="The current board and state of your game.")
    async def connect4_state(ctx: Context[Any, Any], game: args.GameName = "default") -> GameOut:
        async def body(caller: Caller) -> CallToolResult:
            doc, _token, seat = await named(caller, game, create=True)
            return result(caller, doc, seat, game)
        return await run("connect4_state", ctx, game, body)

    @mcp.tool(title="Hints on or off", annotations=SETTING,
              description="Turn tactical hints on or off: columns that win now, must be blocked, or lose at once, "
                          "and each column's next free row.")
    async def connect4_hints(ctx: Context[Any, Any], on: args.HintsOn, game: args.GameName = "default") -> GameOut:
        return await change("connect4_hints", ctx, game, lambda doc, token: gateway().set_hints(doc.id, token, on))

    @mcp.tool(title="Guard my moves", annotations=SETTING,
              description="Turn the gate on or off for your moves: each move is checked (takes_win: take a win "
                          "on the board; blocks_threat: block the opponent's win next move; not_under_threat: do "
                          "not play right under its winning cell; no_loss_in_two: no reply leaves you lost) and "
                          "one that fails is replaced by the gate's choice; the result's override says which "
                          "checks failed and why.")
    async def connect4_guard(ctx: Context[Any, Any], on: args.GuardOn, game: args.GameName = "default") -> GameOut:
        return await change("connect4_guard", ctx, game, lambda doc, token: gateway().set_guarded(doc.id, token, on))

    @mcp.tool(title="Analyze the position", annotations=READ,
              description="Each column's exact score from the solver for the side to move (allowed by default in "
                          "your own games against a program).")
    async def connect4_analyze(ctx: Context[Any, Any],
                               game: args.GameName = "default") -> Annotated[CallToolResult, AnalysisResult]:
        async def body(caller: Caller) -> CallToolResult:
            doc, token, seat = await named(caller, game, create=False)
            analysis = await gateway().analysis(doc.id, token=token, client=caller.client)
            lines = [f"column {c['column']}: {c['verdict'] or ('not proved in time' if c['unproved'] else 'full')}"
                     + ("" if c["score"] is None else f" (score {c['score']})") for c in analysis["columns"]]
            return result(caller, doc, seat, game, {"columns": analysis["columns"], "best": analysis["best"]},
                          lead="Analysis for the side to move:\n" + "\n".join(lines))
        return await run("connect4_analyze", ctx, game, body)

    @mcp.tool(title="Take back", annotations=ENDING,
              description="Take back your last move (and the opponent program's reply to it).")
    async def connect4_undo(ctx: Context[Any, Any], game: args.GameName = "default") -> GameOut:
        return await change("connect4_undo", ctx, game, lambda doc, token: gateway().undo(doc.id, token), create=False)

    @mcp.tool(title="Resign", annotations=ENDING,
              description="Give up this game: the opponent wins.")
    async def connect4_resign(ctx: Context[Any, Any], game: args.GameName = "default") -> GameOut:
        async def body(caller: Caller) -> CallToolResult:
            doc, token, seat = await named(caller, game, create=False)
            doc = await resign(doc.id, token)
            return result(caller, doc, seat, game)
        return await run("connect4_resign", ctx, game, body)

    async def resign(game_id: str, token: str) -> Game:
        games = gateway()
        doc = await games.store.load(game_id)
        seat = games.authorize(doc, token)
        if doc.is_over:
            raise GameError("game_over", "the game is over already")
        expected = doc.version
        doc.result = {"winner": COLORS[1 - COLORS.index(seat)], "reason": "resigned"}
        doc.winning_cells = []
        doc.message = ""
        await games.commit(doc, expected, seat=seat)
        return doc

    @mcp.tool(title="Learn from the game", annotations=MOVE,
              description="A bookgen worker traces the engine's moves of this game (finished or not) with the "
                          "exact solver; each ply where the engine threw away a win or a draw goes into its "
                          "corrective book. Returns the report.")
    async def connect4_learn(ctx: Context[Any, Any],
                             game: args.GameName = "default") -> Annotated[CallToolResult, LearnResult]:
        async def body(caller: Caller) -> CallToolResult:
            doc, token, seat = await named(caller, game, create=False)
            games = gateway()
            games.authorize(doc, token)
            out = {"report": await learn_report(games, doc)}
            text = report_text(out["report"])
            return result(caller, doc, seat, game, {"report": text, "learned": out["report"]},
                          lead="Learned: " + str(out["report"].get("verdict", "")) + "\n" + text)
        return await run("connect4_learn", ctx, game, body)

    @mcp.tool(title="List opponents", annotations=READ,
              description="Every opponent you can pass to connect4_new: the engine's ladder, perfect, human.")
    async def connect4_opponents() -> Annotated[CallToolResult, OpponentsResult]:
        try:
            players = await gateway().opponents()
        except GameError as exc:
            return CallToolResult(content=[TextContent(type="text", text=f"The engine is not reachable: "
                                                                         f"{exc.message}.")], is_error=True)
        lines = [f"{p['spec']}: {p.get('description', '')}" + (f" (also {p['family']}:N with N in "
                 f"{p['param_min']}..{p['param_max']})" if p.get("param_max") else "") for p in players]
        msg = f"{len(players)} opponents; pass one as opponent= to connect4_new."
        return CallToolResult(content=[TextContent(type="text", text=msg + "\n" + "\n".join(lines))],
                              structured_content={"opponents": players, "message": msg})

    # -- resources and prompts --------------------------------------------------------
    @mcp.resource("connect4://game/{name}", name="game", title="A game of yours",
                  description="The state of your game `name` (the connect4_state result as JSON).",
                  mime_type="application/json")
    async def game_resource(name: str, ctx: Context[Any, Any]) -> str:
        import json
        import re

        if not re.fullmatch(args.NAME_PATTERN, name):
            raise ValueError("a game name is 1-64 letters, digits, '_', '.' or '-'")
        caller = Caller(ctx, gateway().settings)
        doc, _token, seat = await named(caller, name, create=False)
        return json.dumps(game_result(doc, seat, name, gateway().settings.public_url))

    @mcp.prompt(name="play_a_game", title="Play a game of Connect Four",
                description="Ask the model to play one full game against the engine through these tools.")
    def play_a_game(engine_starts: str = "false", hints: str = "on") -> str:
        return ("Play a game of Connect Four against the engine. Call connect4_new"
                + (" with engine_starts=true" if engine_starts.lower() == "true" else "")
                + (", then connect4_hints with on=false" if hints.lower() == "off" else "")
                + ". Then call connect4_move with your column until the first line of a result says the game is "
                  "over (\"You win.\", \"The engine wins.\" or \"Draw.\"). Before each move look at the board and "
                  "the hints: make four when you can, block the opponent's four, avoid columns that lose at once, "
                  "and think about threats and parity. Say the result at the end.")

    return mcp
