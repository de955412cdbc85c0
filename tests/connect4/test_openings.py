"""Random playable openings (connect4.openings), the start of every match."""

import pytest

from connect4 import Geometry, Position
from connect4.openings import random_openings


def test_openings_are_reproducible_distinct_and_playable():
    a = random_openings(50, 4, seed=7)
    assert a == random_openings(50, 4, seed=7)
    assert a != random_openings(50, 4, seed=8)
    assert len({Position.from_moves(o).canonical_key() for o in a}) == 50
    for o in a:
        assert len(o) == 4
        pos = Position.from_moves(o)
        assert not pos.is_over and not pos.can_win_next()


def test_openings_never_leave_a_win_in_one():
    # 8 random plies leave immediate wins often enough that the filter has work to do
    for o in random_openings(200, 8, seed=3):
        pos = Position.from_moves(o)
        assert not pos.is_over and not pos.can_win_next()


def test_openings_on_another_board_and_bad_sizes():
    g = Geometry(5, 4, 3)
    for o in random_openings(10, 3, seed=1, geometry=g):
        assert all(0 <= c < 5 for c in o)
    with pytest.raises(ValueError):
        random_openings(1, 42, seed=1)


def test_the_arena_and_c4_match_play_the_same_openings():
    from engine_svc.match import play_match

    m = play_match("random", "random", games=8, opening_plies=4, seed=5)
    assert [g.opening for g in m.games[::2]] == random_openings(4, 4, seed=5)
