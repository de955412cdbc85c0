"""`docker compose up --scale engine=N` spreads the gateway's calls over every
replica only if its gRPC channels balance round-robin over all the addresses
the target resolves to (``dns:///engine:50051`` resolves to one address per
replica). Checked on real servers: two gRPC servers behind one target that
lists both addresses, the gateway's own channel, and who answered."""

from __future__ import annotations

import asyncio
from concurrent import futures

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from c4.stack.plan import free_port


class CountingHealth(health.HealthServicer):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def Check(self, request, context):
        self.calls += 1
        return super().Check(request, context)


@pytest.fixture
def two_replicas():
    servers = []
    for _ in range(2):
        port = free_port()
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        servicer = CountingHealth()
        # as servicekit's servers do: every service name SERVING (the gateway's channels check it)
        for name in ("", "connect4.v1.EngineService", "connect4.v1.SolverService"):
            servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
        health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
        server.add_insecure_port(f"127.0.0.1:{port}")
        server.start()
        servers.append((server, servicer, port))
    yield servers
    for server, _, _ in servers:
        server.stop(0)


def test_gateway_channels_balance_over_every_replica(two_replicas):
    from gateway.services import Services

    target = "ipv4:" + ",".join(f"127.0.0.1:{port}" for _, _, port in two_replicas)

    async def calls():
        services = Services(engine_addr=target, solver_addr=target, timeout_s=5)
        try:
            stub = health_pb2_grpc.HealthStub(services.engine_channel)
            await services.engine_channel.channel_ready()
            for _ in range(20):
                reply = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
                assert reply.status == health_pb2.HealthCheckResponse.SERVING
        finally:
            await services.close()

    asyncio.run(calls())
    counts = [servicer.calls for _, servicer, _ in two_replicas]
    assert sum(counts) == 20
    assert min(counts) >= 5, f"calls per replica: {counts}"
