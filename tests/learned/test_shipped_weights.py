"""The shipped weights run in both runtimes (ONNX Runtime, numpy) exactly as
the trainer ran them at export (the reference outputs stored beside them then)."""

from pathlib import Path

import numpy as np
import pytest

from engine_svc.learned.encode import planes_many
from engine_svc.learned.runtime import RUNTIMES, make_pv
from engine_svc.learned.qnet import QNet
from engine_svc.learned.weights import MODEL_DIR

MAX_BYTES = 5 * 1024 * 1024


def _reference(weights: Path):
    ref = weights.with_name(weights.stem + ".reference.npz")
    assert ref.is_file(), f"{ref} is shipped with {weights.name}"
    return np.load(ref)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_pv_weights_match_their_reference_outputs(runtime):
    from engine_svc.learned.weights import read_weights

    path = MODEL_DIR / "pv-7x6.npz"
    assert 0 < path.stat().st_size <= MAX_BYTES
    ref = _reference(path)
    net = make_pv(*read_weights(path, "pv"), runtime)
    assert net.runtime == runtime
    logits, value = net.forward(planes_many(ref["current"], ref["mask"]))
    assert len(ref["current"]) >= 32
    assert np.allclose(logits, ref["logits"], atol=1e-4) and np.allclose(value, ref["value"], atol=1e-4)


def test_dqn_weights_match_their_reference_outputs():
    path = MODEL_DIR / "dqn-7x6.npz"
    assert 0 < path.stat().st_size <= MAX_BYTES
    ref = _reference(path)
    q = QNet.load(path).forward(planes_many(ref["current"], ref["mask"]))
    assert len(ref["current"]) >= 32 and np.allclose(q, ref["q"], atol=1e-4)


def test_the_shipped_dqn_is_the_solver_target_one_and_keeps_the_value_on_the_heldout_set():
    """The shipped dqn (docs/results/learned-dqn.md): trained with solver targets, and its greedy
    column keeps the exact value on at least 84 % of the held-out positions (the study-setup dqn: 80.1 %)."""
    from engine_svc.learned.weights import read_weights

    from c4.training.solver_targets import dqn_quality

    path = MODEL_DIR / "dqn-7x6.npz"
    meta, _ = read_weights(path, "dqn")
    assert meta["solver_targets"] and meta["bellman_weight"] == 1 and meta["target_decay"] == 0.9
    with np.load(MODEL_DIR / "heldout-7x6.npz") as z:
        held = {k: z[k] for k in ("current", "mask", "ply", "scores", "strong")}
    q = QNet.load(path).forward(planes_many(held["current"], held["mask"]))
    assert dqn_quality(q, held)["move_keeps_value"] >= 0.84
