"""The large-board exact solver (:mod:`solver_svc.wide_solver`): against
brute-force minimax near the end of 9x7 line-6, 16x4 line-5 and 16x2 line-3
games; against the single-word solver on 64-bit boards where both run; and a
budget that runs out raises Unproved, never a score."""

from __future__ import annotations

import random

import pytest

from connect4 import Geometry, InvalidPosition, Position
from solver_svc.solver import Solver
from tests.engine.reference import minimax
from solver_svc.wide_solver import Unproved, WideSolver


def brute_force(pos: Position) -> int:
    """Pons' score by plain minimax."""
    return minimax(pos, lambda p: (p.geometry.cells + 1 - p.ply) // 2)


def quiet_position(g: Geometry, ply: int, rng: random.Random) -> Position:
    """A random position of ``ply`` stones where the game goes on and the side to move cannot win at once."""
    while True:
        pos = Position(g)
        while pos.ply < ply:
            quiet = [c for c in pos.legal_moves() if not pos.is_winning_move(c)]
            if not quiet:
                break
            pos.play(rng.choice(quiet))
        if pos.ply == ply and not pos.is_over and not pos.can_win_next():
            return pos


@pytest.mark.parametrize("g,empties", [(Geometry(9, 7, 6), 9), (Geometry(16, 4, 5), 9), (Geometry(16, 2, 3), 10)],
                         ids=lambda x: getattr(x, "name", str(x)))
def test_exact_against_brute_force_near_the_end(g, empties):
    solver = WideSolver(g, table_log2=14)
    rng = random.Random(g.bits)
    scores = set()
    for _ in range(8):
        pos = quiet_position(g, g.cells - empties, rng)
        solver.reset()
        score, nodes = solver.solve(pos)
        assert score == brute_force(pos.copy()), (g, pos.moves)
        weak, _ = solver.solve(pos, weak=True)
        assert weak == (score > 0) - (score < 0)
        scores.add(score)
    assert len(scores) >= 2  # not one value every time


@pytest.mark.parametrize("g,ply", [(Geometry(16, 2, 3), 8), (Geometry(7, 6), 24), (Geometry(8, 7, 5), 36)],
                         ids=lambda x: getattr(x, "name", str(x)))
def test_equal_to_the_single_word_solver_where_both_run(g, ply):
    wide, narrow = WideSolver(g, table_log2=18), Solver(g)
    rng = random.Random(ply)
    for _ in range(6):
        pos = quiet_position(g, ply, rng)
        wide.reset()
        assert wide.solve(pos)[0] == narrow.solve(pos).score, (g, pos.moves)


def test_a_budget_that_runs_out_gives_no_score():
    solver = WideSolver(Geometry(8, 8), table_log2=14)
    with pytest.raises(Unproved, match="not proved within 5000 nodes") as err:
        solver.solve(Position(Geometry(8, 8)), budget=5000)
    assert err.value.nodes > 5000
    with pytest.raises(InvalidPosition, match="game is over"):
        solver.solve(Position.from_moves([0, 1, 0, 1, 0, 1, 0], Geometry(8, 8)))
    won = Position.from_moves([0, 1, 0, 1, 0, 1], Geometry(8, 8))
    assert solver.solve(won) == ((64 + 1 - 6) // 2, 1)  # a win at once: Pons' score, no search
