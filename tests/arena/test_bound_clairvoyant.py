"""A bare ``clairvoyant`` in the arena and in an audit plays against its opponent's actual policy."""

import io

import pytest

from arena.players import PlayerError, PlayerFactory, check_pairings
from arena.runner import ArenaConfig, run_arena
from connect4 import Position
from engine_svc.players import make_player


def test_the_arena_binds_a_bare_clairvoyant_to_each_opponent():
    raw = run_arena(ArenaConfig(["clairvoyant", "greedy", "noisy_greedy"], 2, 4, 5), io.StringIO())
    assert len(raw["games"]) == 6
    for game in raw["games"]:
        assert {game["first"], game["second"]} <= {"clairvoyant", "greedy", "noisy_greedy"}
        if "clairvoyant" not in (game["first"], game["second"]):
            continue
        other = game["second"] if game["first"] == "clairvoyant" else game["first"]
        bound = make_player(f"clairvoyant:{other}")
        mine = len(game["opening"]) % 2 if game["first"] == "clairvoyant" else 1 - len(game["opening"]) % 2
        pos = Position.from_moves([c - 1 for c in game["opening"]])
        for c in game["moves"][len(game["opening"]):]:
            if pos.to_move == mine:
                assert bound.choose(pos).column == c - 1  # the move clairvoyant:OPPONENT makes
            pos.play(c - 1)


def test_a_bare_clairvoyant_against_an_unknowable_player_is_refused_before_any_game():
    with pytest.raises(PlayerError, match="clairvoyant against 'engine:100'.*cannot know the policy"):
        check_pairings(["clairvoyant", "greedy", "engine:100"])
    check_pairings(["greedy", "engine:100", "clairvoyant"], gauntlet=True)  # a gauntlet: it meets greedy only
    with pytest.raises(PlayerError):
        check_pairings(["engine:100", "clairvoyant"], gauntlet=True)
    check_pairings(["clairvoyant:greedy", "engine:100"])  # its opponent named: it plays as told


def test_the_factory_keeps_the_bare_name_for_the_records():
    p = PlayerFactory().make("clairvoyant", seed=1, opponent="greedy")
    assert p.spec == "clairvoyant"
    assert p.choose(Position.parse("4453")).column == make_player("clairvoyant:greedy").choose(
        Position.parse("4453")).column
