"""The external backend for real: our own ``c4 solve -a`` (Pons' line
protocol) as the child process, killed to see the restart, and a command that
cannot start to see the built-in solver answer."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import grpc
import pytest
from prometheus_client import REGISTRY

from c4proto.connect4.v1 import solver_pb2, solver_pb2_grpc
from connect4 import Position
from solver_svc.external import ExternalFailed, ExternalPool, command_line, parse_answer

from .support import KNOWN, TT_LOG2, position, scores_of, start

C4_SOLVE = f"{sys.executable} -m c4.main solve --tt-log2 {TT_LOG2}"  # "-a" is added by the adapter


@pytest.fixture(scope="module")
def external_service():
    server, channel, oracle = start({"backend": "external", "external_cmd": C4_SOLVE, "external_pool": 2})
    yield solver_pb2_grpc.SolverServiceStub(channel), oracle
    channel.close()
    server.stop(0)
    oracle.external.close()


def test_command_line_adds_analyze_flag_and_keeps_extra_args():
    assert command_line("c4solver -b book.bin") == ["c4solver", "-b", "book.bin", "-a"]
    assert command_line("c4solver -a -w") == ["c4solver", "-a", "-w"]


def test_parse_answer_variants():
    pos = Position.parse("1212214444443")  # column 4 full
    full = "1212214444443 -3 2 1 -1000 0 1 -1"
    assert parse_answer(full, "1212214444443", pos) == (-3, 2, 1, None, 0, 1, -1)
    missing = "1212214444443 -3 2 1 0 1 -1"  # full columns left out
    assert parse_answer(missing, "1212214444443", pos) == (-3, 2, 1, None, 0, 1, -1)
    assert parse_answer(" 1 2 3 4 3 2 1", "", Position()) == (1, 2, 3, 4, 3, 2, 1)
    for bad in ("", "999 1 2 3", "1212214444443 a b c d e f g", "1212214444443 1 2 3 4 5 6 7"):
        with pytest.raises(ExternalFailed):
            parse_answer(bad, "1212214444443", pos)


def test_external_answers(external_service):
    stub, oracle = external_service
    oracle.cache.clear_memory()
    for moves, expected in KNOWN[:3]:
        r = stub.Solve(solver_pb2.SolveRequest(position=position(moves)))
        assert (r.score, r.source) == (expected, "external")
    a = stub.Analyze(solver_pb2.AnalyzeRequest(position=position("1212214444443")))
    assert a.source == "external" and scores_of(a)[3] is None
    from solver_svc.solver import Solver

    assert scores_of(a) == Solver(tt_log2=TT_LOG2).analyze(Position.parse("1212214444443"))


def test_dead_child_is_restarted_before_the_next_query(external_service):
    stub, oracle = external_service
    oracle.cache.clear_memory()
    pool = oracle.external
    restarts = REGISTRY.get_sample_value("solver_external_restarts_total")
    old = {p.pid for p in pool.processes}
    for p in pool.processes:
        os.kill(p.pid, signal.SIGKILL)
        p.proc.wait(10)
    moves, expected = KNOWN[3]
    r = stub.Solve(solver_pb2.SolveRequest(position=position(moves)))
    assert (r.score, r.source) == (expected, "external")  # a fresh child answered
    assert REGISTRY.get_sample_value("solver_external_restarts_total") > restarts
    assert {p.pid for p in pool.processes if p.alive()} - old


def test_child_killed_mid_query_builtin_answers(external_service):
    stub, oracle = external_service
    oracle.cache.clear_memory()
    pool = oracle.external
    fallbacks = REGISTRY.get_sample_value("solver_fallbacks_total") or 0.0
    moves = "32164625"  # Test_L1_R1: score 11, a second or more of search
    answer = {}

    def ask():
        answer["r"] = stub.Solve(solver_pb2.SolveRequest(position=position(moves)))

    t = threading.Thread(target=ask)
    t.start()
    busy = None
    deadline = time.monotonic() + 60
    while busy is None and time.monotonic() < deadline:  # the child that took the query
        busy = next((p for p in pool.processes if p not in list(pool._idle.queue)), None)
        time.sleep(0.01)
    assert busy is not None
    time.sleep(0.2)
    os.kill(busy.pid, signal.SIGKILL)
    t.join(300)
    r = answer["r"]
    assert r.score == 11
    if r.source == "solver":  # the kill landed mid-search (it nearly always does)
        assert REGISTRY.get_sample_value("solver_fallbacks_total") == fallbacks + 1
    else:  # the child had answered before the kill
        assert r.source == "external"
    assert stub.Solve(solver_pb2.SolveRequest(position=position(KNOWN[2][0]))).score == KNOWN[2][1]


def test_deadline_kills_the_busy_child(external_service):
    stub, oracle = external_service
    oracle.cache.clear_memory()
    with pytest.raises(grpc.RpcError) as err:
        stub.Solve(solver_pb2.SolveRequest(position=position("4"), deadline_ms=200))
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    moves, expected = KNOWN[4]
    r = stub.Solve(solver_pb2.SolveRequest(position=position(moves)))
    assert r.score == expected and r.source in ("external", "solver")


def test_a_command_that_cannot_start_falls_back_to_builtin():
    server, channel, oracle = start({"backend": "external", "external_cmd": "/nonexistent/c4solver"}, None)
    try:
        stub = solver_pb2_grpc.SolverServiceStub(channel)
        moves, expected = KNOWN[0]
        r = stub.Solve(solver_pb2.SolveRequest(position=position(moves)))
        assert (r.score, r.source) == (expected, "solver")
    finally:
        channel.close()
        server.stop(0)


def test_pool_restarts_a_dead_process_itself():
    pool = ExternalPool(C4_SOLVE, size=1)
    try:
        pos = Position.parse(KNOWN[1][0])
        first = pool.analyze(pos, timeout=120)
        pid = pool.processes[0].pid
        pool.processes[0].proc.kill()
        pool.processes[0].proc.wait(10)
        assert pool.analyze(pos, timeout=120) == first
        assert pool.processes[0].pid != pid and pool.processes[0].starts == 2
    finally:
        pool.close()


def test_a_cancel_kills_the_busy_child(external_service):
    """The protocol cannot interrupt a search: a cancelled query kills its
    child (a fresh one starts on the next query) instead of leaving it busy."""
    stub, oracle = external_service
    oracle.cache.clear_memory()

    def cancelled() -> float:
        return REGISTRY.get_sample_value("solver_external_failures_total", {"reason": "cancelled"}) or 0.0

    before = cancelled()
    call = stub.Solve.future(solver_pb2.SolveRequest(position=position("4")))  # minutes without a book
    time.sleep(0.5)
    call.cancel()
    assert call.code() == grpc.StatusCode.CANCELLED
    end = time.monotonic() + 10  # a bounded wait for the service to see the cancel
    while cancelled() == before and time.monotonic() < end:
        time.sleep(0.05)
    assert cancelled() == before + 1
    moves, expected = KNOWN[4]
    r = stub.Solve(solver_pb2.SolveRequest(position=position(moves)))
    assert r.score == expected and r.source in ("external", "solver")
