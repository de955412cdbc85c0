"""Positions from real games of the ladder, at every ply.

Games are played between players drawn from ``POOL`` (both seats, each game
after a random opening of 0..4 plies so the early plies vary too). Every
position before the end is kept once (mirror images count once). Everything
follows from the seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from connect4 import STANDARD, Position
from connect4.openings import random_openings

POOL = ("random", "easy", "greedy", "medium", "gated", "minimax:3", "minimax:5", "hard")


@dataclass(frozen=True)
class Sample:
    moves: tuple[int, ...]  # 0-based columns from the empty board


def ladder_positions(games: int, seed: int, pool=POOL, progress=None) -> list[Sample]:
    """Distinct positions of ``games`` ladder games (canonical keys)."""
    from engine_svc.players import make_player

    rng = random.Random(seed)
    seen: set[int] = set()
    out: list[Sample] = []
    for i in range(games):
        a, b = rng.choice(pool), rng.choice(pool)
        plies = rng.randint(0, 4)
        opening = random_openings(1, plies, seed * 1_000_003 + i)[0] if plies else []
        players = [make_player(a, STANDARD, seed=rng.randrange(1 << 30)),
                   make_player(b, STANDARD, seed=rng.randrange(1 << 30))]
        pos = Position.from_moves(opening)
        while not pos.is_over:
            key = pos.canonical_key()
            if key not in seen:
                seen.add(key)
                out.append(Sample(tuple(pos.moves)))
            pos.play(players[pos.ply % 2].choose(pos).column)
        if progress:
            progress(i + 1, len(out))
    return out
