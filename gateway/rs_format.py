"""Connect4-rs's view of a game: its control socket's JSON state (``StateJson``
in its ``src/game.rs``) and the text its ``connect4-mcp`` renders of it.

Field order, names and values are Connect4-rs's: ``status``
(``human_to_move`` | ``thinking`` | ``{"won": "human"|"engine"}`` | ``draw``),
``human``, ``to_move`` (after the move that ends a game, the side that made
it; after a resignation, the resigner), ``rows`` (top row first), ``history``,
``last_search`` (``col score depth nodes millis``), ``message`` (its
``Game::message()`` text), ``resigned`` only when true, ``hints`` only when on
and the human is to move. This gateway's own fields come after them
(``game``, ``watch_url``, ``note``, ...), so a reader of Connect4-rs's fields
sees exactly those.
"""

from __future__ import annotations

import json
from typing import Any

from . import model
from .document import COLORS, Game

MESSAGES = {
    "human_to_move": "Your move",
    "engine_sees_win": "Engine sees a forced win! Your move",
    "thinking": "Engine is thinking ...",
    "human": "You win!",
    "resigned": "Engine gives up - it is facing a forced loss. You win!",
    "engine": "Engine wins!",
    "draw": "Draw",
}


def status(doc: Game, human: str) -> str | dict[str, str]:
    if doc.result is not None:
        winner = doc.result["winner"]
        return "draw" if winner is None else {"won": "human" if winner == human else "engine"}
    return "human_to_move" if doc.color_to_move == human else "thinking"


def engine_sees_win(doc: Game) -> bool:
    """The engine's last search proved its win (a book move claims nothing, as in Connect4-rs)."""
    ls = doc.last_search or {}
    return bool(ls.get("proven")) and ls.get("outcome") == "win" and not ls.get("book")


def message(doc: Game, human: str) -> str:
    st = status(doc, human)
    if isinstance(st, dict):
        winner = st["won"]
        return MESSAGES["resigned" if winner == "human" and doc.resigned else winner]
    if st == "human_to_move" and engine_sees_win(doc):
        return MESSAGES["engine_sees_win"]
    return MESSAGES[st]


def to_move(doc: Game) -> str:
    moves = doc.moves
    if doc.result is not None and not doc.resigned and moves:
        return str(COLORS[(len(moves) - 1) & 1])  # Connect4-rs does not pass the turn after the last move
    return doc.color_to_move


def state(doc: Game, human: str) -> dict[str, Any]:
    """Connect4-rs's fields only, in its order."""
    st = status(doc, human)
    out: dict[str, Any] = {
        "status": st,
        "human": human,
        "to_move": to_move(doc),
        "rows": model.board_rows(doc.moves, doc.width, doc.height),
        "history": [c + 1 for c in doc.moves],
        "last_search": None,
        "message": message(doc, human),
    }
    ls = doc.last_search
    if ls:
        out["last_search"] = {k: ls.get(k, 0) for k in ("col", "score", "depth", "nodes", "millis")}
    if doc.resigned:
        out["resigned"] = True
    if doc.hints_for(human) and st == "human_to_move":  # the bridge's own seat's hints
        out["hints"] = model.hints_json(doc.position())
    return out


def empty_state(hints: bool) -> dict[str, Any]:
    """The state of a table nobody has played at yet (Connect4-rs's ``Game::new(false, ..)``)."""
    out: dict[str, Any] = {"status": "human_to_move", "human": "red", "to_move": "red", "rows": ["......."] * 6,
                 "history": [], "last_search": None, "message": MESSAGES["human_to_move"]}
    if hints:
        out["hints"] = {"next_row": [1] * 7, "winning_moves": [], "must_block": [], "losing_moves": []}
    return out


def render(st: dict[str, Any]) -> str:
    """``connect4-mcp``'s text of a state: the board, the column numbers, a
    ``hints:`` line when hints are on, then the state's JSON."""
    lines = []
    lines += model.board_lines(st.get("rows") or [])
    h = st.get("hints")
    if h:
        def cols(key: str) -> str:
            return ",".join(str(c) for c in h.get(key) or ()) or "none"
        free = " ".join("-" if r is None else str(r) for r in h.get("next_row") or ())
        lines.append(f"hints: next free row per column {free}  |  you win now: {cols('winning_moves')}  |  "
                     f"must block: {cols('must_block')}  |  losing moves: {cols('losing_moves')}")
    lines.append(json.dumps(st, separators=(",", ":")))
    return "\n".join(lines)
