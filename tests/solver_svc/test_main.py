"""``python -m solver_svc`` as a process: configured by C4_SOLVER_*, health
SERVING once warm, Prometheus metrics with the cache counters, a clean stop
on SIGTERM."""

from __future__ import annotations

import signal
import urllib.request

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from c4proto.connect4.v1 import solver_pb2, solver_pb2_grpc
from c4.bench._solver_service import _free_port as free_port
from c4.bench._solver_service import spawn_service, wait_serving

from .support import KNOWN, TT_LOG2, position


def test_python_m_solver_svc_serves_after_warm_up():
    metrics_port = free_port()
    proc, address = spawn_service(TT_LOG2, {"C4_SOLVER_METRICS_PORT": str(metrics_port),
                                            "C4_SOLVER_CACHE_SIZE": "1000", "C4_SOLVER_WORKERS": "2"})
    try:
        wait_serving(address, timeout=300)
        with grpc.insecure_channel(address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            assert health.Check(health_pb2.HealthCheckRequest(service="connect4.v1.SolverService")).status == \
                health_pb2.HealthCheckResponse.SERVING
            stub = solver_pb2_grpc.SolverServiceStub(channel)
            moves, expected = KNOWN[2]
            for source in ("solver", "cache"):
                r = stub.Solve(solver_pb2.SolveRequest(position=position(moves)))
                assert (r.score, r.source) == (expected, source)
        text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).read().decode()
        assert 'solver_cache_hits_total{layer="memory"} 1.0' in text
        assert "grpc_server_requests_total" in text
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0


def test_sigterm_during_a_long_search_stops_the_process():
    """The empty board takes the solver minutes: SIGTERM must not wait for it.
    The grace for running requests is 1 s here; then the search is stopped."""
    import time

    metrics_port = free_port()
    proc, address = spawn_service(TT_LOG2, {"C4_SOLVER_SHUTDOWN_GRACE_S": "1",
                                            "C4_SOLVER_METRICS_PORT": str(metrics_port)})
    try:
        wait_serving(address, timeout=300)
        with grpc.insecure_channel(address) as channel:
            call = solver_pb2_grpc.SolverServiceStub(channel).Solve.future(
                solver_pb2.SolveRequest(position=position("")))
            end = time.monotonic() + 60
            while "solver_busy_workers 1.0" not in urllib.request.urlopen(
                    f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).read().decode():
                assert time.monotonic() < end, "the long search never started"
                time.sleep(0.02)
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(60)  # a bounded wait: the search alone would take minutes
            assert code == 0
            assert call.exception() is not None  # the request ended without a value
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
