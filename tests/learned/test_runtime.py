"""The pv net's two runtimes (ONNX Runtime, numpy) answer alike; the choice
follows C4_NET_RUNTIME, and a bad choice leaves the pv players out, clearly."""

import json
import logging

import numpy as np
import pytest

from connect4 import Position
from engine_svc.learned.onnxnet import OnnxPolicyValueNet
from engine_svc.learned.players import load_pv
from engine_svc.learned.pvnet import PolicyValueNet
from engine_svc.learned.runtime import chosen_runtime, make_pv
from engine_svc.learned.weights import pv_shapes
from engine_svc.players import UnavailablePlayer, list_players, make_player

from tests.c4cli import run_c4
from .helpers import random_arrays, write_random_models


@pytest.mark.parametrize("meta", [{"channels": 8, "blocks": 1, "value_hidden": 16},
                                  {"channels": 4, "blocks": 3, "value_hidden": 8},
                                  {"channels": 6, "blocks": 0, "value_hidden": 4}])
def test_both_runtimes_give_the_same_outputs_for_any_shape(meta):
    arrays = random_arrays(pv_shapes(meta), seed=meta["blocks"])
    rng = np.random.default_rng(1)
    x = np.zeros((33, 2, 6, 7), np.float32)
    cells = rng.random((33, 6, 7))
    x[:, 0], x[:, 1] = cells < 0.3, cells > 0.7  # stones of both sides, never on one cell
    lo, vo = OnnxPolicyValueNet(meta, arrays).forward(x)
    ln, vn = PolicyValueNet(meta, arrays).forward(x)
    assert lo.shape == ln.shape == (33, 7) and vo.shape == vn.shape == (33,)
    assert np.allclose(lo, ln, atol=1e-4) and np.allclose(vo, vn, atol=1e-5)
    lo1, vo1 = OnnxPolicyValueNet(meta, arrays).forward(x[:1])  # batch 1 as batched
    assert np.allclose(lo1, lo[:1], atol=1e-5) and np.allclose(vo1, vo[:1], atol=1e-6)


def test_auto_takes_onnxruntime_here_and_the_variable_chooses(monkeypatch):
    monkeypatch.delenv("C4_NET_RUNTIME", raising=False)
    assert chosen_runtime() == "onnxruntime"  # installed with the project
    assert load_pv().runtime == "onnxruntime"
    monkeypatch.setenv("C4_NET_RUNTIME", "numpy")
    assert chosen_runtime() == "numpy" and load_pv().runtime == "numpy"
    arrays = random_arrays(pv_shapes({"channels": 4, "blocks": 1, "value_hidden": 4}))
    assert isinstance(make_pv({"channels": 4, "blocks": 1}, arrays, "numpy"), PolicyValueNet)


def test_a_bad_runtime_name_leaves_the_pv_players_out_and_serves_the_rest(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("C4_MODEL_DIR", str(write_random_models(tmp_path / "models")))
    monkeypatch.setenv("C4_NET_RUNTIME", "tensorflow")
    with caplog.at_level(logging.WARNING, logger="engine_svc.learned.availability"):
        for _ in range(2):
            specs = {p.spec for p in list_players()}
            assert "net" not in specs and "az:800" not in specs and "dqn" in specs
    warnings = [r for r in caplog.records if r.name == "engine_svc.learned.availability"]
    assert len(warnings) == 1 and "expected auto, onnxruntime or numpy" in warnings[0].reason
    for spec in ("net", "az:10"):
        with pytest.raises(UnavailablePlayer, match="C4_NET_RUNTIME='tensorflow'"):
            make_player(spec)
    pos = Position.parse("4453")
    for spec in ("dqn", "greedy"):
        assert make_player(spec, seed=1).choose(pos).column in pos.legal_moves()


def test_bench_net_prints_both_runtimes(capsys):
    from c4.main import main

    assert main(["bench", "net", "--seconds", "0.05", "--sims", "16", "--rounds", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["runtime"] == "onnxruntime"
    for name in ("onnxruntime", "numpy"):
        assert out[f"{name}.forward_per_s_batch1"] > 0 and out[f"{name}.forward_per_s_batch8"] > 0
        assert out[f"{name}.az16_ms_per_move_mean"] > 0 and out[f"{name}.puct_simulations_per_s"] > 0


def test_bench_net_refuses_a_bad_runtime(monkeypatch, capsys):
    monkeypatch.setenv("C4_NET_RUNTIME", "cuda")
    code, err = run_c4(["bench", "net", "--seconds", "0.05", "--sims", "4", "--rounds", "1"], capsys)
    assert code == 2 and "C4_NET_RUNTIME='cuda'" in err
