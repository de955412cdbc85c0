"""perft counts: the exact oracle for move generation and game-over detection."""

import pytest

from connect4 import Geometry, Position
from connect4.perft import perft

PERFT_7x6 = [7, 49, 343, 2401, 16807, 117649, 823536, 5673234]
PERFT_4x4 = [4, 16, 64, 256, 1020, 4020, 15540, 57504]


@pytest.mark.parametrize("depth,expected", list(enumerate(PERFT_7x6, 1)))
def test_perft_7x6(depth, expected):
    assert perft(Position(), depth) == expected


@pytest.mark.parametrize("depth,expected", list(enumerate(PERFT_4x4, 1)))
def test_perft_4x4(depth, expected):
    assert perft(Position(Geometry(4, 4)), depth) == expected


def test_perft_depth_zero_and_finished_game():
    assert perft(Position(), 0) == 1
    won = Position.parse("1212121")
    assert won.is_over and perft(won, 1) == 0


def _perft_python(pos: Position, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for col in pos.legal_moves():
        pos.play(col)
        total += _perft_python(pos, depth - 1)
        pos.undo()
    return total


@pytest.mark.parametrize("g", [Geometry(5, 4, 3), Geometry(4, 5, 3), Geometry(6, 5, 5), Geometry(3, 3, 2)])
def test_perft_kernel_matches_position_play_on_other_sizes(g):
    for depth in range(1, 6):
        assert perft(Position(g), depth) == _perft_python(Position(g), depth)
