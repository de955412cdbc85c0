"""The arena's two shared interfaces: every player is a Player, both oracles are ExactOracles."""

import io

import pytest

from arena.oracle import GrpcOracle, Oracle
from arena.play import HumanPlayer
from arena.players import PlayerFactory
from arena.protocols import ExactOracle, Player
from connect4 import Position


@pytest.mark.parametrize("oracle", [Oracle, GrpcOracle])
def test_both_oracles_are_exact_oracles(oracle):
    assert issubclass(oracle, ExactOracle)


def test_a_class_without_best_move_is_not_an_exact_oracle():
    class Partial:
        def score(self, pos): ...
        def column_value(self, pos, col): ...
        def analyze(self, pos): ...

    assert not issubclass(Partial, ExactOracle)


@pytest.mark.parametrize("spec", ["random", "greedy", "minimax:2", "perfect"])
def test_ladder_and_perfect_players_are_players(spec):
    player = PlayerFactory(engine_books="none").make(spec, seed=1)
    try:
        assert isinstance(player, Player)
        assert 0 <= player.choose(Position.parse("44")).column < 7
    finally:
        player.close()


def test_a_person_at_the_terminal_is_a_player():
    assert isinstance(HumanPlayer(io.StringIO(""), io.StringIO()), Player)
