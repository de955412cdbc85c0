"""`docker compose up --scale engine=N` spreads the gateway's calls over every
replica only if its gRPC channels balance round-robin over all the addresses
the target resolves to (``dns:///engine:50051`` resolves to one address per
replica). Checked on real servers: two gRPC servers behind one target that
lists both addresses, the gateway's own channel, and who answered."""

from __future__ import annotations

import asyncio

import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.deploy.health_replica import serve_health


@pytest.fixture
def two_replicas():
    servers = []
    for _ in range(2):
        server, servicer, port = serve_health("127.0.0.1:0")
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
