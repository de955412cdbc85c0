"""Paired openings: really paired, seat-balanced, reproducible, playable."""

from collections import Counter

import pytest

from arena.openings import game_seed, pairs, schedule
from connect4.openings import random_openings


def test_schedule_pairs_every_opening_with_both_seats():
    players = ["random", "greedy", "minimax:2"]
    openings = random_openings(5, 4, seed=11)
    slots = schedule(players, 10, openings, seed=11)
    assert len(slots) == 3 * 10
    assert pairs(players) == [("random", "greedy"), ("random", "minimax:2"), ("greedy", "minimax:2")]
    by_pair_opening = Counter()
    firsts = Counter()
    for s in slots:
        a, b = pairs(players)[s.pair]
        assert {s.first, s.second} == {a, b}
        by_pair_opening[(s.pair, s.opening, s.first)] += 1
        firsts[(s.pair, s.first)] += 1
    # every (pair, opening) appears exactly once with each player first
    for p, (a, b) in enumerate(pairs(players)):
        for k in range(5):
            assert by_pair_opening[(p, k, a)] == 1 and by_pair_opening[(p, k, b)] == 1
        assert firsts[(p, a)] == firsts[(p, b)] == 5
    assert len({s.seed for s in slots}) == len(slots)


def test_schedule_rejects_odd_games_too_few_openings_and_duplicates():
    openings = random_openings(2, 4, seed=1)
    with pytest.raises(ValueError, match="even"):
        schedule(["a", "b"], 3, openings, 1)
    with pytest.raises(ValueError, match="openings"):
        schedule(["a", "b"], 6, openings, 1)
    with pytest.raises(ValueError, match="once"):
        schedule(["a", "a"], 2, openings, 1)


def test_game_seeds_depend_only_on_the_place_in_the_schedule():
    assert game_seed(1, 0, 3, 1) == game_seed(1, 0, 3, 1)
    assert game_seed(1, 0, 3, 1) != game_seed(1, 0, 3, 0)


def test_gauntlet_pairs_the_first_player_with_each_other_only():
    players = ["engine:100", "greedy", "gated", "hard"]
    assert pairs(players, gauntlet=True) == [("engine:100", "greedy"), ("engine:100", "gated"), ("engine:100", "hard")]
    slots = schedule(players, 2, random_openings(1, 0, seed=1), seed=1, gauntlet=True)
    assert len(slots) == 6
    assert sorted((s.first, s.second) for s in slots if s.first == "engine:100") == [
        ("engine:100", "gated"), ("engine:100", "greedy"), ("engine:100", "hard")]
    # from the empty board (0 plies) every opening is the same, empty one
    assert random_openings(3, 0, seed=1) == [[], [], []]
