"""The engine service on boards past 64 bits, over a real gRPC server: Move
(engine, minimax, mcts, greedy), Think's depths and Evaluate on 8x8 and
16x16; a learned player or a board off the limits is INVALID_ARGUMENT with its
reason, and the service goes on answering."""

from __future__ import annotations

import grpc
import pytest

from c4proto.connect4.v1 import common_pb2, engine_pb2, engine_pb2_grpc
from engine_svc.server import EngineServicer, add_servicer
from engine_svc.settings import EngineSettings
from servicekit.grpc_server import build_server

from ..conftest import free_port


@pytest.fixture(scope="module")
def stub(tmp_path_factory):
    book = tmp_path_factory.mktemp("books") / "book.txt"
    book.write_text("")
    settings = EngineSettings(port=free_port(), tt_mb=8, books=str(book), max_concurrent=2, metrics_port=0)
    server, _, port = build_server(f"127.0.0.1:{settings.port}", add_servicer(EngineServicer(settings)),
                                   max_workers=4)
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    yield engine_pb2_grpc.EngineServiceStub(channel)
    channel.close()
    server.stop(0)


def pos(moves, width, height, k=4):
    return common_pb2.Position(moves=moves, width=width, height=height, k=k)


@pytest.mark.parametrize("width,height", [(8, 8), (16, 16)])
def test_moves_depths_and_evaluation_on_large_boards(stub, width, height):
    last = width
    three = pos([1, last, 1, last, 1, last], width, height)  # 1-based: three in column 1
    for spec in ("engine:200", "minimax:2", "mcts:100", "greedy"):
        r = stub.Move(engine_pb2.MoveRequest(position=three, player=spec, seed=1))
        assert r.column == 1, spec
    depths = [m.progress.depth for m in stub.Think(engine_pb2.MoveRequest(position=pos([4], width, height),
                                                                       player="engine:300"))
              if m.HasField("progress")]
    assert depths and depths == sorted(depths)
    e = stub.Evaluate(engine_pb2.EvaluateRequest(position=pos([4, 4, 5, 5, 6], width, height)))
    assert {(c.column, c.row) for c in e.first_threats} == {(3, 1), (7, 1)}


@pytest.mark.parametrize("request_pos,player,fragment", [
    (pos([], 8, 8), "net", "7x6 only, not 8x8"),
    (pos([], 17, 6), "engine:100", "board 17x6 is out of range: width and height 1..16"),
    (pos([9], 8, 8), "engine:100", "column 9 is off the board (1..8)"),
])
def test_what_cannot_be_played_is_invalid_argument(stub, request_pos, player, fragment):
    with pytest.raises(grpc.RpcError) as err:
        stub.Move(engine_pb2.MoveRequest(position=request_pos, player=player))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and fragment in err.value.details()
    assert stub.Move(engine_pb2.MoveRequest(position=pos([4], 8, 8), player="greedy")).column >= 1
