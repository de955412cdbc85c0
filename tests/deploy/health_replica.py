"""A bare gRPC replica for the deploy tests: only the health service, counting
its calls, with every name the gateway's channels health-check marked SERVING
(as servicekit's servers mark theirs after warm-up)."""

from __future__ import annotations

from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

SERVICE_NAMES = ("", "connect4.v1.EngineService", "connect4.v1.SolverService")


class CountingHealth(health.HealthServicer):
    def __init__(self):
        super().__init__()
        self.calls = 0
        for name in SERVICE_NAMES:
            self.set(name, health_pb2.HealthCheckResponse.SERVING)

    def Check(self, request, context):
        self.calls += 1
        return super().Check(request, context)


def serve_health(address: str) -> tuple[grpc.Server, CountingHealth, int]:
    """A started replica on ``address`` ("host:port"); returns it, its servicer and its port."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = CountingHealth()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port(address)
    assert port, f"cannot listen on {address}"
    server.start()
    return server, servicer, port
