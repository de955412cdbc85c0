"""Helpers of the solver service tests: known positions, a server on a free port."""

from __future__ import annotations

import grpc

from c4proto.connect4.v1 import common_pb2

# Cheap positions with known scores (Pons' test sets: Test_L3_R1 and Test_L2_R1).
KNOWN = [
    ("2252576253462244111563365343671351441", -1),
    ("7422341735647741166133573473242566", 1),
    ("23163416124767223154467471272416755633", 0),
    ("5554224333234511764415115", 4),
    ("52753311433677442422121", 8),
]
TT_LOG2 = 20  # small tables: tests are about the service, not the solver's speed


def position(moves: str = "", **size) -> common_pb2.Position:
    return common_pb2.Position(moves=[int(c) for c in moves], **size)


def scores_of(response) -> list[int | None]:
    return [c.score if c.HasField("score") else None for c in response.columns]


def start(settings_kwargs: dict, oracle=None):
    from solver_svc.server import start_server
    from solver_svc.settings import SolverSettings

    kw = dict(host="127.0.0.1", port=0, books="none", workers=2, tt_log2=TT_LOG2, metrics_port=0)
    kw.update(settings_kwargs)
    settings = SolverSettings(**kw)
    server, port, oracle = start_server(settings, oracle)
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    return server, channel, oracle


