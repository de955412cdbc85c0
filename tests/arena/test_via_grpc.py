"""--via-grpc: the same games through the real services as in-process."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import free_port, wait_port

REPO = Path(__file__).resolve().parents[2]
LATE = "5554224333234511764415115"


def _start(module: str, prefix: str, tmp_path: Path):
    port = free_port()
    env = dict(os.environ, **{f"{prefix}PORT": str(port), f"{prefix}METRICS_PORT": "0", f"{prefix}BOOKS": "none"})
    log = open(tmp_path / f"{module}.log", "w")  # noqa: SIM115 (held open past this block)
    proc = subprocess.Popen([sys.executable, "-m", module], env=env, stdout=log, stderr=subprocess.STDOUT, cwd=REPO)
    try:
        wait_port(port, timeout=180)
    except TimeoutError:
        proc.kill()
        raise
    return proc, port


@pytest.fixture(scope="module")
def solver_service(tmp_path_factory):
    proc, port = _start("solver_svc", "C4_SOLVER_", tmp_path_factory.mktemp("svc"))
    yield f"127.0.0.1:{port}"
    proc.terminate()
    proc.wait(30)


@pytest.fixture(scope="module")
def engine_service(tmp_path_factory):
    proc, port = _start("engine_svc", "C4_ENGINE_", tmp_path_factory.mktemp("svc"))
    yield f"127.0.0.1:{port}"
    proc.terminate()
    proc.wait(30)


def _c4(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "c4.main", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=REPO)


def test_versus_through_the_solver_service_equals_in_process(solver_service, tmp_path):
    a = _c4("versus", "greedy", "--solver-seat", "first", "--from", LATE, "--json", str(tmp_path / "a.json"))
    b = _c4("versus", "greedy", "--solver-seat", "first", "--from", LATE, "--json", str(tmp_path / "b.json"),
            "--via-grpc", f",{solver_service}")
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    ja, jb = (json.loads((tmp_path / n).read_text()) for n in ("a.json", "b.json"))
    assert ja == jb


def test_arena_with_the_perfect_player_through_the_service(solver_service, tmp_path):
    out = _c4("arena", "greedy", "perfect", "--games", "2", "--opening-plies", "24", "--seed", "4",
              "--via-grpc", f",{solver_service}", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    doc = json.loads((tmp_path / "games.json").read_text())
    assert doc["config"]["via_grpc"] == {"engine": None, "solver": solver_service}
    assert not doc["summary"]["forfeits"]
    perfect = next(p for p in doc["summary"]["players"] if p["player"] == "perfect")
    assert perfect["total"]["games"] == 2


def test_unreachable_service_is_a_clear_error(tmp_path):
    port = free_port()
    out = _c4("versus", "greedy", "--solver-seat", "first", "--from", LATE, "--via-grpc", f",127.0.0.1:{port}",
              "--deadline-ms", "2000", timeout=120)
    assert out.returncode == 1
    assert f"cannot reach the solver service at 127.0.0.1:{port}" in out.stderr and "Traceback" not in out.stderr


def test_arena_through_both_services_plays_the_same_games(engine_service, solver_service, tmp_path):
    """Untimed deterministic players make the same moves through the engine service as in-process."""
    common = ["arena", "greedy", "minimax:4", "gated", "--games", "4", "--opening-plies", "4", "--seed", "2",
              "--engine-books", "none"]
    a = _c4(*common, "--out", str(tmp_path / "a"))
    b = _c4(*common, "--out", str(tmp_path / "b"), "--via-grpc", f"{engine_service},{solver_service}")
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    ga, gb = (json.loads((tmp_path / n / "games.json").read_text()) for n in ("a", "b"))
    assert gb["config"]["via_grpc"] == {"engine": engine_service, "solver": solver_service}
    assert [(g["first"], g["moves"]) for g in ga["games"]] == [(g["first"], g["moves"]) for g in gb["games"]]
    # node counts travel through the contract too
    mm = next(p for p in gb["summary"]["players"] if p["player"] == "minimax:4")
    assert mm["total"]["mean_nodes"] > 0


def test_bad_spec_through_the_engine_service_is_a_forfeit_with_the_reason(engine_service, tmp_path):
    out = _c4("arena", "greedy", "minimax:99", "--games", "2", "--via-grpc", f"{engine_service},",
              "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    doc = json.loads((tmp_path / "games.json").read_text())
    assert len(doc["summary"]["forfeits"]) == 2
    assert all("INVALID_ARGUMENT" in f for f in doc["summary"]["forfeits"])
