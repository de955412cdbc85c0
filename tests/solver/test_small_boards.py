"""Other board sizes and line lengths against brute-force minimax, and John
Tromp's table of values by size."""

from __future__ import annotations

import random

import pytest

from connect4 import Geometry, Position
from solver_svc.solver import Solver



def random_position(g: Geometry, rng: random.Random, ply: int) -> Position | None:
    pos = Position(g)
    for _ in range(ply):
        moves = pos.legal_moves()
        if not moves:
            return None
        pos.play(rng.choice(moves))
        if pos.is_over:
            return None
    return pos


@pytest.mark.parametrize(
    "size,k,min_ply,count",
    [
        ("4x4", 4, 0, 40),
        ("5x4", 4, 8, 40),
        ("4x5", 4, 7, 30),
        ("4x3", 3, 0, 40),
        ("5x4", 3, 3, 40),
        ("3x3", 3, 0, 20),
        ("6x2", 3, 0, 20),
        ("3x5", 2, 0, 10),
        ("6x5", 5, 19, 10),
        ("8x7", 4, 42, 10),
        ("9x5", 4, 30, 10),
        ("4x15", 4, 44, 10),  # the longest keys of a single word (64 bits), as 2x31 was before boards were capped at 16
        ("16x1", 3, 6, 10),
    ],
)
def test_matches_brute_force(size, k, min_ply, count, brute_score):
    g = Geometry.parse(size, k)
    rng = random.Random(f"{size}k{k}")
    solver = Solver(g, tt_log2=18)
    memo: dict = {}
    checked = 0
    while checked < count:
        pos = random_position(g, rng, rng.randint(min_ply, g.cells - 1))
        if pos is None:
            continue
        want = brute_score(pos, memo)
        solver.reset()
        assert solver.solve(pos).score == want, f"{pos!r}"
        assert solver.solve(pos, weak=True).score == (want > 0) - (want < 0), f"{pos!r}"
        checked += 1


def test_table_shared_across_positions_of_small_board(brute_score):
    g = Geometry(5, 4, 4)
    rng = random.Random(7)
    solver = Solver(g, tt_log2=18)
    memo: dict = {}
    for _ in range(50):
        pos = random_position(g, rng, rng.randint(8, 16))
        if pos is not None:
            assert solver.solve(pos).score == brute_score(pos, memo), f"{pos!r}"


# John Tromp's values of the empty board: + first player wins, = draw, - second wins.
TROMP = {
    "4x4": "=", "5x4": "=", "6x4": "-", "7x4": "=", "4x5": "=", "5x5": "=", "6x5": "=",
    "7x5": "=", "4x6": "=", "5x6": "=", "6x6": "-", "7x6": "+", "4x7": "=", "5x7": "=",
    "6x7": "+", "7x7": "=", "8x4": "-", "8x5": "+", "8x6": "-", "8x7": "+",
}
QUICK = ["4x4", "5x4", "6x4", "4x5", "5x5", "4x6"]


def value_of(size: str) -> str:
    g = Geometry.parse(size)
    score = Solver(g, tt_log2=20).solve(Position(g), weak=True).score
    return {1: "+", 0: "=", -1: "-"}[score]


@pytest.mark.parametrize("size", QUICK)
def test_tromp_value(size):
    assert value_of(size) == TROMP[size]


@pytest.mark.full
@pytest.mark.parametrize("size", [s for s in TROMP if s not in QUICK])
def test_tromp_value_large(size):
    assert value_of(size) == TROMP[size]


def test_brute_force_reference_itself(brute_score):
    """The reference agrees with known facts: 4x4 empty is a draw, an
    immediate win scores (cells+1-ply)//2."""
    g = Geometry(4, 4, 4)
    assert brute_score(Position(g)) == 0
    pos = Position.from_moves([0, 1, 0, 1, 0, 1], g)
    assert brute_score(pos) == (16 + 1 - 6) // 2
