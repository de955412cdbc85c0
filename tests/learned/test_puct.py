"""PUCT with a uniform prior and a zero value behaves as its module documents."""

import numpy as np

from connect4 import Position
from engine_svc.learned import puct


def run(moves: str, sims: int, batch: int = 1):
    pos = Position.parse(moves) if moves else Position()
    root, done = puct.search(pos.current, pos.mask, pos.ply, sims, puct.uniform_evaluator, batch=batch)
    assert done == sims
    return pos, root


def test_unvisited_columns_are_tried_centre_first_and_visits_spread_evenly():
    _, root = run("", 7)
    assert root.n == [1] * 7  # one each, in the order d c e b f a g
    _, root = run("", 70)
    assert root.n == [10] * 7  # no exact result within reach: Q stays 0, visits stay even
    assert puct.best_column(root) == 3  # the most central of equal counts


def test_a_winning_move_is_found():
    # d e d e d e a: the second player, to move, holds e1 e2 e3 and wins with e
    pos, root = run("4545451", 200)
    assert pos.winning_moves() == [4] and puct.best_column(root) == 4


def test_a_move_that_lets_the_opponent_win_at_once_is_avoided():
    # d e d e d: the first player threatens d4; the second to move must block d
    pos, root = run("45454", 400)
    assert pos.winning_cells(1 - pos.to_move) and puct.best_column(root) == 3
    q = [root.w[c] / root.n[c] for c in range(7) if c != 3 and root.n[c]]
    assert max(q) < 0  # every other column was seen to lose


def test_terminal_values_are_exact_and_backed_up_with_the_sign_flip():
    _, root = run("4545451", 50)  # the side to move wins with e
    e = root.children[4]
    assert e is not None and e.terminal == -1.0  # the opponent, to move there, has lost
    assert root.w[4] == root.n[4] > 1  # every visit of e valued +1 for the root's mover


def test_batched_leaves_spread_evenly_in_the_long_run():
    # a leaf two walks of a batch reach counts twice, so short runs lean to the centre
    _, root = run("", 16, batch=8)
    assert sum(root.n) == 16 and root.n[3] > max(root.n[c] for c in range(7) if c != 3)
    _, root = run("", 700, batch=8)
    assert sum(root.n) == 700 and max(root.n) - min(root.n) <= 2


def test_won_detects_every_direction():
    for moves, winner_has_line in (("1213141", True), ("1122334", True), ("121", False)):
        pos = Position.parse(moves)
        mover = pos.current ^ pos.mask
        assert puct.won(mover) == winner_has_line
    assert not puct.won(0)
    assert np.isclose(puct.uniform_evaluator([(0, 0)])[0].sum(), 1.0)
