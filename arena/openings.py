"""Paired random openings.

Every opening is a list of ``plies`` random legal moves from the empty board.
Each one is played twice for every pair of players: once with each player
making the first move after the opening, so whatever the opening gives the
side to move cancels out over the pair of games.

The openings themselves come from :mod:`connect4.openings`: they never end
the game, never leave the side to move an immediate win and are distinct
positions as long as enough exist.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class GameSlot:
    """One game of a pair: opening ``opening`` with ``first`` to move after it."""

    pair: int
    opening: int
    first: str
    second: str
    seed: int


def schedule(players: list[str], games_per_pair: int, openings: list[list[int]], seed: int,
             gauntlet: bool = False) -> list[GameSlot]:
    """Round robin: for every pair (a, b), opening k is played with a first and with b first.

    ``games_per_pair`` must be even and at most ``2 * len(openings)``; game
    seeds are distinct and depend only on (seed, pair, opening, seat).
    """
    if len(set(players)) != len(players):
        raise ValueError("every player may appear once; give distinct specs")
    if games_per_pair % 2:
        raise ValueError(f"--games must be even so every opening is played from both seats, got {games_per_pair}")
    need = games_per_pair // 2
    if need > len(openings):
        raise ValueError(f"{games_per_pair} games need {need} openings, only {len(openings)} given")
    slots = []
    for p, (a, b) in enumerate(pairs(players, gauntlet)):
        for k in range(need):
            slots.append(GameSlot(p, k, a, b, game_seed(seed, p, k, 0)))
            slots.append(GameSlot(p, k, b, a, game_seed(seed, p, k, 1)))
    return slots


def game_seed(seed: int, pair: int, opening: int, seat: int) -> int:
    """A 32-bit seed for one game, a hash of where it sits in the schedule."""
    digest = hashlib.sha256(f"{seed}:{pair}:{opening}:{seat}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


def pairs(players: list[str], gauntlet: bool = False) -> list[tuple[str, str]]:
    """Every unordered pair, in the order the players were given; a gauntlet
    pairs the first player with each of the others only."""
    if gauntlet:
        return [(players[0], other) for other in players[1:]]
    return [(players[i], players[j]) for i in range(len(players)) for j in range(i + 1, len(players))]
