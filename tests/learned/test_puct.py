"""PUCT with a uniform prior and a zero value behaves as its module documents."""

import numpy as np

from connect4 import Position
from engine_svc.learned import puct


def run(moves: str, sims: int, batch: int = 1, proven_after: int | None = None):
    """The search from ``moves``; it runs every simulation unless the root is proven after ``proven_after``."""
    pos = Position.parse(moves) if moves else Position()
    root, done = puct.search(pos.current, pos.mask, pos.ply, sims, puct.uniform_evaluator, batch=batch)
    if proven_after is None:
        assert done == sims and root.proven is None
    else:
        assert done == proven_after and root.proven is not None
    return pos, root


def test_unvisited_columns_are_tried_centre_first_and_visits_spread_evenly():
    _, root = run("", 7)
    assert root.n == [1] * 7  # one each, in the order d c e b f a g
    _, root = run("", 70)
    assert root.n == [10] * 7  # no exact result within reach: Q stays 0, visits stay even
    assert puct.best_column(root) == 3  # the most central of equal counts


def test_a_winning_move_is_found_and_proves_the_root():
    # d e d e d e a: the second player, to move, holds e1 e2 e3 and wins with e
    pos, root = run("4545451", 200, proven_after=3)  # d, c, then e: a finished game, so a proof
    assert pos.winning_moves() == [4] and puct.best_column(root) == 4
    assert root.proven == 1.0


def test_a_move_that_lets_the_opponent_win_at_once_is_avoided():
    # d e d e d: the first player threatens d4; the second to move must block d
    pos, root = run("45454", 400)
    assert pos.winning_cells(1 - pos.to_move) and puct.best_column(root) == 3
    q = [root.w[c] / root.n[c] for c in range(7) if c != 3 and root.n[c]]
    assert max(q) < 0  # every other column was seen to lose
    others = [root.children[c] for c in range(7) if c != 3]
    assert all(child is not None and child.proven == 1.0 for child in others)  # proven won by the opponent
    assert root.n[3] > max(root.n[c] for c in range(7) if c != 3)  # proven losses are passed over


def test_a_double_threat_proves_the_root_lost():
    # b g c g d: the first player holds b1 c1 d1 with a1 and e1 open; the second, to move, cannot stop both
    pos = Position.parse("27374")
    root, done = puct.search(pos.current, pos.mask, pos.ply, 5000, puct.uniform_evaluator, batch=1)
    assert root.proven == -1.0 and done < 5000  # proved, so the search ended early
    assert bin(pos.winning_cells(1 - pos.to_move)).count("1") >= 2  # a bitboard of cells
    assert all(root.children[c].proven == 1.0 for c in root.legal)  # every column loses
    assert puct.best_column(root) in root.legal


def test_a_last_cell_that_draws_proves_the_root_drawn():
    # 41 stones, no four anywhere, one cell left in column b and it completes nothing
    pos, root = run("44136567533446633544223266151557777121712", 10, proven_after=1)
    assert root.legal == [1] and root.proven == 0.0 and puct.best_column(root) == 1


def test_terminal_values_are_exact_and_backed_up_with_the_sign_flip():
    _, root = run("4545451", 50, proven_after=3)  # the side to move wins with e
    e = root.children[4]
    assert e is not None and e.terminal == -1.0 == e.proven  # the opponent, to move there, has lost
    assert root.w[4] == root.n[4] == 1  # its visit valued +1 for the root's mover
    d = root.children[3]
    assert d is not None and d.proven is None and root.w[3] == 0.0  # the zero value, unsigned


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
