"""A game as Connect4-rs's control socket shows it: the bridge's reply.

:func:`rs_state` is the whole reply a bridge command answers with: the board
rows, Connect4-rs's ``status`` (``human_to_move``, ``thinking``, ``draw`` or
``{"won": "human" | "engine"}``), its ``message`` texts when ours is empty, and
after a finished game ``to_move`` naming the side that made the last move (the
resigner after a resignation), as Connect4-rs (``src/game.rs``) does; our own
fields (``game``, ``token``, ``watch_url``) follow.
"""

from __future__ import annotations

from typing import Any

from .document import COLORS, Game
from .model import board_rows, hints_json, watch_url

# Connect4-rs's Game::message() for each status, used when our message is empty.
RS_MESSAGES = {"human_to_move": "Your move", "thinking": "Engine is thinking ...", "draw": "Draw",
               "human": "You win!", "engine": "Engine wins!",
               "resigned": "Engine gives up - it is facing a forced loss. You win!"}


def rs_status(game: Game, human: str) -> str | dict[str, str]:
    if game.result is not None:
        winner = game.result["winner"]
        return "draw" if winner is None else {"won": "human" if winner == human else "engine"}
    return "human_to_move" if game.color_to_move == human else "thinking"


def bridge_state(game: Game, human: str, public_url: str, token: str | None = None) -> dict[str, Any]:
    """Our fields in Connect4-rs's shape, before its texts (:func:`rs_state` adds them)."""
    status = rs_status(game, human)
    out: dict[str, Any] = {
        "rows": board_rows(game.moves, game.width, game.height),
        "status": status,
        "human": human,
        "to_move": game.color_to_move,
        "history": [c + 1 for c in game.moves],
        "last_search": None,
        "message": game.message,
    }
    ls = game.last_search
    if ls:
        search = {k: ls[k] for k in ("col", "score", "depth", "nodes", "millis")}
        if ls.get("book"):
            search["book"] = True
        out["last_search"] = search
    if game.resigned:
        out["resigned"] = True
    if game.hints_on and status == "human_to_move":
        out["hints"] = hints_json(game.position())
    out["game"] = game.id
    if token:
        out["token"] = token
    out["watch_url"] = watch_url(public_url, game.id)
    return out


def as_connect4_rs(reply: dict[str, Any], game: Game) -> dict[str, Any]:
    """Connect4-rs's ``message`` and ``to_move`` in a bridge reply (the fields
    our model leaves empty or computes differently); every other field stays."""
    status = reply["status"]
    if not reply["message"]:
        if isinstance(status, dict):
            winner = status["won"]
            key = "resigned" if winner == "human" and reply.get("resigned") else winner
        else:
            key = status
        reply["message"] = RS_MESSAGES.get(key, "")
    if game.result is not None and not game.resigned and game.moves:
        # Connect4-rs does not pass the turn after the move that ends the game
        reply["to_move"] = COLORS[(len(game.moves) - 1) & 1]
    return reply


def rs_state(game: Game, human: str, public_url: str, token: str | None = None) -> dict[str, Any]:
    """The bridge's reply for ``game`` played by the person at ``human``."""
    return as_connect4_rs(bridge_state(game, human, public_url, token), game)
