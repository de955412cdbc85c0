"""The counted and regime players over a real engine service: listed, played,
refused with INVALID_ARGUMENT when a clairvoyant cannot know its opponent."""

import grpc
import pytest

from c4proto.connect4.v1 import common_pb2, engine_pb2, engine_pb2_grpc
from engine_svc.server import EngineServicer, add_servicer, warm_up
from engine_svc.settings import EngineSettings
from servicekit.grpc_server import build_server, mark_serving

from ..conftest import free_port

NEW = ["noisy_greedy", "alphabeta", "expectimax", "clairvoyant:greedy", "search", "solver"]


@pytest.fixture(scope="module")
def stub():
    settings = EngineSettings(port=free_port(), tt_mb=8, books="none", max_concurrent=2, metrics_port=0)
    servicer = EngineServicer(settings)
    server, health, port = build_server(f"127.0.0.1:{settings.port}", add_servicer(servicer), max_workers=8)
    server.start()
    warm_up(servicer)
    mark_serving(health)
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    yield engine_pb2_grpc.EngineServiceStub(channel)
    channel.close()
    server.stop(0)


def pos(moves):
    return common_pb2.Position(moves=[int(c) for c in moves])


def test_list_players_names_the_new_players(stub):
    infos = {p.spec: p for p in stub.ListPlayers(engine_pb2.ListPlayersRequest()).players}
    assert set(NEW) <= set(infos)
    assert (infos["noisy_greedy"].param_min, infos["noisy_greedy"].param_max) == (0, 100)
    assert not any(infos[s].takes_budget for s in NEW)


def test_moves_over_grpc_match_in_process_players(stub):
    from connect4 import Position
    from engine_svc.players import make_player

    for spec in NEW + ["noisy_greedy:50", "clairvoyant:minimax:3"]:
        for seed in (1, 2):
            r = stub.Move(engine_pb2.MoveRequest(position=pos("4453"), player=spec, seed=seed))
            local = make_player(spec, seed=seed).choose(Position.parse("4453"))
            assert (r.column - 1, r.nodes, r.message) == (local.column, local.nodes, local.message), spec
            assert r.player == spec


def test_solver_proves_an_end_game_over_grpc(stub):
    r = stub.Move(engine_pb2.MoveRequest(position=pos("2252576253462244111563365343671351441"), player="solver"))
    assert r.proven and r.message.startswith("proved")


@pytest.mark.parametrize("spec,needle", [("clairvoyant", "needs its opponent"),
                                         ("clairvoyant:engine", "cannot know the policy"),
                                         ("search:9", "takes no parameter"),
                                         ("noisy_greedy:500", "0..100")])
def test_bad_new_specs_get_invalid_argument_and_the_service_plays_on(stub, spec, needle):
    with pytest.raises(grpc.RpcError) as err:
        stub.Move(engine_pb2.MoveRequest(position=pos("44"), player=spec))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and needle in err.value.details()
    assert 1 <= stub.Move(engine_pb2.MoveRequest(position=pos("44"), player="search")).column <= 7
