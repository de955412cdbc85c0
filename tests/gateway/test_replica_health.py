"""Replicas that are not SERVING get no calls: the gateway's channels use
gRPC's client-side health checking (``healthCheckConfig``), so a replica
still warming up, or stopping, is skipped while another one serves, and with
none serving a call fails at once with a clear 'unavailable' instead of
waiting on a warm-up.

Real gRPC servers (servicekit's own, with its health service), answering
ListPlayers with their own name, and the gateway's real ``Services``."""

from __future__ import annotations

import asyncio
import collections
import time

import grpc
import pytest

from c4proto.connect4.v1 import engine_pb2
from gateway.errors import GameError
from gateway.services import Services
from servicekit.grpc_server import build_server, mark_serving

ENGINE = "connect4.v1.EngineService"


def replica(name: str):
    """A started server whose ListPlayers answers one player named ``name``; NOT_SERVING until marked."""

    def list_players(request, context):
        return engine_pb2.ListPlayersResponse(players=[engine_pb2.PlayerInfo(spec=name)])

    def add(server):
        server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(ENGINE, {
            "ListPlayers": grpc.unary_unary_rpc_method_handler(
                list_players, engine_pb2.ListPlayersRequest.FromString,
                engine_pb2.ListPlayersResponse.SerializeToString)})])
        return [ENGINE]

    server, health, port = build_server("127.0.0.1:0", add)
    server.start()
    return server, health, port


async def answered_by(services: Services, calls: int) -> collections.Counter:
    return collections.Counter([(await services.list_players())[0].spec for _ in range(calls)])


@pytest.fixture
def two_replicas():
    made = [replica("a"), replica("b")]
    yield made
    for server, _, _ in made:
        server.stop(None)


def test_a_replica_that_is_not_serving_gets_no_calls_until_it_is(two_replicas):
    (_, health_a, port_a), (_, health_b, port_b) = two_replicas
    mark_serving(health_b)

    async def run():
        services = Services(f"ipv4:127.0.0.1:{port_a},127.0.0.1:{port_b}", "127.0.0.1:1", timeout_s=5)
        try:
            warming = await answered_by(services, 20)
            mark_serving(health_a)
            deadline = time.monotonic() + 10
            while (await answered_by(services, 4))["a"] == 0:  # the health watch streams the change
                assert time.monotonic() < deadline, "the replica marked SERVING never got a call"
            return warming, await answered_by(services, 20)
        finally:
            await services.close()

    warming, both = asyncio.run(run())
    assert warming == {"b": 20}
    assert both["a"] > 0 and both["b"] > 0


def test_with_no_replica_serving_a_call_fails_at_once_and_clearly(two_replicas):
    (_, health_a, port_a), _ = two_replicas

    async def run():
        services = Services(f"127.0.0.1:{port_a}", "127.0.0.1:1", timeout_s=10)
        try:
            start = time.monotonic()
            with pytest.raises(GameError) as err:
                await services.list_players()
            failed_in = time.monotonic() - start
            health = await services.health()
            mark_serving(health_a)
            deadline = time.monotonic() + 10
            while True:
                try:
                    return err.value, failed_in, health, await services.list_players()
                except GameError:
                    assert time.monotonic() < deadline, "the replica marked SERVING never answered"
        finally:
            await services.close()

    error, failed_in, health, players = asyncio.run(run())
    assert error.code == "service_unavailable" and "unhealthy" in error.message, (error.code, error.message)
    assert failed_in < 5  # well inside the call's own 10 s deadline: no waiting on the warm-up
    assert health["engine"] == "down: NOT_SERVING (no replica serving)", health
    assert players[0].spec == "a"
