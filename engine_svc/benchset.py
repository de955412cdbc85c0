"""The fixed benchmark positions of ``c4 bench engine``: 100 middle-game
positions made deterministically from a seed (random playouts of 10 to 20
plies where the game goes on and nobody can win at once)."""

from __future__ import annotations

import random

from connect4 import STANDARD, Geometry, Position

BENCH_SEED = 20261130


def middle_game_positions(count: int = 100, seed: int = BENCH_SEED, geometry: Geometry = STANDARD) -> list[Position]:
    rng = random.Random(seed)
    out: list[Position] = []
    seen: set[int] = set()
    while len(out) < count:
        plies = rng.randint(10, 20)
        pos = Position(geometry)
        while pos.ply < plies and not pos.is_over:
            pos.play(rng.choice(pos.legal_moves()))
        if pos.is_over or pos.can_win_next() or len(pos.non_losing_moves()) < 2:
            continue
        if pos.key() in seen:
            continue
        seen.add(pos.key())
        out.append(pos)
    return out
