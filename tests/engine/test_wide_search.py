"""The engine on boards past 64 bits (the multi-word search of
:mod:`engine_svc.negamax` over the wide board operations of :mod:`engine_svc.boards`, behind the same :class:`Engine`): exact
against brute-force minimax near the end of 9x7 line-6 and 16x4 line-5 games,
the tactics (win now, block) on 8x8 and 16x16, deterministic at a fixed depth."""

from __future__ import annotations

import pytest

from connect4 import Geometry, Position
from engine_svc.search import Engine

from .reference import brute_force, near_the_end


@pytest.fixture(scope="module", params=[Geometry(9, 7, 6), Geometry(16, 4, 5)], ids=lambda g: g.name)
def exact_case(request):
    g = request.param
    return g, Engine(g, tt_mb=4)


def test_a_search_to_the_end_equals_brute_force(exact_case):
    g, engine = exact_case
    assert g.wide
    for seed in range(6):
        pos = near_the_end(g, 8, seed)
        r = engine.search(pos, max_depth=g.cells - pos.ply)
        assert r.proven and r.score == brute_force(pos.copy()), (g, pos.moves)
        assert pos.can_play(r.column)
        after = pos.played(r.column)
        assert after.winner is not None or -brute_force(after.copy()) == r.score  # the column keeps the value


@pytest.mark.parametrize("g", [Geometry(8, 8), Geometry(16, 16)], ids=lambda g: g.name)
def test_tactics_and_determinism_on_large_boards(g):
    engine = Engine(g, tt_mb=4)
    last = g.width - 1
    r = engine.search(Position.from_moves([0, last, 0, last, 0, last], g), max_depth=4)
    assert r.column == 0 and r.proven  # three in column 1: the first player completes it
    block = Position.from_moves([0, last, 0, last, 0], g)  # the second player must block column 1
    assert engine.search(block, max_depth=4).column == 0
    a = engine.search(Position(g), max_depth=6)
    b = engine.search(Position(g), max_depth=6)
    assert (a.column, a.score, a.nodes, a.pv) == (b.column, b.score, b.nodes, b.pv)
    assert a.depth == 6 and 0 <= a.column < g.width and a.nodes > 100
    timed = engine.search(Position(g), budget_ms=200)
    assert timed.depth >= 1 and Position(g).can_play(timed.column)
