"""The DQN's solver targets (``c4 train dqn --solver-targets``): a step on a
small fixed labelled set lowers the solver-target loss; the options are
refused with a clear error before any work; a run with them resumes from its
checkpoint to the same weights; the held-out positions are never trained on."""

import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from c4.main import main  # noqa: E402
from c4.training import dqn  # noqa: E402
from c4.training.labelrun import label_run  # noqa: E402
from c4.training.labels import FULL, _canonical  # noqa: E402
from c4.training.solver_targets import SolverTargets, dqn_quality, load_label_dirs, q_targets  # noqa: E402
from engine_svc.learned.qnet import QNet  # noqa: E402


@pytest.fixture(scope="module")
def labels(tmp_path_factory):
    folder = tmp_path_factory.mktemp("labels")
    label_run(folder, 1, seed=5, games_per_block=2, node_budget=40_000, strong_budget=10_000)
    return folder


def test_targets_are_the_exact_results_of_the_legal_columns():
    scores = np.array([[3, -2, 0, FULL, 1, -1, -9], [1, 0, -1, -1, FULL, FULL, 0]], np.int8)
    strong = np.array([True, False])
    t, legal = q_targets(scores, strong)
    assert t[0].tolist() == [1, -1, 0, 0, 1, -1, -1] and legal[0].tolist() == [1, 1, 1, 0, 1, 1, 1]
    t, _ = q_targets(scores, strong, target_scale=6)
    assert t[0].tolist() == [0.5, pytest.approx(-1 / 3), 0, 0, pytest.approx(1 / 6), pytest.approx(-1 / 6), -1]
    assert t[1].tolist() == [1, 0, -1, -1, 0, 0, 0]  # a weak label keeps its signs


def test_a_target_decay_values_the_quicker_result_more():
    from connect4 import Position
    from solver_svc.solver import Solver

    pos = Position.from_moves([3, 0, 3, 0, 3, 6, 0])  # the first player threatens d; the second must block
    scores = np.array([Solver().analyze(pos)], np.int8)
    t, _ = q_targets(scores, np.array([True]), ply=np.array([pos.ply]), target_decay=0.9)
    assert t[0][0] == pytest.approx(-0.9)  # the opponent wins on the next ply
    assert -0.9 < t[0][3] < 0  # blocking loses later
    pos = Position.from_moves([3, 0, 3, 0, 3, 0])
    t, _ = q_targets(np.array([Solver().analyze(pos)], np.int8), np.array([True]), ply=np.array([6]),
                     target_decay=0.9)
    assert t[0][3] == 1 and 0 < t[0][0] < 0.5  # the win on this move beats a slower one


def test_a_step_on_a_small_fixed_set_lowers_the_solver_target_loss(labels):
    torch.manual_seed(0)
    data = load_label_dirs([str(labels)])
    st = SolverTargets({k: v[:48] for k, v in data.items()})
    fixed = (st.x, st.t, st.legal)
    cfg = dqn.DqnConfig(hidden=[32], lr=1e-2, solver_targets=[str(labels)])
    online = dqn.build(cfg.hidden)
    target = copy.deepcopy(online)
    opt = torch.optim.Adam(online.parameters(), lr=1e-2)
    first = dqn.learn_step(cfg, online, target, opt, None, fixed)[2]
    for _ in range(20):
        last = dqn.learn_step(cfg, online, target, opt, None, fixed)[2]
    assert last < first


def test_the_heldout_positions_are_left_out(labels):
    data = load_label_dirs([str(labels)])
    keys = [_canonical(int(c), int(m)) for c, m in zip(data["current"], data["mask"], strict=True)]
    some = set(keys[:5])
    kept = load_label_dirs([str(labels)], exclude=some)
    assert len(kept["current"]) == len(keys) - len(some)
    assert not some & {_canonical(int(c), int(m)) for c, m in zip(kept["current"], kept["mask"], strict=True)}


def test_the_heldout_figure_counts_the_greedy_columns_that_keep_the_value():
    data = {"scores": np.array([[1, -1, FULL, 0, 0, 0, 0], [0, 0, 0, 0, -2, 0, 0]], np.int8),
            "ply": np.array([10, 30], np.int8)}
    q = np.array([[0.9, 0.1, 5.0, 0, 0, 0, 0], [0, 0, 0, 0, 1.0, 0, 0]], np.float32)
    got = dqn_quality(q, data)
    assert got["move_keeps_value"] == 0.5 and got["by_ply"]["8-15"]["move_keeps_value"] == 1.0


@pytest.mark.parametrize("extra, needle", [
    (["--bellman-weight", "-1"], "--bellman-weight must be in [0, 100]"),
    (["--target-scale", "-2"], "--target-scale must be 0 (signs) or more"),
    (["--target-decay", "0"], "--target-decay must be in (0, 1]"),
    (["--target-decay", "1.5"], "--target-decay must be in (0, 1]"),
    (["--target-decay", "0.9", "--target-scale", "5"], "not both"),
    (["--target-decay", "0.9"], "need --solver-targets"),
    (["--label-warmup", "-5"], "--label-warmup must be >= 0"),
    (["--solver-targets", "/nonexistent/labels"], "--solver-targets /nonexistent/labels: no such folder"),
    (["--bellman-weight", "0.5", "--solver-targets", ""], "need --solver-targets"),
    (["--label-warmup", "10"], "need --solver-targets"),
    (["--heldout", "/nonexistent/held.npz"], "--heldout /nonexistent/held.npz: no such file"),
])
def test_bad_solver_target_options_are_refused_before_any_work(tmp_path, capsys, extra, needle):
    out = tmp_path / "run"
    assert main(["train", "dqn", "--out", str(out), *extra]) == 2
    assert needle in capsys.readouterr().err
    assert not out.exists() or not any(out.iterdir())


def test_a_folder_without_label_blocks_is_refused(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["train", "dqn", "--out", str(tmp_path / "run"), "--solver-targets", str(empty)]) == 2
    assert "no block-*.npz there" in capsys.readouterr().err


def test_a_solver_target_run_resumes_from_its_checkpoint_to_the_same_weights(tmp_path, labels):
    common = ["--eval-every", "3", "--eval-pairs", "1", "--hidden", "16", "--seed", "3",
              "--solver-targets", str(labels), "--bellman-weight", "0.5", "--label-warmup", "20"]
    # learning starts once the replay buffer holds 1000 transitions: 60 episodes reach it
    assert main(["train", "dqn", "--out", str(tmp_path / "a"), "--episodes", "66", *common]) == 0
    assert main(["train", "dqn", "--out", str(tmp_path / "b"), "--episodes", "63", *common]) == 0
    assert main(["train", "dqn", "--out", str(tmp_path / "b"), "--episodes", "66", *common]) == 0
    wa, wb = QNet.load(tmp_path / "a" / "dqn-7x6.npz"), QNet.load(tmp_path / "b" / "dqn-7x6.npz")
    assert all(np.array_equal(x, y) for (x, _), (y, _) in zip(wa.layers, wb.layers, strict=True))
    plain = tmp_path / "plain"
    assert main(["train", "dqn", "--out", str(plain), "--episodes", "66", *common[:8]]) == 0
    wp = QNet.load(plain / "dqn-7x6.npz")
    assert not all(np.array_equal(x, y) for (x, _), (y, _) in zip(wa.layers, wp.layers, strict=True))
