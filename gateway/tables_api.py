"""``GET /tables/{name}``: the fixed watch URL of a bridge listener's shared
game. It redirects (307) to the page of the table's current game; the page
follows the table into its next game through the old game's ``next_game``."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from . import model
from .bridge_table import NAME
from .errors import GameError

router = APIRouter(tags=["bridge"])


@router.get("/tables/{name}", summary="Watch a bridge table's current game (redirect)", response_model=None)
async def watch_table(name: str, request: Request) -> Response:
    if not NAME.fullmatch(name):
        return JSONResponse({"error": {"code": "bad_request", "message": "a table name is 1-64 letters, digits, "
                                       "'_', '.' or '-'"}}, status_code=400)
    record = await request.app.state.store.table_get(name)
    gid = record.get("id")
    if gid:
        try:
            await request.app.state.store.load(gid)
        except GameError:  # expired
            gid = None
    if not gid:
        return JSONResponse({"error": {"code": "unknown_game", "message": f"table {name!r} has no game yet: "
                                       "it starts with the first move played at it"}}, status_code=404)
    return RedirectResponse(model.watch_url(request.app.state.settings.public_url, gid), status_code=307)
