"""The shipped learned players through the same paths as the others: the
ladder in-process, the arena, the engine's gRPC service (also with a bad
weights file), the audit against the solver."""

import json
import os
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from c4proto.connect4.v1 import common_pb2, engine_pb2, engine_pb2_grpc
from connect4 import Position
from engine_svc.players import list_players, make_player
from tests.conftest import free_port, wait_port

from .helpers import write_random_models

REPO = Path(__file__).resolve().parents[2]
LEARNED = ("net", "dqn", "az:10")
# these start real processes (an engine service, c4 arena twice): slow on a loaded machine
pytestmark = pytest.mark.timeout(1800)


def _c4(*args, timeout=900, env=None):
    return subprocess.run([sys.executable, "-m", "c4.main", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=REPO, env=env)


def _engine(tmp_path: Path, extra_env: dict | None = None):
    port = free_port()
    env = dict(os.environ, C4_ENGINE_PORT=str(port), C4_ENGINE_METRICS_PORT="0", C4_ENGINE_BOOKS="none",
               **(extra_env or {}))
    log = tmp_path / "engine.log"
    proc = subprocess.Popen([sys.executable, "-m", "engine_svc"], env=env, stdout=log.open("w"),
                            stderr=subprocess.STDOUT, cwd=REPO)
    try:
        wait_port(port, timeout=240)
    except TimeoutError:
        proc.kill()
        raise
    return proc, port, log


def test_the_shipped_players_are_listed_and_play():
    specs = {p.spec for p in list_players()}
    assert {"net", "dqn", "az:800"} <= specs
    pos = Position.parse("4453")
    for spec in LEARNED:
        a = make_player(spec, seed=1).choose(pos)
        b = make_player(spec, seed=2).choose(pos)
        assert a.column == b.column and a.column in pos.legal_moves()  # deterministic: no dice in them


def test_arena_in_process_and_through_the_service_play_the_same_games(tmp_path):
    proc, port, _ = _engine(tmp_path)
    try:
        common = ["arena", *LEARNED, "--games", "2", "--opening-plies", "4", "--seed", "4",
                  "--engine-books", "none"]
        a = _c4(*common, "--out", str(tmp_path / "a"))
        b = _c4(*common, "--out", str(tmp_path / "b"), "--via-grpc", f"127.0.0.1:{port},")
        assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
        ga, gb = (json.loads((tmp_path / n / "games.json").read_text()) for n in ("a", "b"))
        assert len(ga["games"]) == 3 * 2 and not ga["summary"]["forfeits"]
        assert [(g["first"], g["moves"]) for g in ga["games"]] == [(g["first"], g["moves"]) for g in gb["games"]]
        ranked = {p["player"] for p in ga["summary"]["players"]}
        assert set(LEARNED) <= ranked
    finally:
        proc.terminate()
        proc.wait(30)


def test_a_bad_weights_file_leaves_the_service_serving_everything_else(tmp_path):
    models = write_random_models(tmp_path / "models")
    (models / "pv-7x6.npz").write_bytes((models / "pv-7x6.npz").read_bytes()[:200])  # truncated
    proc, port, log = _engine(tmp_path, {"C4_MODEL_DIR": str(models)})
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = engine_pb2_grpc.EngineServiceStub(channel)
            for _ in range(2):
                specs = [p.spec for p in stub.ListPlayers(engine_pb2.ListPlayersRequest()).players]
                assert "dqn" in specs and "net" not in specs and not any(s.startswith("az") for s in specs)
                assert "greedy" in specs and "engine" in specs
            position = common_pb2.Position(moves=[4, 4, 5, 3])
            for spec in ("greedy", "minimax:3", "dqn", "engine:50"):
                r = stub.Move(engine_pb2.MoveRequest(position=position, player=spec))
                assert 1 <= r.column <= 7
            for spec in ("net", "az:10"):
                with pytest.raises(grpc.RpcError) as err:
                    stub.Move(engine_pb2.MoveRequest(position=position, player=spec))
                assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
                assert "not available" in err.value.details() and "cannot be read" in err.value.details()
            r = stub.Move(engine_pb2.MoveRequest(position=position, player="greedy"))
            assert 1 <= r.column <= 7
    finally:
        proc.terminate()
        proc.wait(30)
    warnings = [line for line in log.read_text().splitlines() if "learned players left out" in line]
    assert len(warnings) == 1 and "pv-7x6.npz" in warnings[0]


def test_audit_scores_the_learned_players_against_the_solver(tmp_path):
    for spec in ("net", "az:10"):
        out = tmp_path / f"{spec.replace(':', '')}.json"
        r = _c4("audit", spec, "--games", "2", "--opening-plies", "14", "--seed", "1", "--json", str(out))
        assert r.returncode == 0, r.stderr
        doc = json.loads(out.read_text())
        summary = doc.get("summary", doc)
        assert summary["player"] == spec and summary["moves_audited"] > 0
