"""Labels at scale (``c4 train labels``): every label is the solver's exact
answer (checked against fresh, unbudgeted solves), every position is either
labelled or counted as left out, excluded positions never appear, and a
stopped run resumes to the same blocks."""

import numpy as np
import pytest

from c4.main import main
from c4.training.labelrun import BOOK, WEAK, block_path, label_run, load_run, summary
from c4.training.games import ladder_positions
from c4.training.labels import FULL, _canonical
from solver_svc.solver import BudgetExceeded, Solver
from connect4 import Position

BUDGETS = {"node_budget": 60_000, "strong_budget": 15_000}


def _games(blocks=2, seed=5, games=2) -> dict[tuple[int, int], Position]:
    """The runs' positions replayed here, independently of the labeller: (current, mask) -> Position."""
    out = {}
    for i in range(blocks):
        for smp in ladder_positions(games, seed * 1_000_003 + i):
            pos = Position.from_moves(smp.moves)
            out.setdefault((pos.current, pos.mask), pos)
    return out


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("labels")
    label_run(out, 2, seed=5, games_per_block=2, **BUDGETS)
    return out


def _scores_of(data, i):
    return [None if v == FULL else int(v) for v in data["scores"][i]]


def test_every_label_is_the_exact_answer(run):
    solver = Solver()
    blocks = [np.load(block_path(run, i)) for i in range(2)]
    data = {k: np.concatenate([z[k] for z in blocks]) for k in ("current", "mask", "scores", "strong", "source")}
    games = _games()
    solved = np.flatnonzero(data["source"] != BOOK)  # the book's own scores are checked by the book's tests
    checked = 0
    for i in solved:
        pos = games[int(data["current"][i]), int(data["mask"][i])]
        solver.reset()
        try:
            exact = solver.analyze(pos, node_budget=3_000_000)
        except BudgetExceeded:
            continue
        got = _scores_of(data, i)
        if data["strong"][i]:
            assert got == exact, pos.moves
        else:
            assert [None if v is None else int(np.sign(v)) for v in got] == \
                   [None if v is None else int(np.sign(v)) for v in exact], pos.moves
        checked += 1
    assert checked >= 0.9 * len(solved) > 0


def test_every_position_is_labelled_or_counted(run):
    s = summary(run)
    assert s["blocks"] == 2
    assert s["positions"] == s["labelled"] + s["unproved"]
    assert s["labelled"] == len(load_run(run)["current"])
    assert sum(s["unproved_by_ply"].values()) == s["unproved"]
    assert s["book"] > 0 and s["strong"] > 0  # the early plies come from the book
    assert s["labels_per_cpu_s"] > 0
    for i in range(2):
        with np.load(block_path(run, i)) as z:
            keys = [int(k) for k in z["keys"]]
            labelled = {_canonical(int(c), int(m)) for c, m in zip(z["current"], z["mask"], strict=True)}
            assert len(set(keys)) == len(keys) and labelled <= set(keys)
            assert len(keys) == len(labelled) + len(z["unproved_ply"])
            assert ((z["source"] == WEAK) == ~z["strong"]).all()
            if (z["source"] == BOOK).any():
                assert (z["ply"][z["source"] == BOOK] <= 12).all()


def test_blocks_hold_every_position_of_their_games_once(run):
    with np.load(block_path(run, 0)) as a, np.load(block_path(run, 1)) as b:
        assert not set(a["keys"].tolist()) & set(b["keys"].tolist())
        stored = set(a["keys"].tolist()) | set(b["keys"].tolist())
    assert stored == {pos.canonical_key() for pos in _games().values()}


def test_a_stopped_run_resumes_to_the_same_blocks(run, tmp_path):
    import shutil

    shutil.copy(block_path(run, 0), block_path(tmp_path, 0))
    stamp = block_path(tmp_path, 0).stat().st_mtime_ns
    label_run(tmp_path, 2, seed=5, games_per_block=2, **BUDGETS)
    assert block_path(tmp_path, 0).stat().st_mtime_ns == stamp  # a finished block is kept
    with np.load(block_path(run, 1)) as a, np.load(block_path(tmp_path, 1)) as b:
        for k in ("current", "mask", "ply", "scores", "strong", "source", "keys", "unproved_ply"):
            assert (a[k] == b[k]).all(), k


def test_excluded_positions_are_never_labelled(run, tmp_path):
    with np.load(block_path(run, 0)) as z:
        excluded = set(z["keys"][::2].tolist())
    label_run(tmp_path, 1, seed=5, games_per_block=2, exclude=excluded, **BUDGETS)
    with np.load(block_path(tmp_path, 0)) as z:
        assert not excluded & set(z["keys"].tolist())
        assert len(z["keys"]) > 0


@pytest.mark.parametrize("argv, needle", [
    (["--blocks", "0"], "--blocks"),
    (["--node-budget", "5000", "--strong-budget", "9000"], "--strong-budget"),
    (["--exclude", "/nonexistent/held.npz"], "held.npz"),
    (["--pool", "net,bogus"], "'bogus' is not a player here"),
    (["--pool", "net,,greedy"], "an empty player name"),
])
def test_bad_settings_are_refused_before_any_work(tmp_path, capsys, argv, needle):
    out = tmp_path / "run"
    assert main(["train", "labels", "--out", str(out), *argv]) == 2
    assert needle in capsys.readouterr().err
    assert not list(tmp_path.rglob("block-*.npz"))


def test_a_pool_with_the_net_labels_the_positions_of_its_own_games(tmp_path):
    pool = ("net", "greedy")
    label_run(tmp_path, 1, seed=2, games_per_block=2, pool=pool, **BUDGETS)
    with np.load(block_path(tmp_path, 0)) as z:
        assert str(z["pool"]) == "net,greedy"
        stored = set(z["keys"].tolist())
    replayed = {Position.from_moves(s.moves).canonical_key() for s in ladder_positions(2, 2 * 1_000_003, pool=pool)}
    ladder = {Position.from_moves(s.moves).canonical_key() for s in ladder_positions(2, 2 * 1_000_003)}
    assert stored == replayed and stored != ladder
    with pytest.raises(ValueError, match="holds blocks of the pool net,greedy"):
        label_run(tmp_path, 2, seed=2, games_per_block=2, **BUDGETS)
    assert not block_path(tmp_path, 1).exists()

