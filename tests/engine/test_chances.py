"""A proven draw or loss: the engine plays, of the columns that keep the value,
the one a short search likes best."""

import pytest

from connect4 import Position
from engine_svc.chances import CHANCE_DEPTH, move_with_chances
from engine_svc.search import CHANCE_TABLE_MB, Engine

# From an arena game (engine:1000 against minimax:6): a proven draw, every
# legal column draws (the centre one is full); the proof alone plays column 6,
# the short search ranks column 3 first.
DRAWN = "352314444334476376666"


# From a lost arena game: a proven loss with several equally long defences;
# the proof alone plays column 1, the short search ranks column 3 first.
LOST = "56514455444453333"


def exact_scores(pos):
    """Every legal column's proven score (side to move's view), by full searches of the children."""
    out = {}
    for c in pos.legal_moves():
        child = pos.played(c)
        if child.is_over:
            assert child.winner is None  # no column wins at once in these positions
            out[c] = 0
            continue
        r = Engine(tt_mb=4).search(child)
        assert r.proven
        out[c] = -r.score
    return out


def exact_values(pos):
    """Every legal column's outcome: 1 win, 0 draw, -1 loss."""
    return {c: (s > 0) - (s < 0) for c, s in exact_scores(pos).items()}


def heuristic_values(pos):
    return {c: -Engine(tt_mb=CHANCE_TABLE_MB).search(pos.played(c), max_depth=CHANCE_DEPTH - 1).score
            for c in pos.legal_moves()}


def test_the_chosen_column_draws_and_ranks_first_among_the_drawing_ones():
    pos = Position.from_moves([int(m) - 1 for m in DRAWN])
    r = Engine().search(pos)
    assert r.proven and r.outcome == "draw" and r.score == 0
    exact = exact_values(pos)
    drawing = [c for c in pos.geometry.center_order() if exact.get(c) == 0]
    assert drawing == [2, 4, 1, 5, 0, 6] and max(exact.values()) == 0
    heur = heuristic_values(pos)
    best = max(heur[c] for c in drawing)
    assert r.column == next(c for c in drawing if heur[c] == best) == 2  # centre first on equal values
    # The same with a clock, and at a fixed depth twice: one answer.
    assert Engine().search(pos, budget_ms=2000).column == r.column
    assert Engine().search(pos, max_depth=pos.geometry.cells).column == r.column


def test_a_proven_loss_plays_the_longest_defence_the_short_search_ranks_first():
    pos = Position.from_moves([int(m) - 1 for m in LOST])
    r = Engine().search(pos)
    assert r.proven and r.outcome == "loss"
    exact = exact_scores(pos)
    longest = [c for c in pos.geometry.center_order() if exact.get(c) == r.score]
    assert max(exact.values()) == r.score and len(longest) >= 2
    heur = heuristic_values(pos)
    best = max(heur[c] for c in longest)
    assert r.column == next(c for c in longest if heur[c] == best) == 2
    assert Engine().search(pos, budget_ms=2000).column == r.column


def test_a_timed_search_near_the_end_keeps_a_drawing_move():
    moves = [int(m) - 1 for m in DRAWN]
    pos = Position.from_moves(moves)
    engine = Engine()
    while not pos.is_over and pos.geometry.cells - pos.ply > 4:
        r = engine.search(pos, budget_ms=200)
        if r.outcome == "draw":
            assert exact_values(pos)[r.column] == 0
        pos.play(r.column)


def call_log():
    calls = []

    def draws_for(answers):
        def draws(c):
            calls.append(c)
            return answers[c]
        return draws
    return calls, draws_for


def test_policy_tests_only_columns_ranked_above_the_proven_one():
    calls, draws_for = call_log()
    heur = {3: 5, 2: 40, 4: 30, 1: 10}.__getitem__
    col, values = move_with_chances([3, 2, 4, 1], 3, heur, draws_for({2: False, 4: True, 1: True}))
    assert col == 4 and calls == [2, 4]  # 2 loses, 4 draws; 1 ranks lower and is never proved
    assert values == {3: 5, 2: 40, 4: 30, 1: 10}


@pytest.mark.parametrize("answers,expected", [({2: None}, 3), ({2: False}, 3)])
def test_policy_keeps_the_proven_column_when_nothing_better_draws_in_time(answers, expected):
    calls, draws_for = call_log()
    col, _ = move_with_chances([3, 2, 4], 3, {3: 1, 2: 9, 4: -3}.__getitem__, draws_for(answers))
    assert col == expected and calls == [2]


def test_policy_ties_go_to_the_proven_column_then_to_the_centre():
    calls, draws_for = call_log()
    col, _ = move_with_chances([3, 2, 4], 2, {3: 7, 2: 7, 4: 7}.__getitem__, draws_for({}))
    assert col == 2 and calls == []
    col, _ = move_with_chances([3, 2, 4], 4, {3: 7, 2: 7, 4: 1}.__getitem__, draws_for({3: True}))
    assert col == 3 and calls == [3]
