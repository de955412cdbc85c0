"""A cancelled or abandoned request stops its search: the solver is free again
at once, not at the request's deadline."""

from __future__ import annotations

import time

import grpc
import pytest

from c4proto.connect4.v1 import solver_pb2, solver_pb2_grpc

from .support import KNOWN, TT_LOG2, position

LONG = 120.0  # the deadline of the abandoned search: far beyond the test
EASY, EASY_SCORE = KNOWN[4]


def wait_searching(timeout: float = 60.0) -> None:
    """Until the in-process service's one solver is searching (its busy gauge is 1)."""
    from prometheus_client import REGISTRY

    end = time.monotonic() + timeout
    while REGISTRY.get_sample_value("solver_busy_workers") != 1:
        assert time.monotonic() < end, "the long search never started"
        time.sleep(0.01)


@pytest.fixture
def one_solver():
    """(address, channel) of a service with a single solver: a search that
    keeps running holds it."""
    from solver_svc.server import start_server
    from solver_svc.settings import SolverSettings

    settings = SolverSettings(host="127.0.0.1", port=0, books="none", workers=1, tt_log2=TT_LOG2,
                              metrics_port=0, cache_size=0)
    server, port, _ = start_server(settings)
    address = f"127.0.0.1:{port}"
    channel = grpc.insecure_channel(address)
    yield address, channel
    channel.close()
    server.stop(0)


def _long_search(stub, rpc: str):
    empty = position("")  # the empty board: minutes of search without a book
    if rpc == "Solve":
        return stub.Solve.future(solver_pb2.SolveRequest(position=empty), timeout=LONG)
    return stub.Analyze.future(solver_pb2.AnalyzeRequest(position=empty), timeout=LONG)


@pytest.mark.parametrize("rpc, how", [("Solve", "cancel"), ("Analyze", "cancel"), ("Solve", "client gone")])
def test_a_cancelled_search_frees_its_solver(one_solver, rpc, how):
    address, channel = one_solver
    stub = solver_pb2_grpc.SolverServiceStub(channel)
    if how == "cancel":
        call = _long_search(stub, rpc)
        wait_searching()
        call.cancel()
        assert call.code() == grpc.StatusCode.CANCELLED
    else:
        other = grpc.insecure_channel(address)
        call = _long_search(solver_pb2_grpc.SolverServiceStub(other), rpc)
        wait_searching()
        other.close()  # the client goes away without a word
    # The one solver is free again: an easy request (which waits for it) is
    # answered well before the abandoned search's deadline.
    s = stub.Solve(solver_pb2.SolveRequest(position=position(EASY)), timeout=15)
    assert (s.source, s.score) == ("solver", EASY_SCORE)
