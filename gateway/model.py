"""The API's view of a game (:func:`public_state`), tokens and links.

The stored document is :class:`gateway.document.Game`; the Connect4-rs bridge
reply is in :mod:`gateway.rs_format`, the MCP results in :mod:`gateway.mcp_results`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from connect4 import Position
from connect4 import hints as compute_hints

from .document import COLORS, Game


def new_id() -> str:
    return secrets.token_urlsafe(8).replace("-", "x").replace("_", "z")


def new_token() -> str:
    return secrets.token_urlsafe(18)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def same_token(token: str | None, digest: str | None) -> bool:
    return bool(token and digest and hmac.compare_digest(token_hash(token), digest))


def seat_of(game: Game, token: str | None) -> str | None:
    """The colour whose player token this is, or None."""
    for color in COLORS:
        if same_token(token, game.seats[color].token_hash):
            return color
    return None


def board_rows(moves: list[int], width: int, height: int) -> list[str]:
    """Top row first, ``R``/``Y``/``.``, straight from the move list (no bitboards needed)."""
    grid = [["."] * width for _ in range(height)]
    heights = [0] * width
    for i, c in enumerate(moves):
        grid[heights[c]][c] = "Y" if i & 1 else "R"
        heights[c] += 1
    return ["".join(grid[r]) for r in range(height - 1, -1, -1)]


def board_lines(rows: list[str]) -> list[str]:
    """The board as text, top row first, then the column numbers. Up to 9 columns one
    character a cell (``R Y .``, Connect4-rs's look); wider boards two a cell so the
    numbers 10..16 stand under their columns."""
    if not rows:
        return []
    cell = 1 if len(rows[0]) <= 9 else 2
    lines = [" ".join(c.rjust(cell) for c in row) for row in rows]
    lines.append(" ".join(str(c + 1).rjust(cell) for c in range(len(rows[0]))))
    return lines


def hints_json(pos: Position) -> dict[str, Any]:
    h = compute_hints(pos)
    return {
        "next_row": [None if r is None else r + 1 for r in h.next_row],
        "winning_moves": [c + 1 for c in h.winning_moves],
        "must_block": [c + 1 for c in h.must_block],
        "losing_moves": [c + 1 for c in h.losing_moves],
    }


def status(game: Game) -> str:
    if game.is_over:
        return "over"
    seat = game.seats[game.color_to_move]
    if seat.is_program:
        return "thinking"
    if not seat.joined:
        return "waiting_for_player"
    return "to_move"


def public_state(game: Game, public_url: str, you: str | None = None, pos: Position | None = None) -> dict[str, Any]:
    """The API's view of a game. Built from the move list; a Position is made only
    for hints (pass ``pos`` when there is one at hand)."""
    moves = game.moves
    over = game.is_over
    last_move = None
    if moves:
        col = moves[-1]
        last_move = {"column": col + 1, "row": moves.count(col), "color": COLORS[(len(moves) - 1) & 1]}
    st = status(game)
    hints = None
    if game.hints_for(you) and st == "to_move":  # a player's own hints; watchers see none
        hints = hints_json(pos if pos is not None else game.position())
    return {
        "id": game.id,
        "version": game.version,
        "width": game.width,
        "height": game.height,
        "k": game.k,
        "seats": {c: {"kind": s.kind, "spec": s.spec, "joined": s.joined, "hints_on": s.hints,
                      "allow_analysis": s.allow_analysis, "guarded": s.guarded} for c, s in game.seats.items()},
        "you": you,
        "moves": [c + 1 for c in moves],
        "ply": len(moves),
        "to_move": None if over else game.color_to_move,
        "status": st,
        "result": game.result,
        "winning_cells": game.winning_cells,
        "rows": board_rows(moves, game.width, game.height),
        "last_move": last_move,
        "last_search": game.last_search,
        "think_ms": game.think_ms,
        "hints_on": game.seats[you].hints if you else game.hints_on,
        "hints": hints,
        "allow_analysis": game.analysis_open,
        "resigned": game.resigned,
        "message": game.message,
        "created": game.created,
        "updated": game.updated,
        "next_game": game.next_game,  # the game its player started after this one (bridge, MCP)
        "guarded": bool(you and game.seats[you].guarded),  # the gate checks your moves
        "override": game.override,  # the gate's verdict on the last person's move, when it failed a check
        "watch_url": watch_url(public_url, game.id),
    }


def watch_url(public_url: str, game_id: str) -> str:
    return f"{public_url.rstrip('/')}/?game={game_id}"


def invite_url(public_url: str, game_id: str, invite: str) -> str:
    return f"{public_url.rstrip('/')}/?game={game_id}&invite={invite}"
