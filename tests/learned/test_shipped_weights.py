"""The shipped weights run in the numpy runtime exactly as the trainer ran
them at export (the reference outputs stored beside them then)."""

from pathlib import Path

import numpy as np

from engine_svc.learned.encode import planes_many
from engine_svc.learned.pvnet import PolicyValueNet
from engine_svc.learned.qnet import QNet
from engine_svc.learned.weights import MODEL_DIR

MAX_BYTES = 5 * 1024 * 1024


def _reference(weights: Path):
    ref = weights.with_name(weights.stem + ".reference.npz")
    assert ref.is_file(), f"{ref} is shipped with {weights.name}"
    return np.load(ref)


def test_pv_weights_match_their_reference_outputs():
    path = MODEL_DIR / "pv-7x6.npz"
    assert 0 < path.stat().st_size <= MAX_BYTES
    ref = _reference(path)
    logits, value = PolicyValueNet.load(path).forward(planes_many(ref["current"], ref["mask"]))
    assert len(ref["current"]) >= 32
    assert np.allclose(logits, ref["logits"], atol=1e-4) and np.allclose(value, ref["value"], atol=1e-4)


def test_dqn_weights_match_their_reference_outputs():
    path = MODEL_DIR / "dqn-7x6.npz"
    assert 0 < path.stat().st_size <= MAX_BYTES
    ref = _reference(path)
    q = QNet.load(path).forward(planes_many(ref["current"], ref["mask"]))
    assert len(ref["current"]) >= 32 and np.allclose(q, ref["q"], atol=1e-4)
