"""The solver service on a real gRPC server: answers, errors, deadlines,
cache, health, reflection, concurrency."""

from __future__ import annotations

import threading

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from prometheus_client import REGISTRY

from c4proto.connect4.v1 import solver_pb2
from connect4 import Position
from solver_svc.solver import Solver

from .support import KNOWN, TT_LOG2, position, scores_of


def reference_analysis(moves: str) -> list[int | None]:
    return Solver(tt_log2=TT_LOG2).analyze(Position.parse(moves))


def test_health_serving_and_reflection(service):
    _, channel, _ = service
    status = health_pb2_grpc.HealthStub(channel).Check(
        health_pb2.HealthCheckRequest(service="connect4.v1.SolverService")).status
    assert status == health_pb2.HealthCheckResponse.SERVING
    refl = reflection_pb2_grpc.ServerReflectionStub(channel)
    answer = next(refl.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")])))
    assert "connect4.v1.SolverService" in {s.name for s in answer.list_services_response.service}


@pytest.mark.parametrize("moves,expected", KNOWN)
def test_solve_matches_pons_test_sets(service, moves, expected):
    stub, _, _ = service
    strong = stub.Solve(solver_pb2.SolveRequest(position=position(moves)))
    assert (strong.score, strong.proven, strong.weak) == (expected, True, False)
    weak = stub.Solve(solver_pb2.SolveRequest(position=position(moves), weak=True))
    assert weak.score == (expected > 0) - (expected < 0) and weak.weak


def test_analyze_and_best_move(service):
    stub, _, _ = service
    moves = "5554224333234511764415115"
    expected = reference_analysis(moves)
    a = stub.Analyze(solver_pb2.AnalyzeRequest(position=position(moves)))
    assert [c.column for c in a.columns] == list(range(1, 8))
    assert scores_of(a) == expected
    best = stub.BestMove(solver_pb2.BestMoveRequest(position=position(moves)))
    assert best.proven and best.score == max(s for s in expected if s is not None) == 4
    # centre-first tie break among the best columns
    ties = [c for c, s in enumerate(expected) if s == best.score]
    assert best.column - 1 == min(ties, key=lambda c: (abs(2 * c - 6), c))


def test_analyze_reports_full_columns_as_unset(service):
    stub, _, _ = service
    a = stub.Analyze(solver_pb2.AnalyzeRequest(position=position("1212214444443")))
    got = scores_of(a)
    assert got[3] is None and not a.columns[3].HasField("score")
    assert got == reference_analysis("1212214444443")


def test_cache_answers_repeats_without_search(service):
    stub, _, oracle = service
    moves = "7422341735647741166133573473242566"
    hits_before = REGISTRY.get_sample_value("solver_cache_hits_total", {"layer": "memory"}) or 0.0
    first = stub.Analyze(solver_pb2.AnalyzeRequest(position=position(moves)))
    again = stub.Analyze(solver_pb2.AnalyzeRequest(position=position(moves)))
    assert first.source == "solver" and again.source == "cache" and again.nodes == 0
    assert scores_of(first) == scores_of(again)
    # the mirror image shares the entry, columns mirrored
    mirror = "".join(str(8 - int(c)) for c in moves)
    m = stub.Analyze(solver_pb2.AnalyzeRequest(position=position(mirror)))
    assert m.source == "cache" and scores_of(m) == scores_of(first)[::-1]
    # Solve and BestMove are answered from the cached analysis too
    s = stub.Solve(solver_pb2.SolveRequest(position=position(moves)))
    assert s.source == "cache" and s.score == 1
    b = stub.BestMove(solver_pb2.BestMoveRequest(position=position(moves)))
    assert b.source == "cache" and b.score == 1
    hits_after = REGISTRY.get_sample_value("solver_cache_hits_total", {"layer": "memory"})
    assert hits_after >= hits_before + 4


@pytest.mark.parametrize("pos,fragment", [
    (position("12345678"), "column 8 is off the board"),
    (position("0"), "column 0 is off the board"),
    (position("4444444"), "column 4 is full"),
    (position("1212121"), "game is over"),
    (position("", width=20), "width and height 1..16"),
    (position("", k=9), "line length 9 does not fit"),
])
def test_bad_positions_are_invalid_argument(service, pos, fragment):
    stub, _, _ = service
    for call, req in ((stub.Solve, solver_pb2.SolveRequest(position=pos)),
                      (stub.Analyze, solver_pb2.AnalyzeRequest(position=pos)),
                      (stub.BestMove, solver_pb2.BestMoveRequest(position=pos))):
        with pytest.raises(grpc.RpcError) as err:
            call(req)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert fragment in err.value.details()
    # and the service still answers
    assert stub.Solve(solver_pb2.SolveRequest(position=position(KNOWN[0][0]))).score == KNOWN[0][1]


def test_budgets_give_deadline_exceeded_never_a_value(service):
    stub, _, _ = service
    # One stone on the board: no proof in 30 ms or 2000 nodes on this machine's solver.
    for req in (solver_pb2.SolveRequest(position=position("4"), deadline_ms=30),
                solver_pb2.SolveRequest(position=position("4"), node_budget=2000),
                solver_pb2.AnalyzeRequest(position=position("4"), deadline_ms=30)):
        call = stub.Solve if isinstance(req, solver_pb2.SolveRequest) else stub.Analyze
        with pytest.raises(grpc.RpcError) as err:
            call(req)
        assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    # the gRPC deadline itself caps the search
    with pytest.raises(grpc.RpcError) as err:
        stub.Solve(solver_pb2.SolveRequest(position=position("3")), timeout=0.3)
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    # BestMove answers "not proved" instead of an error
    b = stub.BestMove(solver_pb2.BestMoveRequest(position=position("4"), deadline_ms=30))
    assert not b.proven and b.column == 0
    # ... and the solvers are free again afterwards
    assert stub.Solve(solver_pb2.SolveRequest(position=position(KNOWN[1][0]))).score == KNOWN[1][1]


def test_several_solves_at_once(service):
    stub, _, oracle = service
    oracle.cache.clear_memory()
    results: dict[str, int] = {}
    errors: list[Exception] = []

    def ask(moves):
        try:
            results[moves] = stub.Solve(solver_pb2.SolveRequest(position=position(moves))).score
        except Exception as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=ask, args=(m,)) for m, _ in KNOWN]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results == dict(KNOWN)


def test_other_board_sizes(service):
    stub, _, _ = service
    # 4x4, connect 3: brute force below is the oracle
    pos = position("21", width=4, height=4, k=3)
    got = stub.Analyze(solver_pb2.AnalyzeRequest(position=pos))
    assert scores_of(got) == reference_small("21")


def reference_small(moves: str) -> list[int | None]:
    """Negamax over the whole tree of a 4x4 connect-3 board, Pons' scores."""
    from connect4 import Geometry

    g = Geometry(4, 4, 3)

    def value(p: Position) -> int:
        if p.ply == g.cells:
            return 0
        best = -g.cells
        for c in p.legal_moves():
            if p.is_winning_move(c):
                return (g.cells + 1 - p.ply) // 2
        for c in p.legal_moves():
            child = p.played(c)
            best = max(best, 0 if child.ply == g.cells else -value(child))
        return best

    p = Position.parse(moves, g)
    out = []
    for c in range(g.width):
        if not p.can_play(c):
            out.append(None)
        elif p.is_winning_move(c):
            out.append((g.cells + 1 - p.ply) // 2)
        else:
            child = p.played(c)
            out.append(0 if child.ply == g.cells else -value(child))
    return out
