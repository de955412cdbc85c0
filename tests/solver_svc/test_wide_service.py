"""The solver service on boards past 64 bits (8x8, 9x7), over real gRPC:
Solve, Analyze and BestMove near the end against brute force; a column the
budget cannot prove comes back unproved with no score, never a guess."""

from __future__ import annotations

import random
import threading

import grpc
import pytest

from c4proto.connect4.v1 import common_pb2, solver_pb2
from connect4 import Geometry, Position

from solver_svc.warming import KernelWarmer, compile_kernels

from .support import scores_of
from .test_wide_solver import brute_force, quiet_position

BOARDS = [Geometry(8, 8), Geometry(9, 7, 5)]  # 9x7 with lines of 4 is mostly lost at once this near the end


@pytest.fixture(scope="module", autouse=True)
def warm_kernels(service):
    """The boards of these tests compiled first (a cold compile outlasts a request's short wait)."""
    warmer = service[2].pool.warmer
    for g in BOARDS:
        assert warmer.start(g).wait(900)


def proto(pos: Position) -> common_pb2.Position:
    g = pos.geometry
    return common_pb2.Position(width=g.width, height=g.height, k=g.k, moves=[c + 1 for c in pos.moves])


def column_value(pos: Position, c: int) -> int:
    """Pons' score of playing ``c`` by brute force."""
    g = pos.geometry
    if pos.is_winning_move(c):
        return (g.cells + 1 - pos.ply) // 2
    child = pos.played(c)
    return 0 if child.ply == g.cells else -brute_force(child)


@pytest.mark.parametrize("g", BOARDS, ids=lambda g: g.name)
def test_solve_analyze_and_best_move_near_the_end_against_brute_force(service, g):
    stub = service[0]
    rng = random.Random(g.cells)
    seen = set()
    for i in range(6):
        pos = quiet_position(g, g.cells - 8 - i % 2, rng)
        solved = stub.Solve(solver_pb2.SolveRequest(position=proto(pos)), timeout=60)
        exact = brute_force(pos.copy())
        assert (solved.score, solved.proven) == (exact, True), pos.moves
        weak = stub.Solve(solver_pb2.SolveRequest(position=proto(pos), weak=True), timeout=60)
        assert weak.score == (exact > 0) - (exact < 0)
        a = stub.Analyze(solver_pb2.AnalyzeRequest(position=proto(pos)), timeout=60)
        want = [column_value(pos, c) if pos.can_play(c) else None for c in range(g.width)]
        assert scores_of(a) == want, pos.moves
        assert not any(c.unproved for c in a.columns)
        best = stub.BestMove(solver_pb2.BestMoveRequest(position=proto(pos)), timeout=60)
        assert best.proven and best.score == exact and want[best.column - 1] == exact
        seen.add(exact)
    assert len(seen) >= 2  # not one value every time


def test_analyze_proves_what_it_can_and_marks_the_rest_unproved(service):
    stub = service[0]
    g = Geometry(8, 8)
    # First player on d1 e1 f1 (c1 is the second's): the second must block at g1; every
    # other column lets the first win at once (proved), g is far from proved.
    pos = Position.from_moves([3, 2, 4, 4, 5], g)
    a = stub.Analyze(solver_pb2.AnalyzeRequest(position=proto(pos), node_budget=20_000), timeout=60)
    lost = -((g.cells + 1 - (pos.ply + 1)) // 2)
    by_col = {c.column: c for c in a.columns}
    assert by_col[7].unproved and not by_col[7].HasField("score")
    for col in (1, 2, 3, 4, 5, 6, 8):
        assert not by_col[col].unproved and by_col[col].score == lost, col
    assert a.nodes >= 20_000


def test_the_empty_large_board_within_a_deadline(service):
    stub = service[0]
    empty = common_pb2.Position(width=9, height=7, k=5)
    a = stub.Analyze(solver_pb2.AnalyzeRequest(position=empty, deadline_ms=300), timeout=30)
    assert [c.unproved for c in a.columns] == [True] * 9 and scores_of(a) == [None] * 9
    with pytest.raises(grpc.RpcError) as err:
        stub.Solve(solver_pb2.SolveRequest(position=empty, deadline_ms=300), timeout=30)
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    best = stub.BestMove(solver_pb2.BestMoveRequest(position=empty, deadline_ms=300), timeout=30)
    assert not best.proven and best.column == 0


def test_bad_large_board_positions_are_refused(service):
    stub = service[0]
    for moves, text in (([9] * 9, "column 9 is full"), ([10], "off the board")):
        with pytest.raises(grpc.RpcError) as err:
            stub.Solve(solver_pb2.SolveRequest(position=common_pb2.Position(width=9, height=8, moves=moves)),
                       timeout=30)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert text in err.value.details().lower() or "column" in err.value.details().lower()
    # the service still answers
    won = Position.from_moves([0, 1, 0, 1, 0, 1], Geometry(8, 8))
    assert stub.Solve(solver_pb2.SolveRequest(position=proto(won)), timeout=30).score == (65 - 6) // 2


def test_a_size_still_compiling_gets_a_quick_clear_answer_then_works(service):
    stub, _, oracle = service
    g = Geometry(9, 7, 6)  # not warmed by this service yet (compiled elsewhere in the tests: its cache is warm)
    go = threading.Event()

    def held_compile(board):  # the real compile, held back until the test lets it go
        go.wait(600)
        compile_kernels(board)

    oracle.pool.warmer = KernelWarmer(held_compile)
    pos = common_pb2.Position(width=9, height=7, k=6, moves=[5, 5])
    with pytest.raises(grpc.RpcError) as err:
        stub.Analyze(solver_pb2.AnalyzeRequest(position=pos, deadline_ms=5000), timeout=30)
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert err.value.details().startswith("warming up the solver's kernels for 9x7k6, try again in ")
    retry = dict(err.value.trailing_metadata())["retry-after-s"]
    assert int(retry) >= 1 and err.value.details().endswith(f"in {retry} s")
    go.set()
    assert oracle.pool.warmer.start(g).wait(900)
    a = stub.Analyze(solver_pb2.AnalyzeRequest(position=pos, deadline_ms=300), timeout=30)
    assert len(a.columns) == 9 and all(c.unproved for c in a.columns)


def test_prewarm_sizes_keeps_the_large_boards_and_names_a_bad_one():
    from solver_svc.server import prewarm_sizes

    assert prewarm_sizes("8x8, 9x7k5,7x6") == [Geometry(8, 8), Geometry(9, 7, 5)]
    assert prewarm_sizes("none") == [] and prewarm_sizes("") == []
    with pytest.raises(ValueError, match="C4_SOLVER_PREWARM: '17x8' is not a board"):
        prewarm_sizes("8x8,17x8")
