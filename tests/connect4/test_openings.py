"""Random playable openings (connect4.openings), the start of every match."""

import pytest

from connect4 import Geometry, Position
from connect4.openings import decided_at_once, random_openings


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


def exact_within(pos, depth):
    """+1 if the side to move wins within ``depth`` plies, -1 if it loses within them, else 0 (plain search)."""
    if depth == 0:
        return 0
    best = -1
    for m in pos.legal_moves():
        child = pos.played(m)
        if child.winner is not None:
            return 1
        v = 0 if child.is_over else -exact_within(child, depth - 1)
        best = max(best, v)
    return best


def test_decided_at_once_by_hand():
    assert decided_at_once(Position.parse("4457"))       # d1 e1: c1 or f1 makes an open three
    assert decided_at_once(Position.parse("5131"))       # c1 e1: d1 makes an open three
    assert decided_at_once(Position.parse("27374"))      # b1 c1 d1 already open at a1 and e1: the second player loses
    assert exact_within(Position.parse("4457"), 3) == 1 and exact_within(Position.parse("27374"), 3) == -1
    assert not decided_at_once(Position.parse("4444"))
    assert not decided_at_once(Position())


@pytest.mark.parametrize("g, plies", [(Geometry(7, 6), (4, 6, 8, 10)), (Geometry(5, 4, 3), (2, 3, 4, 5))])
def test_decided_at_once_equals_a_plain_three_ply_search(g, plies):
    import random

    rng = random.Random(11)
    checked = decided = 0
    while checked < 150:
        pos = Position(g)
        for _ in range(rng.choice(plies)):
            legal = pos.legal_moves()
            if not legal or pos.is_over:
                break
            pos.play(rng.choice(legal))
        if pos.is_over:
            continue
        want = exact_within(pos, 3) != 0
        assert decided_at_once(pos) == want, pos.moves
        checked += 1
        decided += want
    assert 0 < decided < checked  # both kinds were seen
