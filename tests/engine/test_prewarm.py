"""The engine service pre-warms the kernels of large boards in the background (C4_ENGINE_PREWARM)."""

from __future__ import annotations

import pytest

from connect4 import Geometry, InvalidGeometry, Position
from engine_svc.server import EngineServicer, prewarm, prewarm_boards
from engine_svc.settings import EngineSettings


def test_prewarm_boards_keeps_the_large_ones_and_refuses_a_bad_one():
    assert prewarm_boards("8x8, 9x7k5,7x6") == [Geometry(8, 8), Geometry(9, 7, 5)]
    assert prewarm_boards("none") == [] and prewarm_boards("") == []
    with pytest.raises(InvalidGeometry, match="C4_ENGINE_PREWARM: '17x8' is not a board"):
        prewarm_boards("17x8")


def test_prewarm_compiles_in_a_thread_and_the_engine_then_plays_that_board():
    servicer = EngineServicer(EngineSettings(books="none", tt_mb=1.0))
    thread = prewarm(servicer, [Geometry(8, 8)])
    thread.join(900)
    assert not thread.is_alive()
    with servicer.pool.engine(Geometry(8, 8)) as engine:  # the engine the thread searched with
        result = engine.search(Position.from_moves([3, 4], Geometry(8, 8)), max_depth=3)
    assert 0 <= result.column < 8
    from engine_svc.players.counted import counted_kernels

    hits = counted_kernels.cache_info().hits
    assert counted_kernels(Geometry(8, 8)).geometry.wide
    assert counted_kernels.cache_info().hits == hits + 1  # search's (and solver's) kernels: made by the thread
