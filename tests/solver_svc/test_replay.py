"""The service's fast replay of a request's moves gives what
Position.from_moves gives: the same position, or the same error."""

from __future__ import annotations

import random

import pytest

from connect4 import Connect4Error, Geometry, Position, STANDARD
from solver_svc.service import replay


def outcome(make):
    try:
        p = make()
    except Connect4Error as exc:
        return ("error", str(exc))
    return ("position", p.current, p.mask, p.moves, p.winner, p.is_over, p.key())


def games(g: Geometry, rng: random.Random, n: int):
    """Random legal games cut anywhere (won ones included), some with one more
    move, plus random column lists (mostly illegal)."""
    for _ in range(n):
        p = Position(g)
        target = rng.randrange(g.cells + 1)
        while p.ply < target and not p.is_over:
            p.play(rng.choice(p.legal_moves()))
        extra = [rng.randrange(0, g.width + 2)] if rng.random() < 0.3 else []
        yield [c + 1 for c in p.moves] + extra
        yield [rng.randrange(0, g.width + 2) for _ in range(rng.randrange(g.cells + 2))]


@pytest.mark.parametrize("g", [STANDARD, Geometry(4, 4, 3), Geometry(6, 5), Geometry(8, 7, 5)], ids=lambda g: g.name)
def test_replay_equals_from_moves(g):
    rng = random.Random(g.cells)
    for moves in games(g, rng, 400):
        assert outcome(lambda: replay(moves, g)) == outcome(  # noqa: B023 (both called at once)
            lambda: Position.from_moves([m - 1 for m in moves], g)), moves  # noqa: B023
