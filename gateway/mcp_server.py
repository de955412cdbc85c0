"""The MCP endpoint (``/mcp``): Connect4-rs's tools over the official SDK,
streamable HTTP, stateless (every call carries what it needs, so any gateway
answers it).

``game`` names the game an agent plays ("default" unless given); the name maps
to a game id and its player token in Redis (``c4:mcp:{name}``), so one agent
can play several games and any gateway process knows them.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import TextContent
from pydantic import BeforeValidator, StrictBool

import connect4

from .text_board import board_text
from .errors import GameError
from .games import Games
from .metrics import MCP_CALLS

def _not_a_flag(value: object) -> object:
    if isinstance(value, bool):  # JSON true is not column 1
        raise ValueError("a whole number is needed, not true or false")
    return value


Number = Annotated[int, BeforeValidator(_not_a_flag)]
Flag = StrictBool  # JSON true or false: "yes", "true" and 1 are errors, as in the REST API

INSTRUCTIONS = (
    "Play Connect Four against the platform's engine. Columns are 1..7 from the left. "
    "connect4_new starts a game (engine_starts to let the engine open), connect4_move plays your column "
    "and returns the board after the engine's reply, connect4_state shows the board, connect4_hints "
    "turns move hints on or off, connect4_analyze gives each column's exact score when the game allows it. "
    "Pass game=NAME to play several games at once. Every result has a URL where a person can watch live."
)


def _result(state: dict[str, Any], note: str = "") -> list[TextContent]:
    text = board_text(state)
    if note:
        text = note + "\n" + text
    summary = {k: state[k] for k in ("id", "status", "to_move", "you", "moves", "result", "last_search",
                                     "message", "hints_on", "hints", "resigned", "version")}
    return [
        TextContent(type="text", text=text),
        TextContent(type="text", text=json.dumps(summary)),
        TextContent(type="text", text=f"watch live: {state['watch_url']}"),
    ]


class GatewayMCP(MCPServer[Any]):
    """The SDK's server with the gateway's games (set in the app's lifespan)."""

    gateway: Games | None = None

    @property
    def games(self) -> Games:
        if self.gateway is None:
            raise ToolError("the gateway is starting; try again in a moment")
        return self.gateway


def build_mcp() -> GatewayMCP:
    mcp = GatewayMCP("connect4", instructions=INSTRUCTIONS, version=connect4.__version__)

    async def session(name: str, create: bool = True) -> tuple[str, str]:
        games = mcp.games
        found = await games.store.mcp_get(name)
        if found:
            try:
                await games.store.load(found[0])
                return found
            except GameError:
                pass  # expired: make a new one
        if not create:
            raise ToolError(f"no game named {name!r}; start one with connect4_new")
        return await new_game(name, engine_starts=False, replace=False)

    async def new_game(name: str, engine_starts: bool, opponent: str | None = None, think_ms: int = 0,
                       allow_analysis: bool = False, replace: bool = True) -> tuple[str, str]:
        """Make a game and name it. ``replace=False`` (a tool call that found no game
        under the name): when calls at the same moment did the same, every one of
        them plays the game named first, and the others' are deleted unseen."""
        games = mcp.games
        created = await games.create(opponent=opponent or games.settings.bridge_opponent,
                                     engine_starts=engine_starts, think_ms=think_ms, player="llm",
                                     allow_analysis=allow_analysis)
        if not replace:
            named = await games.store.mcp_adopt(name, created["state"]["id"], created["token"])
            if named[0] != created["state"]["id"]:
                await games.store.drop(created["state"]["id"])
            return named
        before = await games.store.mcp_get(name)
        await games.store.mcp_set(name, created["state"]["id"], created["token"], created.get("invite"))
        if before:  # watchers of the name's old game are pointed at this one
            await games.link_next(before[0], before[1], created["state"]["id"])
        return created["state"]["id"], created["token"]

    async def run(tool: str, coro: Awaitable[list[TextContent]]) -> list[TextContent]:
        try:
            out = await coro
            MCP_CALLS.labels(tool, "ok").inc()
            return out
        except GameError as exc:
            MCP_CALLS.labels(tool, exc.code).inc()
            text = f"error ({exc.code}): {exc.message}"
            if exc.state:
                text += "\n" + board_text(exc.state)
            raise ToolError(text) from None

    @mcp.tool(description="Start a new game. engine_starts: the engine plays first (you are yellow). "
                          "Optional: game (a name, to play several games), opponent (e.g. engine:1000, minimax:5, "
                          "perfect), think_ms, allow_analysis.", structured_output=False)
    async def connect4_new(engine_starts: Flag = False, game: str = "default", opponent: str | None = None,
                           think_ms: Number = 0, allow_analysis: Flag = False) -> list[TextContent]:
        async def go() -> list[TextContent]:
            gid, token = await new_game(game, engine_starts, opponent, think_ms, allow_analysis)
            state = await mcp.games.get(gid, token)
            doc = await mcp.games.store.load(gid)
            if doc.program_to_move:
                doc = await mcp.games.run_opponent(doc)
                state = mcp.games.view(doc, state["you"])
            note = f"new game {gid!r} ({game}); you are {state['you']}"
            if opponent == "human":
                created_invite = await mcp.games.store.mcp_invite(game)
                note += (f"; the other seat is open: another player joins with connect4_join("
                         f"game_id={gid!r}, invite={created_invite!r}) or in a browser")
            return _result(state, note)
        return await run("connect4_new", go())

    @mcp.tool(description="Join the open seat of a game someone else created with opponent=human, using its "
                          "game_id and invite. game: the name you give it here.", structured_output=False)
    async def connect4_join(game_id: str, invite: str, game: str = "default") -> list[TextContent]:
        async def go() -> list[TextContent]:
            joined = await mcp.games.join(game_id, invite)
            await mcp.games.store.mcp_set(game, game_id, joined["token"])
            return _result(joined["state"], f"joined game {game_id!r} as {joined['seat']} ({game})")
        return await run("connect4_join", go())

    @mcp.tool(description="Drop your disc in column col (1-7, left to right). Returns the board after the engine's "
                          "reply.", structured_output=False)
    async def connect4_move(col: Number, game: str = "default") -> list[TextContent]:
        async def go() -> list[TextContent]:
            gid, token = await session(game)
            return _result(await mcp.games.move(gid, token, col, wait=True))
        return await run("connect4_move", go())

    @mcp.tool(description="The current board and game state.", structured_output=False)
    async def connect4_state(game: str = "default") -> list[TextContent]:
        async def go() -> list[TextContent]:
            gid, token = await session(game)
            return _result(await mcp.games.get(gid, token))
        return await run("connect4_state", go())

    @mcp.tool(description="Turn move hints on or off (wins now, must block, loses at once).", structured_output=False)
    async def connect4_hints(on: Flag, game: str = "default") -> list[TextContent]:
        async def go() -> list[TextContent]:
            gid, token = await session(game)
            return _result(await mcp.games.set_hints(gid, token, on))
        return await run("connect4_hints", go())

    @mcp.tool(description="Each column's exact score from the solver (only when the game allows analysis).",
              structured_output=False)
    async def connect4_analyze(game: str = "default") -> list[TextContent]:
        async def go() -> list[TextContent]:
            gid, token = await session(game)
            analysis = await mcp.games.analysis(gid)
            state = await mcp.games.get(gid, token)
            lines = [f"column {c['column']}: {c['verdict'] or 'full'}" + ("" if c["score"] is None else f" (score {c['score']})")
                     for c in analysis["columns"]]
            out = _result(state)
            out.insert(1, TextContent(type="text", text="analysis for the side to move:\n" + "\n".join(lines)))
            return out
        return await run("connect4_analyze", go())

    @mcp.tool(description="After a finished game: a bookgen worker traces the engine's moves with the exact solver; "
                          "each ply where the engine threw away a win or a draw goes into its corrective book. "
                          "Returns the verdict (e.g. 'the opponent won on merit').", structured_output=False)
    async def connect4_learn(game: str = "default") -> list[TextContent]:
        async def go() -> list[TextContent]:
            gid, token = await session(game, create=False)
            out = await mcp.games.learn(gid, token)
            report = out["report"]
            booked = [f"ply {v['ply']}: played {v['played']}, {v['best']} keeps the {v['threw']}"
                      + (" (booked)" if v.get("booked") else "") for v in report.get("threw") or ()]
            text = "learned: " + str(report.get("verdict", "")) + ("\n" + "\n".join(booked) if booked else "")
            result = _result(out["state"])
            result.insert(0, TextContent(type="text", text=text))
            result.insert(1, TextContent(type="text", text=json.dumps({"report": report})))
            return result
        return await run("connect4_learn", go())

    return mcp
