"""The game document stored in Redis: typed, with its one (de)serializer.

Inside, columns are 0-based like the library's; every view a client sees is
built from a :class:`Game` in :mod:`gateway.model` (API), :mod:`gateway.rs_format`
(the Connect4-rs bridge) and :mod:`gateway.mcp_results` (MCP). The JSON layout
is the one games were always stored in, so games saved by an older gateway load.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from connect4 import Geometry, Position

COLORS = ("red", "yellow")  # red moves first
PROGRAM_KINDS = ("opponent",)  # seats a program plays; "human" and "llm" seats are persons


def other_color(color: str) -> str:
    return COLORS[1 - COLORS.index(color)]


@lru_cache(maxsize=64)
def geometry(width: int, height: int, k: int) -> Geometry:
    return Geometry(width, height, k)


@dataclass
class Seat:
    """One side of the board: a person (``human``, ``llm``) or a program (``opponent``)."""

    kind: str
    spec: str | None = None  # the opponent program's player spec
    joined: bool = True  # False: a person's seat still waiting for its invite
    token_hash: str | None = None  # SHA-256 of the player token (never the token)
    invite_hash: str | None = None  # SHA-256 of the open seat's invite
    hints: bool = False  # this person sees hints (for its own moves only)
    allow_analysis: bool = False  # this person lets anyone analyse the game while it is played
    guarded: bool = False  # the gate checks this person's moves (gateway.guarding)

    @property
    def is_program(self) -> bool:
        return self.kind in PROGRAM_KINDS

    def player(self) -> tuple[str, str | None, bool, str | None]:
        """Who sits here (not the person's switches: hints, analysis)."""
        return self.kind, self.spec, self.joined, self.token_hash

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "spec": self.spec, "joined": self.joined, "token_hash": self.token_hash,
                "invite_hash": self.invite_hash, "hints": self.hints, "allow_analysis": self.allow_analysis,
                "guarded": self.guarded}

    @classmethod
    def from_dict(cls, d: dict[str, Any], hints: bool = False, allow_analysis: bool = False) -> Seat:
        """``hints``, ``allow_analysis``: the game's own flags, for a game saved before
        they were per seat."""
        kind = d["kind"]
        person = kind not in PROGRAM_KINDS
        return cls(kind=kind, spec=d.get("spec"), joined=d.get("joined", True),
                   token_hash=d.get("token_hash"), invite_hash=d.get("invite_hash"),
                   hints=bool(d.get("hints", hints and person)),
                   allow_analysis=bool(d.get("allow_analysis", allow_analysis and person)),
                   guarded=bool(d.get("guarded", False)))


@dataclass
class Game:
    id: str
    width: int
    height: int
    k: int
    seats: dict[str, Seat]  # by colour, red first
    moves: list[int] = field(default_factory=list)  # 0-based columns
    version: int = 0
    think_ms: int = 0  # the opponent's time per move; 0 = its spec's own
    allow_analysis: bool = True  # its creator's choice; between two people each seat's counts (analysis_open)
    last_search: dict[str, Any] | None = None  # the opponent's last search, as clients see it
    resigned: bool = False
    result: dict[str, Any] | None = None  # {"winner": colour or None, "reason": line | draw | resigned}
    winning_cells: list[list[int]] = field(default_factory=list)  # 1-based [column, row]
    message: str = ""
    created: float = 0.0
    updated: float = 0.0
    next_game: str | None = None  # the game its player started after this one (bridge, MCP)
    override: dict[str, Any] | None = None  # the gate's verdict on the last person's move (gateway.guarding)

    # -- (de)serializer ---------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "version": self.version, "width": self.width, "height": self.height, "k": self.k,
            "seats": {c: s.to_dict() for c, s in self.seats.items()}, "moves": self.moves,
            "think_ms": self.think_ms, "allow_analysis": self.allow_analysis,
            "last_search": self.last_search, "resigned": self.resigned, "result": self.result,
            "winning_cells": self.winning_cells, "message": self.message, "created": self.created,
            "updated": self.updated, "next_game": self.next_game, "override": self.override,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Game:
        hints, allow = bool(d.get("hints_on")), bool(d.get("allow_analysis", True))
        return cls(
            id=d["id"], version=int(d["version"]), width=d["width"], height=d["height"], k=d["k"],
            seats={c: Seat.from_dict(d["seats"][c], hints, allow) for c in COLORS}, moves=list(d["moves"]),
            think_ms=int(d.get("think_ms") or 0),
            allow_analysis=allow, last_search=d.get("last_search"),
            resigned=bool(d.get("resigned")), result=d.get("result"), winning_cells=d.get("winning_cells") or [],
            message=d.get("message") or "", created=d.get("created", 0.0), updated=d.get("updated", 0.0),
            next_game=d.get("next_game"), override=d.get("override"),
        )

    @classmethod
    def from_json(cls, raw: str | bytes) -> Game:
        return cls.from_dict(json.loads(raw))

    def copy(self) -> Game:
        """An independent copy (seats and moves are not shared)."""
        return Game.from_dict(json.loads(self.to_json()))

    # -- what the rules say -------------------------------------------------------------
    @property
    def geometry(self) -> Geometry:
        return geometry(self.width, self.height, self.k)

    def position(self, moves: list[int] | None = None) -> Position:
        return Position.from_moves(self.moves if moves is None else moves, self.geometry)

    @property
    def color_to_move(self) -> str:
        return COLORS[len(self.moves) & 1]

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def program_to_move(self) -> bool:
        """An opponent program must play now."""
        return not self.is_over and self.seats[self.color_to_move].is_program

    @property
    def between_people(self) -> bool:
        """Two persons play (both seats joined)."""
        return all(not s.is_program and s.joined for s in self.seats.values())

    @property
    def analysis_open(self) -> bool:
        """May anyone ask for exact analysis now? Between two people, while the
        game is played, only when both allow it; once it is over, always."""
        if self.between_people:
            return self.is_over or all(s.allow_analysis for s in self.seats.values())
        return self.allow_analysis

    def hints_for(self, color: str | None) -> bool:
        """Does the person at ``color`` get hints now (its own turn, its hints on)?"""
        return (color is not None and self.seats[color].hints and not self.is_over
                and self.color_to_move == color and self.seats[color].joined)

    @property
    def hints_on(self) -> bool:
        """Some person of the game has hints on (what a watcher's view says)."""
        return any(s.hints for s in self.seats.values())

    def same_turn(self, other: Game) -> bool:
        """The same moves and the same players (a change of switches or think time
        leaves an opponent's turn as it was)."""
        return self.moves == other.moves and all(
            self.seats[c].player() == other.seats[c].player() for c in COLORS)

    def against_person(self, color: str) -> bool:
        """The other seat is a person (or an agent) who has joined."""
        other = self.seats[other_color(color)]
        return not other.is_program and other.joined

    def settle(self, pos: Position) -> None:
        """Recompute result and winning cells from the position (keeps a resignation)."""
        if pos.winner is not None:
            self.result = {"winner": COLORS[pos.winner], "reason": "line"}
            self.winning_cells = sorted([c + 1, r + 1] for c, r in pos.winning_line_cells())
            self.resigned = False
        elif pos.is_draw:
            self.result = {"winner": None, "reason": "draw"}
            self.winning_cells = []
            self.resigned = False
        elif self.resigned:
            pass  # result already says who resigned
        else:
            self.result = None
            self.winning_cells = []
