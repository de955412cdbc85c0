"""Service overhead: Analyze through gRPC against the same solver in process.

Used by ``c4 bench solver --service``. Both sides start from an empty table
and analyze the same positions in the same order (the service with one
worker, no books and no cache), so they search exactly the same nodes — the
benchmark checks that — and the difference of the wall times is what the
service costs: serialization, the network stack, the server's threads and
the oracle's bookkeeping.
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import time

import grpc

from c4proto.connect4.v1 import common_pb2, solver_pb2, solver_pb2_grpc
from connect4 import STANDARD, Position


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn_service(tt_log2: int | None, extra_env: dict | None = None) -> tuple[subprocess.Popen, str]:
    """``python -m solver_svc`` on a free port, one worker, no books, no cache."""
    port = _free_port()
    env = dict(os.environ)
    for k in ("C4_SOLVER_REDIS_URL", "REDIS_URL"):
        env.pop(k, None)
    env.update({
        "C4_SOLVER_PORT": str(port), "C4_SOLVER_METRICS_PORT": "0", "C4_SOLVER_BOOKS": "none",
        "C4_SOLVER_CACHE_SIZE": "0", "C4_SOLVER_WORKERS": "1", "C4_SOLVER_LOG_LEVEL": "WARNING",
    })
    if tt_log2 is not None:
        env["C4_SOLVER_TT_LOG2"] = str(tt_log2)
    env.update(extra_env or {})
    proc = subprocess.Popen([sys.executable, "-m", "solver_svc"], env=env, stdout=subprocess.DEVNULL)
    return proc, f"127.0.0.1:{port}"


def wait_serving(address: str, timeout: float = 300.0) -> None:
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            try:
                status = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1).status
                if status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            time.sleep(0.1)
    raise TimeoutError(f"the solver service at {address} was not SERVING after {timeout} s")


def measure(moves_list: list[str], address: str | None, tt_log2: int | None, progress=None) -> dict:
    """Analyze every position in process and through the service; figures."""
    from solver_svc.solver import Solver

    from solver_svc.server import WARMUP_MOVES

    positions = [Position.parse(m) for m in moves_list]
    solver = Solver(STANDARD, tt_log2)
    solver.analyze(Position.parse(WARMUP_MOVES))
    solver.reset()
    local_s, local_nodes = [], []
    remote_s, remote_nodes, server_ms, same_scores = [], [], [], 0
    proc = None
    if address is None:
        proc, address = spawn_service(tt_log2)
    try:
        wait_serving(address)
        with grpc.insecure_channel(address) as channel:
            stub = solver_pb2_grpc.SolverServiceStub(channel)
            stub.Analyze(solver_pb2.AnalyzeRequest(position=common_pb2.Position(moves=[int(c) for c in WARMUP_MOVES])))
            # Interleaved, so both sides see the same load on a shared machine.
            server_cpu0 = _cpu_seconds(proc.pid) if proc is not None else None
            local_cpu = remote_cpu = 0.0
            for i, pos in enumerate(positions, 1):
                c0 = time.process_time()
                t0 = time.perf_counter()
                expected = solver.analyze(pos)
                local_s.append(time.perf_counter() - t0)
                c1 = time.process_time()
                local_cpu += c1 - c0
                local_nodes.append(solver.last_nodes)
                req = solver_pb2.AnalyzeRequest(position=common_pb2.Position(moves=[c + 1 for c in pos.moves]))
                t0 = time.perf_counter()
                r = stub.Analyze(req)
                remote_s.append(time.perf_counter() - t0)
                remote_cpu += time.process_time() - c1
                remote_nodes.append(r.nodes)
                server_ms.append(r.elapsed_ms)
                got = [c.score if c.HasField("score") else None for c in r.columns]
                same_scores += got == list(expected)
                if progress and i % 200 == 0:
                    progress(f"{i}/{len(positions)} positions")
            server_cpu = _cpu_seconds(proc.pid) - server_cpu0 if proc is not None and server_cpu0 is not None else None
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(30)
    diffs = [(r - loc) * 1e6 for r, loc in zip(remote_s, local_s, strict=True)]
    same_nodes = sum(a == b for a, b in zip(local_nodes, remote_nodes, strict=True))
    # When both searched the same nodes the difference is pure overhead.
    clean = [d for d, a, b in zip(diffs, local_nodes, remote_nodes, strict=True) if a == b] or diffs
    n = len(positions)
    transport = sorted((r - h / 1e3) * 1e6 for r, h in zip(remote_s, server_ms, strict=True))
    trimmed = sorted(clean)[len(clean) // 20: len(clean) - len(clean) // 20] or clean
    return {
        "n": n,
        "same_scores": same_scores,
        "same_nodes": same_nodes,
        "mean_nodes": sum(local_nodes) / n if n else 0.0,
        "in_process_mean_us": sum(local_s) / n * 1e6 if n else 0.0,
        "service_mean_us": sum(remote_s) / n * 1e6 if n else 0.0,
        "server_handler_mean_us": sum(server_ms) / n * 1e3 if n else 0.0,
        "overhead_mean_us": statistics.fmean(clean) if clean else 0.0,
        "overhead_trimmed_mean_us": statistics.fmean(trimmed) if trimmed else 0.0,
        "overhead_median_us": statistics.median(clean) if clean else 0.0,
        "overhead_p90_us": sorted(clean)[int(0.9 * (len(clean) - 1))] if clean else 0.0,
        "transport_median_us": transport[len(transport) // 2] if transport else 0.0,
        # CPU time does not depend on the load: client + server CPU of the
        # calls through the service minus the CPU of the same work in process.
        "overhead_cpu_us": (remote_cpu + server_cpu - local_cpu) / n * 1e6 if n and server_cpu is not None else None,
        # Where it goes: this process during the calls (the gRPC client) and the server.
        "client_cpu_per_call_us": remote_cpu / n * 1e6 if n else 0.0,
        "server_cpu_per_call_us": server_cpu / n * 1e6 if n and server_cpu is not None else None,
        "in_process_cpu_per_call_us": local_cpu / n * 1e6 if n else 0.0,
        "load_average": os.getloadavg()[0],
    }


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of a process (Linux /proc), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
