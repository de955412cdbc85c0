"""The counted players ``search`` and ``solver`` past 64 bits (the counted
negamax over the wide node operations): exact against brute-force minimax near
the end of 9x7 line-6 and 16x4 line-5 games; "not proved" falls back to
search's column with its note as on 7x6; the same run twice visits the same positions."""

from __future__ import annotations

import pytest

from connect4 import Geometry, Position
from engine_svc.players import make_player
from engine_svc.players.budgeted import SearchPlayer, SolverPlayer
from engine_svc.scores import MATE

from .reference import brute_force, near_the_end


def column_truth(pos: Position) -> dict[int, int]:
    """Each legal column's exact value for the side to move, by brute force."""
    g = pos.geometry
    out = {}
    for c in pos.legal_moves():
        out[c] = MATE + g.cells - pos.ply if pos.is_winning_move(c) else -brute_force(pos.played(c))
    return out


@pytest.mark.parametrize("g", [Geometry(9, 7, 6), Geometry(16, 4, 5)], ids=lambda g: g.name)
def test_solver_and_search_are_exact_near_the_end(g):
    assert g.wide
    solver, search = SolverPlayer("solver", g), SearchPlayer("search", g)
    for seed in range(5):
        pos = near_the_end(g, 8, seed)
        truth = column_truth(pos)
        values, _, missing = solver.column_values(pos)
        assert missing is None and values == truth, (g, pos.moves)
        r = solver.choose(pos)
        assert r.proven and r.message.startswith("proved") and r.score == max(truth.values())
        assert truth[r.column] == r.score and r.depth == 8
        s = search.choose(pos)
        assert s.proven and s.score == r.score and truth[s.column] == s.score, (g, pos.moves)


@pytest.mark.parametrize("g", [Geometry(9, 7, 6), Geometry(16, 4, 5)], ids=lambda g: g.name)
def test_solver_past_its_budget_plays_search_and_says_not_proved(g):
    pos = Position.from_moves([g.width // 2, g.width // 2 - 1], g)
    r = SolverPlayer("solver", g, budget=2_000).choose(pos)
    s = make_player("search", g).choose(pos)
    assert not r.proven and r.column == s.column
    centre = g.center_order()[0]
    assert r.message.startswith(f"not proved: column {centre + 1} needs more than 2,000 positions; search's move")
    assert r.nodes == 2_000 + s.nodes  # the failed column's budget, then search's
    again = make_player("search", g).choose(pos)
    assert (again.column, again.score, again.depth, again.nodes) == (s.column, s.score, s.depth, s.nodes)
    assert s.nodes <= 20_000 and s.depth >= 2 and pos.can_play(s.column)


@pytest.mark.parametrize("g", [Geometry(8, 8), Geometry(16, 16)], ids=lambda g: g.name)
def test_search_takes_a_win_and_blocks_on_large_boards(g):
    last = g.width - 1
    win = make_player("search", g).choose(Position.from_moves([0, last, 0, last, 0, last], g))
    assert win.column == 0 and win.proven and win.score == MATE + g.cells - 6
    assert make_player("search", g).choose(Position.from_moves([0, last, 0, last, 0], g)).column == 0
