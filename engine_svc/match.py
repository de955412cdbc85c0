"""Matches between two ladder players from paired random openings.

Arena-neutral and reusable: ``play_match("minimax:5", "greedy", games=200,
opening_plies=4, seed=0)``. Game 2i and 2i+1 start from the same random
opening of ``opening_plies`` moves; player A takes the side to move after the
opening in the first and player B in the second, so neither gains from the
openings. Games are played to the end (a resignation is advisory: a weaker
opponent may still fail to win).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Callable

from connect4 import STANDARD, Geometry, Position
from connect4.openings import random_openings

from .players import bind_opponent, make_player


@dataclass
class GameRecord:
    opening: list[int]
    a_first: bool              # A took the side to move after the opening
    moves: list[int]           # the whole game, 0-based
    winner: str | None         # "A", "B" or None for a draw


@dataclass
class MatchResult:
    a: str
    b: str
    games: list[GameRecord] = field(default_factory=list)

    @property
    def wins_a(self) -> int:
        return sum(g.winner == "A" for g in self.games)

    @property
    def wins_b(self) -> int:
        return sum(g.winner == "B" for g in self.games)

    @property
    def draws(self) -> int:
        return sum(g.winner is None for g in self.games)

    @property
    def win_rate_a(self) -> float:
        return self.wins_a / len(self.games) if self.games else 0.0

    def summary(self) -> dict:
        n = len(self.games)
        return {
            "a": self.a, "b": self.b, "games": n, "wins_a": self.wins_a, "wins_b": self.wins_b,
            "draws": self.draws, "win_rate_a": round(self.win_rate_a, 4),
            "score_a": round((self.wins_a + 0.5 * self.draws) / n, 4) if n else 0.0,
        }


def play_game(player_a, player_b, opening: list[int], a_first: bool, geometry: Geometry = STANDARD,
              budget_ms: float | None = None) -> GameRecord:
    pos = Position.from_moves(opening, geometry)
    a_side = pos.to_move if a_first else 1 - pos.to_move
    while not pos.is_over:
        player = player_a if pos.to_move == a_side else player_b
        pos.play(player.choose(pos, budget_ms=budget_ms).column)
    winner = None
    if pos.winner is not None:
        winner = "A" if pos.winner == a_side else "B"
    return GameRecord(list(opening), a_first, list(pos.moves), winner)


def play_match(a: str, b: str, games: int = 200, opening_plies: int = 4, seed: int = 0,
               geometry: Geometry = STANDARD, budget_ms: float | None = None,
               on_game: Callable[[int, GameRecord, MatchResult], None] | None = None,
               tt_mb: float = 64.0, books=None) -> MatchResult:
    """``games`` games (rounded up to pairs) of spec ``a`` against spec ``b``;
    ``books`` (a BookSet or None) is what engine players consult first."""
    player_a = make_player(bind_opponent(a, b), geometry, seed=seed, tt_mb=tt_mb, books=books)  # a bare clairvoyant
    player_b = make_player(bind_opponent(b, a), geometry, seed=seed + 1, tt_mb=tt_mb, books=books)  # knows its opponent
    result = MatchResult(a, b)
    pairs = (games + 1) // 2
    for opening in random_openings(pairs, opening_plies, seed, geometry):
        for a_first in (True, False):
            record = play_game(player_a, player_b, opening, a_first, geometry, budget_ms)
            result.games.append(record)
            if on_game is not None:
                on_game(len(result.games), record, result)
    return result
