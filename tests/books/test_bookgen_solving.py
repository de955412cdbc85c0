"""BookSolver against the plain solver: best moves, preloaded scores."""

from __future__ import annotations

import pytest

from connect4 import Position
from books.bookgen.solving import BookSolver
from solver_svc.solver import Solver

# Middle-game positions, the first of Pascal Pons' test set L2_R1 (fast to solve).
POSITIONS = [
    "5554224333234511764415115",
    "52753311433677442422121",
    "1233722555341451114725221333",
    "271713432331713132",
    "6672375354252731116762237724",
    "763452543756455357732314",
    "662222576343651642712157",
]


@pytest.fixture(scope="module")
def solvers():
    return BookSolver(Position().geometry, tt_log2=20), Solver(tt_log2=20)


def test_best_move_matches_the_solver(solvers):
    bs, s = solvers
    for moves in POSITIONS:
        pos = Position.parse(moves)
        bm = bs.best_move(pos)
        assert (bm.column, bm.score) == s.best_move(pos), moves
        assert bs.analyze(pos) == s.analyze(pos), moves


def test_preloaded_scores_are_used_and_keep_results_exact(solvers):
    bs, s = solvers
    pos = Position.parse(POSITIONS[5])
    truth = s.analyze(pos)
    # the true scores of every grandchild, preloaded: same answers
    known = {}
    for c in pos.legal_moves():
        child = pos.played(c)
        if child.is_over:
            continue
        for r in child.legal_moves():
            g = child.played(r)
            if not g.is_over:
                known[g.canonical_key()] = s.solve(g).score
    bs.solver.reset()
    assert bs.preload(known) == len(known)
    assert bs.analyze(pos) == truth
    # a false score written into the table is believed: proof that the search reads it
    col = next(c for c in pos.legal_moves() if not pos.played(c).is_over and not pos.played(c).can_win_next())
    child = pos.played(col)
    fake = {child.canonical_key(): 20}
    bs.solver.reset()
    bs.preload(fake)
    assert bs.solver.solve(child).score == 20
    bs.solver.reset()
    assert bs.solver.solve(child).score == -truth[col]


def test_known_callback_short_cuts_children(solvers):
    bs, s = solvers
    pos = Position.parse(POSITIONS[6])
    truth = s.analyze(pos)
    known = {pos.played(c).canonical_key(): -truth[c] for c in pos.legal_moves() if not pos.played(c).is_over}
    n0 = bs.nodes
    assert bs.analyze(pos, known.get) == truth
    assert bs.nodes == n0  # nothing searched: every child was known
