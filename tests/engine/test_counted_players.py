"""The players with counted budgets, ``search`` and ``solver``, held to exact oracles:
the budget is counted (the same positions on every run), the exact solve
gets Pons' scores, and the solver plays a proved-best move wherever it proves."""

from __future__ import annotations

import pytest

from connect4 import Position
from engine_svc.players import InvalidSpec, make_player
from engine_svc.players.budgeted import SEARCH_BUDGET, SOLVER_BUDGET, CountedSearch, SearchPlayer, SolverPlayer
from tests.engine.reference import pons_score
from engine_svc.stopping import Cancel, Stopped
from solver_svc.solver import Solver

from .conftest_helpers import pons_lines

OPENINGS = ["", "4", "4453", "44444433", "1234567", "33445517"]


@pytest.mark.parametrize("moves", OPENINGS)
def test_search_budget_is_counted_and_every_run_identical(moves):
    pos = Position.parse(moves) if moves else Position()
    runs = []
    for seed in (0, 1, 7):
        player = make_player("search", seed=seed)
        first = player.choose(pos)
        again = player.choose(pos)  # the same player a second time: a fresh table, the same search
        runs += [first, again]
    keys = {(r.column, r.score, r.depth, r.nodes) for r in runs}
    assert len(keys) == 1, keys
    r = runs[0]
    assert 0 <= r.nodes <= SEARCH_BUDGET  # 0: a win now, no search
    if not r.proven:  # the budget ended the search: it was spent to the last position
        assert r.nodes == SEARCH_BUDGET
    assert r.message == f"depth {r.depth} within {SEARCH_BUDGET:,} positions"


def test_search_with_a_small_budget_answers_its_last_finished_depth():
    pos = Position.parse("4453")
    small = SearchPlayer("search", pos.geometry, budget=300).choose(pos)
    large = SearchPlayer("search", pos.geometry, budget=SEARCH_BUDGET).choose(pos)
    assert small.nodes == 300 and 1 <= small.depth < large.depth


def test_search_takes_a_win_and_blocks():
    win = Position.parse("445566")  # the first player wins in 3 or 7
    assert make_player("search").choose(win).column in (2, 6)
    block = Position.parse("17273")  # the first player threatens 4 only: the second must block there
    assert make_player("search").choose(block).column == 3
    two = Position.parse("44556")  # the first player threatens 3 and 7: lost whatever it plays
    r = make_player("search").choose(two)
    assert r.outcome == "loss" and r.proven


def test_search_proofs_match_pons_end_game_set(pons_sets):
    proved = 0
    for moves, score in pons_lines(pons_sets / "Test_L3_R1", 60):
        r = make_player("search").choose(Position.parse(moves))
        if r.proven:
            proved += 1
            assert pons_score(r.score, 42) == score, moves
    assert proved >= 30  # near the end of the game 20,000 positions prove most


@pytest.mark.parametrize("name,limit", [("Test_L3_R1", 100), ("Test_L2_R1", 40), ("Test_L2_R2", 20)])
def test_exact_solve_gets_pons_scores(pons_sets, name, limit):
    exact = CountedSearch(Position().geometry, 18)
    solved = 0
    for moves, score in pons_lines(pons_sets / name, limit):
        exact.reset(SOLVER_BUDGET)
        v = exact.exact(Position.parse(moves), 3_000_000)
        if v is not None:
            solved += 1
            assert pons_score(v, 42) == score, moves
    assert solved >= limit // 2


def test_exact_solve_gives_up_past_its_budget_and_says_none():
    exact = CountedSearch(Position().geometry, 16)
    exact.reset(1000)
    assert exact.exact(Position.parse("4"), 1000) is None
    assert exact.ws[0] == 1000  # it stopped at the budget, not beyond


@pytest.mark.parametrize("name,limit", [("Test_L3_R1", 40), ("Test_L2_R1", 25)])
def test_solver_plays_a_proved_best_move_where_it_proves(pons_sets, name, limit):
    oracle = Solver(Position().geometry)
    proved = unproved = 0
    for moves, score in pons_lines(pons_sets / name, limit):
        pos = Position.parse(moves)
        player = SolverPlayer("solver", pos.geometry)
        r = player.choose(pos)
        truth = oracle.analyze(pos)
        if r.proven:
            proved += 1
            assert truth[r.column] == max(s for s in truth if s is not None), moves
            assert pons_score(r.score, 42) == score, moves
            values, _, missing = player.column_values(pos)
            assert missing is None
            assert {c: pons_score(v, 42) for c, v in values.items()} == \
                {c: s for c, s in enumerate(truth) if s is not None}, moves
        else:
            unproved += 1
            assert r.message.startswith("not proved"), r.message
            assert r.column == make_player("search").choose(pos).column
    assert proved >= limit // 2


def test_solver_falls_back_to_search_early_and_says_not_proved():
    pos = Position.parse("4453")
    r = make_player("solver").choose(pos)
    s = make_player("search").choose(pos)
    assert not r.proven and r.column == s.column
    assert r.message.startswith(f"not proved: column 4 needs more than {SOLVER_BUDGET:,} positions")
    assert r.nodes == SOLVER_BUDGET + s.nodes  # the failed column's budget, then search's
    assert (r.column, r.nodes, r.message) == (lambda x: (x.column, x.nodes, x.message))(make_player("solver").choose(pos))


@pytest.mark.parametrize("spec", ["search", "solver"])
def test_a_cancel_stops_the_counted_players(spec):
    cancel = Cancel()
    cancel.set()
    with pytest.raises(Stopped):
        make_player(spec).choose(Position.parse("4"), cancel=cancel)
    assert make_player(spec).choose(Position.parse("4")).column in range(7)  # nothing stuck


@pytest.mark.parametrize("bad", ["search:5", "solver:10", "search:"])
def test_counted_players_take_no_parameter(bad):
    with pytest.raises(InvalidSpec, match="takes no parameter"):
        make_player(bad)
