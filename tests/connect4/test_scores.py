"""Pons' scores against the stone that ends the game, on every board size's plies."""

import pytest

from connect4 import Geometry
from connect4.scores import end_ply, plies_to_end


@pytest.mark.parametrize("g", [Geometry(7, 6, 4), Geometry(6, 5, 4), Geometry(5, 4, 3), Geometry(4, 4, 3)],
                         ids=lambda g: g.name)
def test_end_ply_inverts_the_score_of_every_winning_stone(g):
    for p in range(1, g.cells + 1):  # the winning stone's ply; its player moved first iff p is odd
        winner_score = (g.cells + 2 - p) // 2
        for ply in range(p):  # every earlier position, either side to move
            mover_wins = ply % 2 == (p - 1) % 2
            score = winner_score if mover_wins else -winner_score
            assert end_ply(score, ply, g) == p
            assert plies_to_end(score, ply, g) == p - ply
    assert end_ply(0, 3, g) == g.cells and plies_to_end(0, 3, g) == g.cells - 3
