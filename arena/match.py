"""One game between two players from an opening.

The game is played to the end: a player that proves its own loss and
resigns still has its move played, because a weaker opponent may yet fail to
win (the resignation is recorded). A player that answers an illegal column
or fails to answer loses the game by forfeit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from connect4 import STANDARD, Geometry, IllegalMove, Position

from .players import MoveInfo, PlayerError
from .protocols import Player


@dataclass
class SideStats:
    moves: int = 0
    nodes: int = 0
    ms: float = 0.0
    book_moves: int = 0
    resigned_at: int | None = None  # ply at which it first resigned

    def add(self, info: MoveInfo, ply: int) -> None:
        self.moves += 1
        self.nodes += info.nodes
        self.ms += info.elapsed_ms
        self.book_moves += bool(info.book)
        if info.resign and self.resigned_at is None:
            self.resigned_at = ply

    def to_json(self) -> dict:
        return {"moves": self.moves, "nodes": self.nodes, "ms": round(self.ms, 3), "book_moves": self.book_moves,
                "resigned_at": self.resigned_at}


@dataclass
class GameRecord:
    """``first`` makes the first move after the opening; ``result`` is the first's score (1, 0.5, 0)."""

    first: str
    second: str
    opening: list[int]
    moves: list[int] = field(default_factory=list)  # the whole game, opening included, 0-based
    result: float | None = None
    reason: str = ""  # "line", "full", "forfeit: ..."
    stats: dict[str, SideStats] = field(default_factory=dict)  # by seat: "first", "second"
    pair: int = 0
    opening_index: int = 0
    seed: int = 0

    @property
    def first_color(self) -> int:
        """FIRST (0) when the first mover after the opening has the first player's stones."""
        return len(self.opening) % 2

    def result_of(self, spec: str) -> float:
        """``spec``'s score in this game (1, 0.5, 0); ValueError for a game not played to its end."""
        if self.result is None:
            raise ValueError(f"the game {self.first} against {self.second} has no result yet")
        if spec == self.first:
            return self.result
        if spec == self.second:
            return 1 - self.result
        raise KeyError(spec)

    def to_json(self) -> dict:
        return {
            "pair": self.pair,
            "opening_index": self.opening_index,
            "seed": self.seed,
            "first": self.first,
            "second": self.second,
            "opening": [c + 1 for c in self.opening],
            "moves": [c + 1 for c in self.moves],
            "plies": len(self.moves),
            "result": self.result,
            "reason": self.reason,
            "stats": {seat: s.to_json() for seat, s in self.stats.items()},
        }


def play_game(first: Player, second: Player, opening: list[int], geometry: Geometry = STANDARD,
              on_move=None) -> GameRecord:
    """Play from ``opening`` with ``first`` to move; ``on_move(pos, seat, info)`` after each chosen move."""
    pos = Position.from_moves(opening, geometry)
    if pos.is_over:
        raise ValueError("the opening already ends the game")
    rec = GameRecord(first.spec, second.spec, list(opening), stats={"first": SideStats(), "second": SideStats()})
    seats = {0: ("first", first), 1: ("second", second)}
    turn = 0
    while not pos.is_over:
        seat, player = seats[turn]
        try:
            info = player.choose(pos)
            pos.check_move(info.column)
        except Exception as exc:  # noqa: BLE001 - any failure of a player loses its game, never the run
            what = str(exc) if isinstance(exc, (PlayerError, IllegalMove)) else f"{type(exc).__name__}: {exc}"
            rec.result = 0.0 if seat == "first" else 1.0
            rec.reason = f"forfeit by {seat} ({player.spec}) at ply {pos.ply + 1}: {what}"
            rec.moves = list(pos.moves)
            return rec
        rec.stats[seat].add(info, pos.ply + 1)
        pos.play(info.column)
        if on_move is not None:
            on_move(pos, seat, info)
        turn ^= 1
    rec.moves = list(pos.moves)
    if pos.winner is None:
        rec.result, rec.reason = 0.5, "full"
    else:
        first_won = pos.winner == rec.first_color
        rec.result, rec.reason = (1.0 if first_won else 0.0), "line"
    return rec
