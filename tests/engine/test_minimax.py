"""The casual-game minimax: the window evaluation and the search against plain references."""

import random

import numpy as np
import pytest

from connect4 import STANDARD, Geometry, Position
from engine_svc.minimax import BLOCKER, CASUAL, WIN_VALUE, minimax_kernels, weights_array
from engine_svc.players import make_player


def _random_position(rng: random.Random, g: Geometry, max_plies: int) -> Position:
    pos = Position(g)
    for _ in range(rng.randrange(max_plies + 1)):
        if pos.is_over:
            break
        pos.play(rng.choice(pos.legal_moves()))
    return pos


def _windows(g: Geometry):
    """Every line of K cells as (column, row) pairs, the four directions by hand."""
    for c in range(g.width):
        for r in range(g.height):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(c + dc * i, r + dr * i) for i in range(g.k)]
                if all(0 <= x < g.width and 0 <= y < g.height for x, y in cells):
                    yield cells


def brute_window_score(me: int, opp: int, g: Geometry, w) -> int:
    """The casual AI's count, cell by cell: K own = four, K-1 own and an empty = three,
    K-2 own and two empties = two, K-1 theirs and an empty = opp_three (K-2 theirs
    and two empties = opp_two), and ``centre`` per own stone in the middle column(s)."""
    def has(stones, c, r):
        return (stones >> g.cell_bit(c, r).bit_length() - 1) & 1

    score = 0
    for cells in _windows(g):
        m = sum(has(me, c, r) for c, r in cells)
        o = sum(has(opp, c, r) for c, r in cells)
        empty = g.k - m - o
        if m == g.k:
            score += w.four
        elif m == g.k - 1 and empty == 1:
            score += w.three
        elif m == g.k - 2 and empty == 2 and g.k > 2:
            score += w.two
        elif o == g.k - 1 and empty == 1:
            score += w.opp_three
        elif o == g.k - 2 and empty == 2 and g.k > 2:
            score += w.opp_two
    middle = {(g.width - 1) // 2, g.width // 2}
    score += w.centre * sum(has(me, c, r) for c in middle for r in range(g.height))
    return score


@pytest.mark.parametrize("g", [STANDARD, Geometry(5, 4, 3)])
@pytest.mark.parametrize("weights", [CASUAL, BLOCKER])
def test_window_evaluation_equals_a_brute_force_count(g, weights):
    k = minimax_kernels(g)
    w = weights_array(weights)
    rng = random.Random(7)
    for _ in range(200):
        pos = _random_position(rng, g, g.cells - 1)
        a, b = pos.stones(0), pos.stones(1)
        for me, opp in ((a, b), (b, a)):
            assert k.window_eval(np.uint64(me), np.uint64(opp), w) == brute_window_score(me, opp, g, weights)


def _reference(pos: Position, ai: int, depth: int, w, g: Geometry) -> int:
    """Plain minimax without pruning, as the casual AI writes it: a finished game is
    decided (a win made with d plies left scores WIN_VALUE + d, sooner is larger),
    else depth 0 is the window score from the AI's side."""
    if depth == 0:
        k = minimax_kernels(g)
        return int(k.window_eval(np.uint64(pos.stones(ai)), np.uint64(pos.stones(1 - ai)), weights_array(w)))
    values = []
    for c in pos.legal_moves():
        child = pos.played(c)
        if child.winner is not None:
            values.append(WIN_VALUE + depth if child.winner == ai else -(WIN_VALUE + depth))
        elif child.is_over:
            values.append(0)
        else:
            values.append(_reference(child, ai, depth - 1, w, g))
    return max(values) if pos.to_move == ai else min(values)


@pytest.mark.parametrize("g", [STANDARD, Geometry(5, 4, 3)])
def test_alpha_beta_values_equal_plain_minimax(g):
    k = minimax_kernels(g)
    w = weights_array(CASUAL)
    rng = random.Random(3)
    checked = 0
    while checked < 60:
        pos = _random_position(rng, g, g.cells - 2)
        if pos.is_over:
            continue
        depth = 1 + checked % 4
        out = np.full(g.width, np.iinfo(np.int64).min, dtype=np.int64)
        k.root_values(np.uint64(pos.current), np.uint64(pos.mask), depth, w, out, np.zeros(2, dtype=np.int64))
        ref = np.full(g.width, np.iinfo(np.int64).min, dtype=np.int64)
        ref[pos.legal_moves()] = [_reference_root(pos, c, depth, g) for c in pos.legal_moves()]
        assert list(out) == list(ref), (pos.moves, depth)
        checked += 1


def _reference_root(pos: Position, col: int, depth: int, g: Geometry) -> int:
    child = pos.played(col)
    if child.winner is not None:
        return WIN_VALUE + depth
    if child.is_over:
        return 0
    return _reference(child, pos.to_move, depth - 1, CASUAL, g)


def test_a_win_outscores_any_window_sum():
    for g in (STANDARD, Geometry(8, 7, 5), Geometry(5, 4, 3)):
        lines = sum(1 for _ in _windows(g))
        most = lines * max(CASUAL.four, BLOCKER.four) + g.height * 2 * max(CASUAL.centre, BLOCKER.centre)
        assert most < WIN_VALUE - 12  # the slowest win at the deepest depth still tops every leaf


# First player (to move): b1 c1 g1 g2 g3; second: b2 c2 f1 f2 b3. g4 wins now; d1
# makes b1-d1 an open three, a win in 3 (a1 or e1 next).
WIN_NOW_OR_IN_3 = "2233767672"


def test_takes_a_win_in_one_over_a_win_in_three():
    pos = Position.parse(WIN_NOW_OR_IN_3)
    k = minimax_kernels(STANDARD)
    for depth in (3, 5, 7):
        out = np.full(7, np.iinfo(np.int64).min, dtype=np.int64)
        k.root_values(np.uint64(pos.current), np.uint64(pos.mask), depth, weights_array(CASUAL), out,
                      np.zeros(2, dtype=np.int64))
        assert out[6] == WIN_VALUE + depth  # g4 now
        assert out[3] == max(out[:6]) == WIN_VALUE + depth - 2  # d1 (g4 still there), then a1 or e1
    for seed in range(20):  # ties are broken at random: a win in one never ties with a slower one
        assert make_player("minimax:5", seed=seed).choose(pos).column == 6


def test_prefers_the_slower_loss():
    # First player: b1 c1 d1 b2 c2; second (to move): a1 g1 g2 f1. Only e1 stops
    # the win now; after it d2 makes b2-d2 an open three (a2, e2): every move loses,
    # the block two plies later than the rest.
    pos = Position.parse("213747263")
    k = minimax_kernels(STANDARD)
    for depth in (4, 6):
        out = np.full(7, np.iinfo(np.int64).min, dtype=np.int64)
        k.root_values(np.uint64(pos.current), np.uint64(pos.mask), depth, weights_array(CASUAL), out,
                      np.zeros(2, dtype=np.int64))
        assert out[4] == -(WIN_VALUE + depth - 3)
        assert all(out[c] == -(WIN_VALUE + depth - 1) for c in (0, 1, 2, 3, 5, 6))
    for seed in range(10):
        assert make_player("minimax:4", seed=seed).choose(pos).column == 4


def test_hard_weighs_blocking_more_than_the_casual_ai():
    assert BLOCKER.opp_three < CASUAL.opp_three and BLOCKER.opp_two < CASUAL.opp_two == 0
    assert (BLOCKER.four, BLOCKER.three, BLOCKER.two, BLOCKER.centre) == (
        CASUAL.four, CASUAL.three, CASUAL.two, CASUAL.centre)
    assert make_player("hard").weights.tolist() == weights_array(BLOCKER).tolist()
    assert make_player("minimax:6").weights.tolist() == weights_array(CASUAL).tolist()


def test_the_node_array_must_hold_the_stop_flag():
    k = minimax_kernels(STANDARD)
    pos = Position.parse("44")
    out = np.zeros(7, dtype=np.int64)
    with pytest.raises(ValueError, match="stop flag"):
        k.root_values(np.uint64(pos.current), np.uint64(pos.mask), 3, weights_array(CASUAL), out,
                      np.zeros(1, dtype=np.int64))
    stopped = np.array([0, 1], dtype=np.int64)  # set before the search: nothing is searched below the root
    k.root_values(np.uint64(pos.current), np.uint64(pos.mask), 5, weights_array(CASUAL), out, stopped)
    assert stopped[0] == 7  # the seven children, each returning at once
