"""The public API: analyze and best_move against solve, budgets, the stop
flag, errors."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from connect4 import STANDARD, Geometry, InvalidPosition, Position
from solver_svc.solver import BudgetExceeded, Solver, SolveResult


HARD = "4453"  # ply 4: tens of millions of nodes, never finished in these tests


def test_solve_result(solver):
    r = solver.solve(Position.parse("52753311433677442422121"))
    assert isinstance(r, SolveResult)
    assert r.score == 8 and r.nodes > 0 and r.elapsed_s >= 0
    assert solver.last_nodes == r.nodes


def test_immediate_win_scores_without_search(solver):
    pos = Position.parse("112233")
    assert solver.solve(pos).score == (42 + 1 - 6) // 2
    assert solver.solve(pos, weak=True).score == 1


@pytest.mark.parametrize("line", range(0, 40, 4))
def test_analyze_agrees_with_solve_of_children(solver, pons_sets, line, read_set):
    moves, expected = read_set(pons_sets / "Test_L2_R1", 40)[line]
    pos = Position.parse(moves)
    scores = solver.analyze(pos)
    assert max(s for s in scores if s is not None) == expected
    for col, score in enumerate(scores):
        if not pos.can_play(col):
            assert score is None
        elif pos.is_winning_move(col):
            assert score == (42 + 1 - pos.ply) // 2
        else:
            assert score == -Solver(STANDARD, tt_log2=18).solve(pos.played(col)).score
    col, best = solver.best_move(pos)
    assert best == expected == scores[col]
    centre = STANDARD.center_order()
    first = min((c for c, s in enumerate(scores) if s == best), key=centre.index)
    assert col == first


def test_analyze_weak_gives_signs(solver, pons_sets, read_set):
    moves, _ = read_set(pons_sets / "Test_L2_R1", 1)[0]
    pos = Position.parse(moves)
    strong = solver.analyze(pos)
    weak = solver.analyze(pos, weak=True)
    assert weak == [None if s is None else (s > 0) - (s < 0) for s in strong]


def test_analyze_full_column_is_none(solver):
    pos = Position.parse("4444441526")
    scores = solver.analyze(pos)
    assert scores[3] is None
    assert all(s is not None for c, s in enumerate(scores) if c != 3)


@pytest.mark.parametrize("moves", ["332211", "33241"])  # "332211": column 4 wins at once
def test_best_move_on_small_board_matches_brute_force(moves, brute_score):
    g = Geometry(5, 4, 4)
    solver = Solver(g, tt_log2=18)
    pos = Position.parse(moves, g)
    memo: dict = {}
    col, score = solver.best_move(pos)
    children = []
    for c in pos.legal_moves():
        child = pos.played(c)
        children.append(((g.cells + 1 - pos.ply) // 2) if child.winner is not None else -brute_score(child, memo))
    assert score == max(children) == brute_score(pos, memo)
    child = pos.played(col)
    if child.winner is not None:
        assert score == (g.cells + 1 - pos.ply) // 2
    else:
        assert -brute_score(child, memo) == score
    rank = g.center_order()
    assert col == min((c for c in pos.legal_moves() if solver.analyze(pos)[c] == score), key=rank.index)


def test_mirror_position_has_same_score(solver, pons_sets, read_set):
    for moves, expected in read_set(pons_sets / "Test_L2_R2", 10):
        mirrored = "".join(str(8 - int(ch)) for ch in moves)
        solver.reset()
        assert solver.solve(Position.parse(mirrored)).score == expected


def test_node_budget_raises_with_nodes_spent():
    solver = Solver(STANDARD, tt_log2=18)
    with pytest.raises(BudgetExceeded) as info:
        solver.solve(Position.parse(HARD), node_budget=5000)
    assert 0 < info.value.nodes <= 5001
    assert solver.last_nodes == info.value.nodes
    # the interrupted search stored nothing unproved: answers stay exact
    assert solver.solve(Position.parse("52753311433677442422121")).score == 8
    with pytest.raises(BudgetExceeded):
        solver.analyze(Position.parse(HARD), node_budget=2000)
    with pytest.raises(BudgetExceeded):
        solver.best_move(Position.parse(HARD), node_budget=2000)


def test_budget_large_enough_gives_the_score(pons_sets, read_set):
    solver = Solver(STANDARD, tt_log2=18)
    moves, expected = read_set(pons_sets / "Test_L1_R1", 1)[0]
    nodes = solver.solve(Position.parse(moves)).nodes
    solver.reset()
    assert solver.solve(Position.parse(moves), node_budget=nodes).score == expected
    solver.reset()
    with pytest.raises(BudgetExceeded):
        solver.solve(Position.parse(moves), node_budget=nodes - 1)


def test_stop_flag_set_before_search():
    solver = Solver(STANDARD, tt_log2=18)
    stop = np.ones(1, dtype=np.uint8)
    with pytest.raises(BudgetExceeded) as info:
        solver.solve(Position.parse(HARD), stop=stop)
    assert info.value.reason == "stop flag"


def test_stop_flag_from_another_thread():
    solver = Solver(STANDARD, tt_log2=18)
    stop = np.zeros(1, dtype=np.uint8)
    started = threading.Event()
    outcome = {}

    def work():
        started.set()
        try:
            outcome["result"] = solver.solve(Position.parse(HARD), stop=stop)
        except BudgetExceeded as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=work)
    thread.start()
    started.wait()
    thread.join(0.3)  # the search runs without the GIL meanwhile
    stop[0] = 1
    thread.join(60)
    assert not thread.is_alive()
    assert "error" in outcome and outcome["error"].nodes > 0


def test_finished_game_is_invalid(solver):
    won = Position.parse("1212121")
    with pytest.raises(InvalidPosition, match="over"):
        solver.solve(won)
    with pytest.raises(InvalidPosition, match="over"):
        solver.analyze(won)
    g = Geometry(2, 3, 3)
    full = Position(g)
    for c in (0, 1, 0, 1, 1, 0):
        full.play(c)
    assert full.is_draw
    with pytest.raises(InvalidPosition, match="draw"):
        Solver(g, tt_log2=18).solve(full)


def test_other_geometry_is_invalid(solver):
    with pytest.raises(InvalidPosition, match="5x4"):
        solver.solve(Position(Geometry(5, 4, 4)))


def test_reset_forgets_and_keeps_answers(solver, pons_sets, read_set):
    moves, expected = read_set(pons_sets / "Test_L2_R2", 1)[0]
    pos = Position.parse(moves)
    solver.reset()
    first = solver.solve(pos)
    again = solver.solve(pos)
    assert again.score == first.score == expected
    assert again.nodes < first.nodes  # the table remembered the bounds
    solver.reset()
    assert solver.solve(pos).nodes == first.nodes  # a fresh table searches the same tree


def test_reset_after_table_overflow():
    solver = Solver(STANDARD, tt_log2=18)  # the write log holds 2**14 slots
    pos = Position.parse("52753311433677442422121")
    base = solver.solve(pos).nodes
    with pytest.raises(BudgetExceeded):
        solver.solve(Position.parse(HARD), node_budget=300_000)  # fills far more slots than the log
    solver.reset()
    assert solver.solve(pos).nodes == base
