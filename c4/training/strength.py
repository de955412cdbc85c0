"""Strength during training: paired random 4-ply openings against ladder
players, both seats (as the arena plays them), scored 1 / 0.5 / 0."""

from __future__ import annotations

from collections.abc import Callable

from connect4 import STANDARD, Position
from connect4.openings import random_openings

Chooser = Callable[[Position], int]  # 0-based column for a position whose game goes on


def score_against(choose: Chooser, opponent: str, pairs: int, seed: int) -> dict:
    """{'score': share of points, 'wins', 'draws', 'losses', 'games'} of ``choose`` against ``opponent``."""
    from engine_svc.players import make_player

    wins = draws = losses = 0
    for k, opening in enumerate(random_openings(pairs, 4, seed)):
        for seat in (0, 1):
            opp = make_player(opponent, STANDARD, seed=seed * 7919 + 2 * k + seat)
            pos = Position.from_moves(opening)
            while not pos.is_over:
                mine = pos.ply % 2 == (len(opening) + seat) % 2
                pos.play(choose(pos) if mine else opp.choose(pos).column)
            if pos.winner is None:
                draws += 1
            elif pos.winner == (len(opening) + seat) % 2:
                wins += 1
            else:
                losses += 1
    games = 2 * pairs
    return {"score": (wins + 0.5 * draws) / games, "wins": wins, "draws": draws, "losses": losses, "games": games}
