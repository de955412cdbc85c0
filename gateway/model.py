"""A game as stored in Redis, and the views clients see of it.

The stored document is plain JSON (0-based columns inside, like the library);
:func:`public_state` turns it into the API's state (1-based, derived fields),
:func:`bridge_state` into the Connect4-rs control-socket reply and
:func:`board_text` into the text board MCP tools return.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from functools import lru_cache

from connect4 import Geometry, Position, hints as compute_hints

COLORS = ("red", "yellow")  # red moves first
LETTER = {0: "R", 1: "Y", None: "."}
PROGRAM_KINDS = ("opponent",)


def new_id() -> str:
    return secrets.token_urlsafe(8).replace("-", "x").replace("_", "z")


def new_token() -> str:
    return secrets.token_urlsafe(18)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def same_token(token: str | None, digest: str | None) -> bool:
    return bool(token and digest and hmac.compare_digest(token_hash(token), digest))


@lru_cache(maxsize=64)
def geometry(width: int, height: int, k: int) -> Geometry:
    return Geometry(width, height, k)


def position(doc: dict) -> Position:
    return Position.from_moves(doc["moves"], geometry(doc["width"], doc["height"], doc["k"]))


def seat_of(doc: dict, token: str | None) -> str | None:
    """The colour whose player token this is, or None."""
    for color in COLORS:
        if same_token(token, doc["seats"][color].get("token_hash")):
            return color
    return None


def color_to_move(doc: dict) -> str:
    return COLORS[len(doc["moves"]) & 1]


def is_over(doc: dict) -> bool:
    return doc.get("result") is not None


def program_to_move(doc: dict) -> bool:
    """An opponent program must play now."""
    return not is_over(doc) and doc["seats"][color_to_move(doc)]["kind"] in PROGRAM_KINDS


def new_doc(*, width: int, height: int, k: int, seats: dict, think_ms: int, hints_on: bool,
            allow_analysis: bool) -> dict:
    now = time.time()
    return {
        "id": new_id(),
        "version": 0,
        "width": width,
        "height": height,
        "k": k,
        "seats": seats,
        "moves": [],
        "think_ms": think_ms,
        "hints_on": hints_on,
        "allow_analysis": allow_analysis,
        "last_search": None,
        "resigned": False,
        "result": None,
        "winning_cells": [],
        "message": "",
        "created": now,
        "updated": now,
    }


def settle(doc: dict, pos: Position) -> None:
    """Recompute result and winning cells from the position (keeps a resignation)."""
    if pos.winner is not None:
        doc["result"] = {"winner": COLORS[pos.winner], "reason": "line"}
        doc["winning_cells"] = sorted([c + 1, r + 1] for c, r in pos.winning_line_cells())
        doc["resigned"] = False
    elif pos.is_draw:
        doc["result"] = {"winner": None, "reason": "draw"}
        doc["winning_cells"] = []
        doc["resigned"] = False
    elif doc.get("resigned"):
        pass  # result already says who resigned
    else:
        doc["result"] = None
        doc["winning_cells"] = []


def rows(pos: Position) -> list[str]:
    g = pos.geometry
    return board_rows(pos.moves, g.width, g.height)


def board_rows(moves: list[int], width: int, height: int) -> list[str]:
    """Top row first, ``R``/``Y``/``.``, straight from the move list (no bitboards needed)."""
    grid = [["."] * width for _ in range(height)]
    heights = [0] * width
    for i, c in enumerate(moves):
        grid[heights[c]][c] = "Y" if i & 1 else "R"
        heights[c] += 1
    return ["".join(grid[r]) for r in range(height - 1, -1, -1)]


def hints_json(pos: Position) -> dict:
    h = compute_hints(pos)
    return {
        "next_row": [None if r is None else r + 1 for r in h.next_row],
        "winning_moves": [c + 1 for c in h.winning_moves],
        "must_block": [c + 1 for c in h.must_block],
        "losing_moves": [c + 1 for c in h.losing_moves],
    }


def status(doc: dict) -> str:
    if is_over(doc):
        return "over"
    seat = doc["seats"][color_to_move(doc)]
    if seat["kind"] in PROGRAM_KINDS:
        return "thinking"
    if not seat.get("joined", True):
        return "waiting_for_player"
    return "to_move"


def public_state(doc: dict, public_url: str, you: str | None = None, pos: Position | None = None) -> dict:
    """The API's view of a game. Built from the move list; a Position is made only
    for hints (pass ``pos`` when there is one at hand)."""
    moves = doc["moves"]
    over = is_over(doc)
    last_move = None
    if moves:
        col = moves[-1]
        last_move = {"column": col + 1, "row": moves.count(col), "color": COLORS[(len(moves) - 1) & 1]}
    st = status(doc)
    hints = None
    if doc["hints_on"] and st == "to_move":
        hints = hints_json(pos if pos is not None else position(doc))
    return {
        "id": doc["id"],
        "version": doc["version"],
        "width": doc["width"],
        "height": doc["height"],
        "k": doc["k"],
        "seats": {
            c: {"kind": s["kind"], "spec": s.get("spec"), "joined": s.get("joined", True)}
            for c, s in doc["seats"].items()
        },
        "you": you,
        "moves": [c + 1 for c in moves],
        "ply": len(moves),
        "to_move": None if over else color_to_move(doc),
        "status": st,
        "result": doc["result"],
        "winning_cells": doc["winning_cells"],
        "rows": board_rows(moves, doc["width"], doc["height"]),
        "last_move": last_move,
        "last_search": doc["last_search"],
        "think_ms": doc["think_ms"],
        "hints_on": doc["hints_on"],
        "hints": hints,
        "allow_analysis": doc["allow_analysis"],
        "resigned": doc["resigned"],
        "message": doc["message"],
        "created": doc["created"],
        "updated": doc["updated"],
        "next_game": doc.get("next_game"),  # the game its player started after this one (bridge, MCP)
        "watch_url": watch_url(public_url, doc["id"]),
    }


def watch_url(public_url: str, game_id: str) -> str:
    return f"{public_url.rstrip('/')}/?game={game_id}"


def invite_url(public_url: str, game_id: str, invite: str) -> str:
    return f"{public_url.rstrip('/')}/?game={game_id}&invite={invite}"


# -- the Connect4-rs control socket view ------------------------------------------

def bridge_state(doc: dict, human: str, public_url: str, token: str | None = None) -> dict:
    if doc["result"] is not None:
        winner = doc["result"]["winner"]
        status_ = "draw" if winner is None else {"won": "human" if winner == human else "engine"}
    else:
        status_ = "human_to_move" if color_to_move(doc) == human else "thinking"
    out: dict = {
        "rows": board_rows(doc["moves"], doc["width"], doc["height"]),
        "status": status_,
        "human": human,
        "to_move": color_to_move(doc),
        "history": [c + 1 for c in doc["moves"]],
        "last_search": None,
        "message": doc["message"],
    }
    ls = doc.get("last_search")
    if ls:
        search = {k: ls[k] for k in ("col", "score", "depth", "nodes", "millis")}
        if ls.get("book"):
            search["book"] = True
        out["last_search"] = search
    if doc["resigned"]:
        out["resigned"] = True
    if doc["hints_on"] and status_ == "human_to_move":
        out["hints"] = hints_json(position(doc))
    out["game"] = doc["id"]
    if token:
        out["token"] = token
    out["watch_url"] = watch_url(public_url, doc["id"])
    return out


# -- text board for MCP ------------------------------------------------------------

def board_text(state: dict) -> str:
    lines = [" ".join(row) for row in state["rows"]]
    lines.append(" ".join(str((c + 1) % 10) for c in range(state["width"])))
    h = state.get("hints")
    if state.get("hints_on") and h:
        def fmt(cols):
            return " ".join(map(str, cols)) or "-"
        lines.append(
            f"hints: wins now {fmt(h['winning_moves'])} | must block {fmt(h['must_block'])} | loses at once {fmt(h['losing_moves'])}"
        )
    return "\n".join(lines)
