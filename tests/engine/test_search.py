"""The search: exact where it reaches the end, tactics, zugzwang, budgets and the stop flag."""

import random
import threading

import pytest

from connect4 import Geometry, InvalidPosition, Position
from engine_svc.players.messages import search_message
from engine_svc.scores import MATE, is_proven
from tests.engine.reference import pons_score
from engine_svc.search import Engine
from engine_svc.stopping import Cancel

from .conftest_helpers import assert_deepening, pons_lines
from .reference import plain_negamax


def _endgames(g: Geometry, empties: int, count: int, seed: int):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = Position(g)
        while not pos.is_over and g.cells - pos.ply > empties:
            pos.play(rng.choice(pos.legal_moves()))
        if not pos.is_over:
            out.append(pos)
    return out


@pytest.mark.parametrize("g,empties", [(Geometry(7, 6, 4), 9), (Geometry(5, 4, 4), 11), (Geometry(6, 5, 3), 8)],
                         ids=lambda x: getattr(x, "name", str(x)))
@pytest.mark.parametrize("driver", ["mtdf", "pvs"])
def test_warm_table_search_equals_plain_negamax(g, empties, driver):
    engine = Engine(g, tt_mb=1, driver=driver)
    for pos in _endgames(g, empties, 12, seed=g.cells + empties):
        expected = plain_negamax(pos.copy())
        # Iterative deepening to the end: every depth reuses the table of the previous ones.
        result = engine.search(pos)
        assert result.proven
        assert result.score == expected, (pos, result)
        assert pos.can_play(result.column)
        # The chosen column really achieves the value.
        after = pos.played(result.column)
        value = MATE + g.cells - pos.ply if after.winner is not None else -plain_negamax(after)
        assert value == expected


def test_pons_end_easy_scores(pons_sets):
    engine = Engine(tt_mb=8)
    for moves, score in pons_lines(pons_sets / "Test_L3_R1", 60):
        result = engine.search(Position.parse(moves))
        assert result.proven
        assert pons_score(result.score, 42) == score, moves
        assert result.outcome == ("win" if score > 0 else "loss" if score < 0 else "draw")


def test_immediate_win_and_block():
    engine = Engine(tt_mb=1)
    pos = Position.parse("445566")   # F d1 e1 f1 over nothing, S d2 e2 f2: F wins at c1 or g1
    r = engine.search(pos, max_depth=6)
    assert r.column in (2, 6) and r.outcome == "win" and r.proven and r.plies_to_end == 1
    assert search_message(r) == "forced win in 1 move"  # the words are the player's, not the search's
    pos = Position.parse("17273")    # F a1 b1 c1, S g1 g2: S must block d1
    for depth in (1, 2, 8):
        assert engine.search(pos, max_depth=depth).column == 3
    pos = Position.parse("171712")   # F a1 a2 a3, S g1 g2 b1: F to move wins at a4
    r = engine.search(pos, max_depth=1)
    assert r.column == 0 and r.proven


def test_proves_zugzwang_endgame():
    # From Pons' end-game set (score +1): the side to move (second player) wins
    # only with the 42nd stone: no tactic decides it, the board fills up and the
    # first player is forced to play under the winning cell (zugzwang).
    pos = Position.parse("31161436231375514162762677336")
    r = Engine(tt_mb=4).search(pos)
    assert r.proven and r.outcome == "win" and pons_score(r.score, 42) == 1
    assert r.plies_to_end == 42 - pos.ply == 13
    # Seen from the loser, one move earlier in the line: a proven loss, and it resigns.
    loser = pos.played(r.column)
    r2 = Engine(tt_mb=4).search(loser)
    assert r2.proven and r2.outcome == "loss" and r2.resign and search_message(r2).startswith("resigns")


def test_budget_returns_last_finished_depth():
    engine = Engine(tt_mb=16)
    reports = []
    r = engine.search(Position(), budget_ms=200, on_progress=reports.append)
    assert r.depth >= 1 and reports and reports[-1].depth == r.depth
    assert_deepening([x.depth for x in reports])
    assert not r.proven
    # The budget rule, read off the search's own clock: a new depth starts only
    # while less than a third of the budget is spent, so every iteration but the
    # last ended before a third ...
    assert all(x.elapsed_ms < 200 / 3 for x in reports[:-1]), [x.elapsed_ms for x in reports]
    # ... and the search ended for the budget: its last depth ended past a third
    # (or the clock aborted the next one at twice the budget), not for a depth limit.
    assert r.elapsed_ms >= 200 / 3 and r.depth < 42


def test_stop_flag_aborts_a_deep_search():
    engine = Engine(tt_mb=16)
    box = {}
    searching = threading.Event()  # set by the first finished depth: the search is under way
    t = threading.Thread(target=lambda: box.setdefault("r", engine.search(
        Position(), on_progress=lambda report: searching.set())))
    t.start()
    assert searching.wait(60), "no depth finished"
    engine.stop()
    t.join(120)
    assert not t.is_alive()
    assert box["r"].depth >= 1 and not box["r"].proven


def test_cancel_event_stops_the_search():
    engine = Engine(tt_mb=4)
    cancel = Cancel()
    threading.Timer(0.2, cancel.set).start()
    r = engine.search(Position(), cancel=cancel)
    assert r.depth >= 1 and r.depth < 42


def test_a_cancel_set_before_the_search_stops_it_at_once():
    """A gRPC client gone (or its deadline passed) before the search began: the
    search must not start over a lowered flag and run its whole budget."""
    engine = Engine(tt_mb=4)
    engine.search(Position(), max_depth=2)
    cancel = Cancel()
    cancel.set()
    r = engine.search(Position(), budget_ms=6000, cancel=cancel)
    assert r.stopped and r.depth == 0, (r.depth, r.elapsed_ms)  # not even depth 1: the safe column
    again = engine.search(Position(), max_depth=3)  # the next search on this engine starts clean
    assert again.depth == 3 and not again.stopped


def test_fixed_depth_is_deterministic():
    engine = Engine(tt_mb=4)
    pos = Position.parse("4453")
    a = engine.search(pos, max_depth=9)
    engine.search(Position.parse("3"), max_depth=7)  # a different search in between
    b = Engine(tt_mb=4).search(pos, max_depth=9)
    c = engine.search(pos, max_depth=9)
    for x in (b, c):
        assert (x.column, x.score, x.depth, x.nodes, x.pv) == (a.column, a.score, a.depth, a.nodes, a.pv)
    assert a.pv[0] == a.column and len(a.pv) <= 9


def test_timed_searches_keep_the_table_and_fixed_depth_ones_do_not():
    pos = Position.parse("6614446666373154")  # Pons' middle-game set, score -4: proved in about 0.1 s
    engine = Engine(tt_mb=16)
    first = engine.search(pos, budget_ms=60_000)
    again = engine.search(pos, budget_ms=60_000)  # starts from what the first stored
    assert first.proven and again.proven and pons_score(first.score, 42) == pons_score(again.score, 42) == -4
    assert again.nodes * 2 < first.nodes
    # A fixed-depth search still starts empty: the same nodes as on a fresh engine.
    fresh = Engine(tt_mb=16).search(pos, max_depth=6)
    after_timed = engine.search(pos, max_depth=6)
    assert (after_timed.nodes, after_timed.score, after_timed.column) == (fresh.nodes, fresh.score, fresh.column)


def test_game_over_is_rejected():
    with pytest.raises(InvalidPosition):
        Engine(tt_mb=1).search(Position.parse("1212121"))


def test_proven_scores():
    assert is_proven(MATE + 1) and is_proven(-MATE - 1) and not is_proven(50)


def test_depth_one_and_two_values_are_the_static_evaluation():
    """A depth-1 search is the best of the children's static scores (negated),
    and depth 2 the best of their depth-1 values, for both sides to move:
    the leaves use the evaluation from the right side's view."""
    from engine_svc.evaluation import evaluate

    def quiet(p):  # no tactics decide the node or its children
        return not p.is_over and not p.can_win_next() and len(p.non_losing_moves()) == len(p.legal_moves())

    def d1(p):
        return max(-evaluate(p.played(c)).score for c in p.legal_moves())

    engine = Engine(tt_mb=1)
    rng = random.Random(5)
    checked = {0: 0, 1: 0}
    while min(checked.values()) < 15:
        pos = Position()
        for _ in range(rng.randint(4, 16)):
            pos.play(rng.choice(pos.legal_moves()))
            if pos.is_over:
                break
        children = [pos.played(c) for c in pos.legal_moves()] if not pos.is_over else []
        if not quiet(pos) or not all(quiet(ch) for ch in children):
            continue
        assert engine.search(pos, max_depth=1, ).score == d1(pos), pos
        assert engine.search(pos, max_depth=2).score == max(-d1(ch) for ch in children), pos
        checked[pos.to_move] += 1
