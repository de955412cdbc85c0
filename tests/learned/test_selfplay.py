"""`c4 train selfplay` (PyTorch): a generation plays, trains, is gated and
recorded; its export runs in numpy as PyTorch ran it; bad input is refused
before any work."""

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from c4.main import main  # noqa: E402
from engine_svc.learned.encode import planes_many  # noqa: E402
from engine_svc.learned.pvnet import PolicyValueNet  # noqa: E402
from engine_svc.learned.weights import pv_shapes, write_weights  # noqa: E402
from tests.c4cli import run_c4  # noqa: E402

from .helpers import PV_META, random_arrays  # noqa: E402
from .test_training import late_positions  # noqa: E402


@pytest.fixture(scope="module")
def start_and_labels(tmp_path_factory):
    root = tmp_path_factory.mktemp("selfplay")
    start = write_weights(root / "start.npz", "pv", PV_META, random_arrays(pv_shapes(PV_META)))
    cur, msk, scores = late_positions(n=24)
    blocks = root / "labels"
    blocks.mkdir()
    np.savez(blocks / "block-00000.npz", current=cur, mask=msk, ply=np.full(len(cur), 28, np.int8),
             scores=scores, strong=np.ones(len(cur), bool))
    return start, blocks


def test_a_generation_is_played_trained_gated_recorded_and_exported(start_and_labels, tmp_path, capsys):
    start, labels = start_and_labels
    out, export = tmp_path / "run", tmp_path / "kept.npz"
    assert main(["train", "selfplay", "--start", str(start), "--labels", str(labels), "--out", str(out),
                 "--generations", "1", "--games", "2", "--sims", "4", "--epochs", "1",
                 "--gate-pairs", "1", "--gate-sims", "4", "--seed", "3", "--export", str(export)]) == 0
    history = json.loads((out / "generations.json").read_text())["history"]
    assert len(history) == 1
    row = history[0]
    assert row["gate_games"] == 2 and row["selfplay_positions"] > 0 and isinstance(row["kept"], bool)
    assert row["kept"] == (row["gate_score"] > 0.5)
    assert (out / "gen1.npz").is_file() and (out / "report.md").is_file()
    # the export is the kept net (or the start when the candidate lost), with its reference outputs
    kept = out / ("gen1.npz" if row["kept"] else "current.npz")
    assert export.read_bytes() == kept.read_bytes()
    ref = np.load(export.with_name("kept.reference.npz"))
    logits, value = PolicyValueNet.load(export).forward(planes_many(ref["current"], ref["mask"]))
    assert np.allclose(logits, ref["logits"], atol=1e-4) and np.allclose(value, ref["value"], atol=1e-4)


@pytest.mark.parametrize("bad, needle", [
    (["--labels", "/nonexistent/labels"], "--labels: /nonexistent/labels: no block-*.npz"),
    (["--heldout", "/nonexistent/held.npz"], "--heldout /nonexistent/held.npz"),
    (["--games", "0"], "--games must be at least 1"),
])
def test_bad_settings_are_refused_before_any_work(start_and_labels, tmp_path, capsys, bad, needle):
    start, labels = start_and_labels
    argv = ["train", "selfplay", "--start", str(start), "--labels", str(labels), "--out", str(tmp_path / "run"), *bad]
    code, err = run_c4(argv, capsys)
    assert code == 2 and needle in err
    assert not (tmp_path / "run" / "generations.json").exists()
