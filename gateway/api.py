"""REST routes under ``/api/v1`` and the game WebSocket (see docs/api.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Query, Request, Response, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from redis.exceptions import RedisError

from .errors import GameError
from .limits import SocketCount, client_address
from .games import Games
from .hub import RESYNC
from .metrics import WS_CLIENTS

log = logging.getLogger(__name__)

router = APIRouter(prefix="/api/v1")

class ErrorDetail(BaseModel):
    code: str = Field(..., description="bad_request, illegal_column, full_column, bad_token, unknown_game, "
                                       "not_your_turn, game_over, conflict, service_unavailable, ...")
    message: str = Field(..., description="what went wrong, for people")


class ErrorBody(BaseModel):
    error: ErrorDetail
    state: dict[str, Any] | None = Field(None, description="the game, unchanged, when the error is about one")


ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "bad_request, illegal_column, full_column"},
    403: {"model": ErrorBody, "description": "bad_token, analysis_disabled"},
    404: {"model": ErrorBody, "description": "unknown_game"},
    409: {"model": ErrorBody, "description": "not_your_turn, game_over, conflict, invite_used, nothing_to_undo, "
                                             "game_not_over"},
    413: {"model": ErrorBody, "description": "too_large (the body)"},
    429: {"model": ErrorBody, "description": "rate_limited, busy (with Retry-After)"},
    431: {"model": ErrorBody, "description": "headers_too_large"},
    502: {"model": ErrorBody, "description": "service_error, learning_failed"},
    503: {"model": ErrorBody, "description": "service_unavailable, learning_unavailable (the game is kept)"},
    504: {"model": ErrorBody, "description": "timeout (the game is kept)"},
    507: {"model": ErrorBody, "description": "storage_full (Redis is full; nothing was saved)"},
}


class Body(BaseModel):
    # JSON types as documented: true is not the number 1, "yes" is not true, 7.0 is not 7.
    model_config = ConfigDict(strict=True)


class CreateGame(Body):
    width: int = Field(7, description="columns")
    height: int = Field(6, description="rows")
    k: int = Field(4, description="stones in a row that win")
    opponent: str | None = Field(None, description="player spec (engine:1000, minimax:5, random, ...), "
                                                   "perfect, or human")
    you: Literal["red", "yellow"] | None = Field(None, description="your colour; red moves first")
    engine_starts: bool | None = Field(None, description="same as you=yellow")
    think_ms: int = Field(0, description="opponent's time per move, 50..60000; 0 = the spec's own time")
    hints: bool = False
    allow_analysis: bool = True
    player: Literal["human", "llm"] = "human"
    guarded: bool = Field(False, description="the gate checks your moves and replaces one that fails its checks")


class MoveBody(Body):
    column: int | str = Field(..., description="1-based column or a letter a..")
    version: int | None = Field(None, description="the version you saw; another version gives conflict")
    wait: bool | None = Field(None, description="false: answer right after your move")


class HintsBody(Body):
    on: bool


class GuardBody(Body):
    on: bool = Field(..., description="true: the gate checks your moves (takes_win, blocks_threat, "
                                      "not_under_threat, no_loss_in_two) and replaces one that fails")


class SettingsBody(Body):
    think_ms: int | None = Field(None, description="the opponent's time per move from its next move on, 50..60000")
    allow_analysis: bool | None = Field(None, description="your yes or no to analysis while the game is played "
                                                          "(between two people it takes both)")


class ReplayBody(Body):
    moves: list[int | str] | str = Field(..., description="move list in any notation: [4,4,5], \"445\", \"d d e\"")
    engine_starts: bool | None = None
    wait: bool | None = None


class JoinBody(Body):
    invite: str
    allow_analysis: bool = Field(False, description="let anyone analyse the game while it is played "
                                                    "(it takes both players' yes)")


def _json(content: Any, status: int = 200) -> Response:
    """Serialize once, without FastAPI's response-model pass (replies are plain dicts)."""
    return Response(json.dumps(content, separators=(",", ":")), status_code=status, media_type="application/json")


def games(request: Request) -> Games:
    found: Games = request.app.state.games
    return found


def _token(header: str | None, query: str | None) -> str | None:
    return header or query


Token = Annotated[str | None, Header(alias="X-Player-Token", description="your player token")]
TokenQ = Annotated[str | None, Query(alias="token", description="the player token, when a header is awkward")]


@router.get("/opponents", summary="Every opponent you can play: the engine's ladder, perfect, human")
async def list_opponents(request: Request) -> Response:
    return _json({"opponents": await games(request).opponents()})


@router.post("/games", status_code=201, summary="Create a game", responses=ERRORS, response_model=None)
async def create_game(request: Request, body: CreateGame | None = None,
                      wait: bool = Query(True)) -> Response:
    body = body or CreateGame.model_validate({})
    return _json(await games(request).create(**body.model_dump(), wait=wait,
                                             client=client_address(request.client)), 201)


@router.get("/games/{game_id}", summary="A game's state (anyone with the id)", responses=ERRORS, response_model=None)
async def get_game(request: Request, game_id: str, x_player_token: Token = None,
                   token: TokenQ = None) -> Response:
    return _json(await games(request).get(game_id, _token(x_player_token, token)))


@router.post("/games/{game_id}/join", summary="Take the invited seat", responses=ERRORS, response_model=None)
async def join_game(request: Request, game_id: str, body: JoinBody) -> Response:
    return _json(await games(request).join(game_id, body.invite, body.allow_analysis))


@router.post("/games/{game_id}/moves", summary="Play a move; waits for the opponent's answer unless wait=false",
             responses=ERRORS, response_model=None)
async def play_move(request: Request, game_id: str, body: MoveBody, x_player_token: Token = None,
                    token: TokenQ = None, wait: bool = Query(True)) -> Response:
    w = body.wait if body.wait is not None else wait
    return _json(await games(request).move(game_id, _token(x_player_token, token), body.column, body.version, w))


@router.post("/games/{game_id}/undo", summary="Back to your previous turn (also while the engine thinks)",
             responses=ERRORS, response_model=None)
async def undo(request: Request, game_id: str, x_player_token: Token = None,
               token: TokenQ = None) -> Response:
    return _json(await games(request).undo(game_id, _token(x_player_token, token)))


@router.post("/games/{game_id}/hints", summary="Hints on or off", responses=ERRORS, response_model=None)
async def hints(request: Request, game_id: str, body: HintsBody, x_player_token: Token = None,
                token: TokenQ = None) -> Response:
    return _json(await games(request).set_hints(game_id, _token(x_player_token, token), body.on))


@router.post("/games/{game_id}/guard", summary="The gate on or off for your own moves", responses=ERRORS,
             response_model=None)
async def guard(request: Request, game_id: str, body: GuardBody, x_player_token: Token = None,
                token: TokenQ = None) -> Response:
    return _json(await games(request).set_guarded(game_id, _token(x_player_token, token), body.on))


@router.post("/games/{game_id}/settings", summary="Change the think time of a running game",
             responses=ERRORS, response_model=None)
async def settings(request: Request, game_id: str, body: SettingsBody, x_player_token: Token = None,
                   token: TokenQ = None) -> Response:
    if body.think_ms is None and body.allow_analysis is None:
        raise GameError("bad_request", "give think_ms or allow_analysis")
    return _json(await games(request).set_think(game_id, _token(x_player_token, token), body.think_ms,
                                                body.allow_analysis))


@router.post("/games/{game_id}/replay", summary="Replace the move list", responses=ERRORS, response_model=None)
async def replay(request: Request, game_id: str, body: ReplayBody, x_player_token: Token = None,
                 token: TokenQ = None, wait: bool = Query(True)) -> Response:
    w = body.wait if body.wait is not None else wait
    return _json(await games(request).replay(game_id, _token(x_player_token, token), body.moves,
                                             body.engine_starts, w))


@router.get("/games/{game_id}/analysis", summary="Each column's exact score from the solver", responses=ERRORS,
            response_model=None)
async def analysis(request: Request, game_id: str, deadline_ms: int = Query(10000, ge=10, le=120000),
                   ply: int | None = Query(None, description="the position after the first N moves (default: now)"),
                   x_player_token: Token = None, token: TokenQ = None) -> Response:
    return _json(await games(request).analysis(game_id, deadline_ms, ply, _token(x_player_token, token),
                                               client=client_address(request.client)))


@router.post("/games/{game_id}/learn",
             summary="Learn from a finished game: a bookgen worker traces the engine's moves with the solver "
                     "and books each thrown win or draw in the corrective book (token)",
             responses=ERRORS, response_model=None)
async def learn(request: Request, game_id: str, x_player_token: Token = None,
                token: TokenQ = None) -> Response:
    return _json(await games(request).learn(game_id, _token(x_player_token, token)))


# -- WebSocket ----------------------------------------------------------------------
async def _reload(g: Games, game_id: str) -> dict[str, Any]:
    """The game's state, waiting while Redis is away (a watcher outlives a Redis restart)."""
    delay = 0.1
    while True:
        try:
            return await g.get(game_id)
        except (RedisError, OSError):
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)


@router.websocket("/games/{game_id}/ws")
async def game_ws(websocket: WebSocket, game_id: str) -> None:
    g: Games = websocket.app.state.games
    sockets: SocketCount = websocket.app.state.sockets
    who = client_address(websocket.client)
    if not sockets.open(who):
        await _deny(websocket, sockets.cap)
        return
    try:
        await _game_ws(websocket, g, game_id)
    finally:
        sockets.close(who)


async def _deny(websocket: WebSocket, cap: int) -> None:
    """429 before the handshake: this client has its share of sockets open."""
    retry = str(websocket.app.state.settings.retry_after_s)
    body = {"error": {"code": "rate_limited", "message": f"this client has {cap} WebSockets open already; "
                                                           "close one first"}}
    try:
        await websocket.send_denial_response(JSONResponse(body, status_code=429, headers={"Retry-After": retry}))
    except RuntimeError:  # a server without the denial extension: close before accepting
        await websocket.close(code=1008)


async def _game_ws(websocket: WebSocket, g: Games, game_id: str) -> None:
    await websocket.accept()
    WS_CLIENTS.inc()
    watch = None
    try:
        try:
            watch = await g.store.watch(game_id)
            # The state from a read after the subscription, so no change can fall
            # between the two; watchers connecting together share one read.
            state = await g.shared_reads.state(game_id, g.shared_reads.mark())
        except GameError as exc:
            await websocket.send_json({"type": "error", "error": {"code": exc.code, "message": exc.message}})
            await websocket.close(code=4404)
            return
        except (RedisError, OSError) as exc:  # Redis away: say so, and close as "try again later"
            await websocket.send_json({"type": "error", "error": {
                "code": "service_unavailable", "message": f"redis unavailable: {exc}; connect again in a moment"}})
            await websocket.close(code=1013)
            return
        await websocket.send_json({"type": "state", "state": state})
        seen = state["version"]

        async def pump() -> None:
            nonlocal seen
            while True:
                data = await watch.get()
                if data is RESYNC:  # messages were lost (Redis away, slow reader): send the state
                    state = await _reload(g, game_id)
                    if state["version"] > seen:
                        seen = state["version"]
                        await websocket.send_json({"type": "state", "state": state})
                    continue
                if '"type":"state"' in data[:20]:
                    v = json.loads(data)["state"]["version"]
                    if v <= seen:
                        continue
                    seen = v
                await websocket.send_text(data)

        async def reader() -> None:
            while True:
                frame = await websocket.receive()
                if frame["type"] == "websocket.disconnect":
                    return
                text = frame.get("text")
                if text is None:  # a binary frame: this socket speaks JSON text only
                    await websocket.send_json({"type": "error", "error": {
                        "code": "bad_request", "message": "send JSON text frames, e.g. {\"type\":\"ping\"}"}})
                    continue
                try:
                    msg = json.loads(text)
                except ValueError:
                    continue
                if isinstance(msg, dict) and msg.get("type") == "ping":
                    await websocket.send_json({"type": "pong"})

        tasks = [asyncio.create_task(pump()), asyncio.create_task(reader())]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for t in done:
                t.result()
        finally:
            for t in tasks:
                t.cancel()
    except (WebSocketDisconnect, asyncio.CancelledError):
        pass
    except GameError as exc:  # the game expired (or vanished) while watched
        try:
            await websocket.send_json({"type": "error", "error": {"code": exc.code, "message": exc.message}})
            await websocket.close(code=4404)
        except Exception:
            pass
    except Exception as exc:  # Redis gone, client gone: close quietly
        log.info("websocket closed", extra={"game": game_id, "error": repr(exc)})
    finally:
        WS_CLIENTS.dec()
        if watch is not None:
            with contextlib.suppress(Exception):
                await watch.close()
