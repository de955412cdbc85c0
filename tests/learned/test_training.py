"""Training (PyTorch, the optional extra): a step lowers the loss on a small
fixed set; bad settings and output folders are refused before any work; an
export reads back in the numpy runtime with the trainer's outputs."""

import numpy as np
import pytest

from connect4 import Position
from solver_svc.solver import Solver

torch = pytest.importorskip("torch")

from c4.main import main  # noqa: E402
from c4.training import dqn  # noqa: E402
from c4.training.labels import FULL, targets  # noqa: E402
from c4.training.pvtorch import build, export_arrays  # noqa: E402
from c4.training.pvtrain import loss_of, train_step  # noqa: E402
from engine_svc.learned.encode import planes_many  # noqa: E402
from engine_svc.learned.pvnet import PolicyValueNet  # noqa: E402
from engine_svc.learned.qnet import QNet  # noqa: E402


def late_positions(n=48, plies=28, seed=0):
    rng = np.random.default_rng(seed)
    solver = Solver()
    cur, msk, scores = [], [], []
    while len(cur) < n:
        pos = Position()
        for _ in range(plies):
            if pos.is_over:
                break
            legal = pos.legal_moves()
            pos.play(int(legal[rng.integers(len(legal))]))
        if pos.is_over:
            continue
        s = solver.analyze(pos)
        cur.append(pos.current)
        msk.append(pos.mask)
        scores.append([FULL if v is None else v for v in s])
    return np.array(cur, np.uint64), np.array(msk, np.uint64), np.array(scores, np.int8)


@pytest.fixture(scope="module")
def fixed_set():
    cur, msk, scores = late_positions()
    p, v = targets(scores)
    return torch.from_numpy(planes_many(cur, msk)), torch.from_numpy(p), torch.from_numpy(v)


def test_targets_keep_the_best_columns_and_the_sign():
    s = np.array([[3, -2, 3, FULL, 0, -1, -5], [0, 0, -1, -1, FULL, FULL, -3], [-2, -4, -3, -2, -2, -2, -9]], np.int8)
    p, v = targets(s)
    assert np.allclose(p[0], [0.5, 0, 0.5, 0, 0, 0, 0]) and v[0] == 1
    assert np.allclose(p[1], [0.5, 0.5, 0, 0, 0, 0, 0]) and v[1] == 0
    assert np.isclose(p[2].sum(), 1) and p[2][0] == 0.25 and v[2] == -1


def test_a_pv_training_step_lowers_the_loss(fixed_set):
    torch.manual_seed(0)
    model = build(8, 1, 16)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    x, p, v = fixed_set
    before = loss_of(model, x, p, v)[0].item()
    for _ in range(5):
        train_step(model, opt, x, p, v)
    after = loss_of(model, x, p, v)[0].item()
    assert after < before


def test_a_dqn_learning_step_lowers_the_loss():
    torch.manual_seed(0)
    cfg = dqn.DqnConfig(hidden=[32], lr=1e-2)
    online = dqn.build(cfg.hidden)
    import copy

    target = copy.deepcopy(online)
    rng = np.random.default_rng(0)
    n = 64
    s = torch.from_numpy((rng.random((n, 2, 6, 7)) < 0.2).astype(np.float32))
    batch = (s, torch.from_numpy(rng.integers(0, 7, n)), torch.from_numpy((rng.random(n) < 0.3).astype(np.float32)),
             s.flip(0), torch.ones(n, 7, dtype=torch.bool), torch.from_numpy((rng.random(n) < 0.3).astype(np.float32)))
    first = dqn.learn_step(cfg, online, target, opt := torch.optim.Adam(online.parameters(), lr=1e-2), batch)
    for _ in range(20):
        last = dqn.learn_step(cfg, online, target, opt, batch)
    assert last < first


def test_the_negamax_target_flips_the_sign_and_masks_illegal_columns():
    cfg = dqn.DqnConfig(hidden=[4], gamma=0.5)
    net = dqn.build(cfg.hidden)
    with torch.no_grad():
        for p in net.parameters():
            p.zero_()
        net.fc1.bias.copy_(torch.tensor([1.0, 2, 3, 4, 5, 6, 7]))  # Q = column number + 1 everywhere
    s2 = torch.zeros(2, 2, 6, 7)
    legal = torch.tensor([[True, True, False, False, False, False, False], [True] * 7])
    y = dqn.td_targets(cfg, net, net, torch.tensor([0.0, 1.0]), s2, legal, torch.tensor([0.0, 1.0]))
    assert y.tolist() == [-1.0, 1.0]  # 0 - 0.5 * max(1, 2); a finished game: r alone


def test_exported_weights_run_in_numpy_like_the_trainer(tmp_path, fixed_set):
    from engine_svc.learned.weights import write_weights

    torch.manual_seed(1)
    model = build(8, 2, 16).eval()
    path = write_weights(tmp_path / "pv.npz", "pv", {"channels": 8, "blocks": 2, "value_hidden": 16},
                         export_arrays(model))
    x = fixed_set[0]
    with torch.no_grad():
        logits, value = model(x)
    got_l, got_v = PolicyValueNet.load(path).forward(x.numpy())
    assert np.allclose(got_l, logits.numpy(), atol=1e-5) and np.allclose(got_v, value.numpy(), atol=1e-5)
    mlp = dqn.build([16])
    qpath = write_weights(tmp_path / "q.npz", "dqn", {"hidden": [16]}, dqn.export_arrays(mlp))
    with torch.no_grad():
        q = dqn.forward(mlp, x).numpy()
    assert np.allclose(QNet.load(qpath).forward(x.numpy()), q, atol=1e-5)


@pytest.mark.parametrize("argv, needle", [
    (["train", "pv", "--epochs", "0"], "--epochs must be at least 1"),
    (["train", "pv", "--lr", "3"], "--lr must be in (0, 1)"),
    (["train", "pv", "--games", "-1"], "--games at least 0"),
    (["train", "pv", "--games", "0"], "--games 0 needs --extra-labels"),
    (["train", "pv", "--games", "0", "--extra-labels", "/nonexistent/labels"],
     "--extra-labels: /nonexistent/labels: no block-*.npz (c4 train labels) nor labels-*.npz"),
    (["train", "pv", "--heldout", "/nonexistent/held.npz"], "--heldout /nonexistent/held.npz: no such file"),
    (["train", "dqn", "--gamma", "1.5"], "--gamma must be in [0, 1]"),
    (["train", "dqn", "--hidden", "12,x"], "--hidden '12,x'"),
    (["train", "dqn", "--episodes", "-3"], "--episodes must be at least 1"),
    (["train", "dqn", "--export", "weights.bin"], "must end in .npz"),
])
def test_bad_settings_are_refused_before_any_work(tmp_path, capsys, argv, needle):
    out = tmp_path / "run"
    assert main([*argv, "--out", str(out)]) == 2
    assert needle in capsys.readouterr().err
    assert not out.exists() or not any(out.iterdir())


def test_an_unwritable_output_folder_is_refused(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for kind in ("pv", "dqn"):
        assert main(["train", kind, "--out", str(blocker / "run")]) == 2
        assert "cannot create the folder" in capsys.readouterr().err
    assert main(["train", "dqn", "--out", str(blocker)]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_a_dqn_run_resumes_from_its_checkpoint_to_the_same_weights(tmp_path):
    common = ["--eval-every", "3", "--eval-pairs", "1", "--hidden", "16", "--seed", "3"]
    assert main(["train", "dqn", "--out", str(tmp_path / "a"), "--episodes", "6", *common]) == 0
    # the same run stopped after 3 episodes, then started again to 6
    assert main(["train", "dqn", "--out", str(tmp_path / "b"), "--episodes", "3", *common]) == 0
    assert main(["train", "dqn", "--out", str(tmp_path / "b"), "--episodes", "6", *common]) == 0
    wa, wb = QNet.load(tmp_path / "a" / "dqn-7x6.npz"), QNet.load(tmp_path / "b" / "dqn-7x6.npz")
    assert all(np.array_equal(x, y) for (x, _), (y, _) in zip(wa.layers, wb.layers, strict=True))
    assert (tmp_path / "b" / "curves.png").stat().st_size > 1000 and (tmp_path / "b" / "report.md").exists()


def test_pv_trains_on_label_blocks_against_a_fixed_heldout_set(tmp_path):
    import json

    from c4.training.labelrun import label_run
    from engine_svc.learned.weights import MODEL_DIR

    labels = tmp_path / "labels"
    label_run(labels, 1, seed=3, games_per_block=2, node_budget=40_000, strong_budget=10_000)
    held = MODEL_DIR / "heldout-7x6.npz"
    out = tmp_path / "pv"
    assert main(["train", "pv", "--out", str(out), "--games", "0", "--extra-labels", str(labels),
                 "--heldout", str(held), "--no-book-positions", "--epochs", "1", "--eval-pairs", "0",
                 "--channels", "4", "--blocks", "1"]) == 0
    with np.load(held) as z:
        assert json.loads((out / "quality.json").read_text())["positions"] == len(z["current"])
    report = json.loads((out / "history.json").read_text())
    assert report["labels_extra"][str(labels)]["blocks"] == 1 and report["training_positions"] > 0
    assert PolicyValueNet.load(out / "pv-7x6.npz") is not None


def test_the_cosine_schedule_falls_from_the_rate_to_zero_and_a_constant_one_stays():
    from c4.training.pvtrain import PvConfig, rate_at

    cos = PvConfig(lr=1e-2, lr_schedule="cosine")
    rates = [rate_at(cos, s, 100) for s in range(101)]
    assert rates[0] == 1e-2 and rates[50] == pytest.approx(5e-3) and rates[100] == pytest.approx(0, abs=1e-12)
    assert all(a > b for a, b in zip(rates, rates[1:], strict=False))
    assert {rate_at(PvConfig(lr=1e-2), s, 100) for s in range(101)} == {1e-2}
    with pytest.raises(ValueError, match="--lr-schedule must be constant or cosine"):
        PvConfig(lr_schedule="step").check()
