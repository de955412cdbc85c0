"""Bad weights files: a clear error when the player is made; every other player still plays."""

import json
import logging

import numpy as np
import pytest

from connect4 import Position
from engine_svc.learned.availability import available
from engine_svc.learned.weights import WeightsError, pv_shapes, read_weights, write_weights
from engine_svc.players import UnavailablePlayer, list_players, make_player

from .helpers import PV_META, random_arrays, write_random_models


def test_a_good_file_reads_back(tmp_path):
    path = write_weights(tmp_path / "pv.npz", "pv", PV_META, random_arrays(pv_shapes(PV_META)))
    meta, arrays = read_weights(path, "pv")
    assert meta["channels"] == 8 and arrays["stem.w"].shape == (8, 2, 3, 3)


def test_missing_file(tmp_path):
    with pytest.raises(WeightsError, match="does not exist"):
        read_weights(tmp_path / "none.npz", "pv")


def test_truncated_file(tmp_path):
    path = write_weights(tmp_path / "pv.npz", "pv", PV_META, random_arrays(pv_shapes(PV_META)))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(WeightsError, match="cannot be read"):
        read_weights(path, "pv")


def test_wrong_shape(tmp_path):
    arrays = random_arrays(pv_shapes(PV_META))
    arrays["block0.conv1.w"] = np.zeros((8, 8, 5, 5), np.float32)
    path = tmp_path / "pv.npz"
    np.savez(path, meta=np.array(json.dumps({**PV_META, "kind": "pv", "version": 1})), **arrays)
    with pytest.raises(WeightsError, match=r"block0.conv1.w has shape \(8, 8, 5, 5\), expected \(8, 8, 3, 3\)"):
        read_weights(path, "pv")


def test_wrong_kind_and_not_finite(tmp_path):
    path = write_weights(tmp_path / "pv.npz", "pv", PV_META, random_arrays(pv_shapes(PV_META)))
    with pytest.raises(WeightsError, match="holds a 'pv' model, not 'dqn'"):
        read_weights(path, "dqn")
    arrays = random_arrays(pv_shapes(PV_META))
    arrays["stem.b"][0] = np.nan
    with pytest.raises(WeightsError, match="not finite"):
        write_weights(tmp_path / "nan.npz", "pv", PV_META, arrays)
    assert not (tmp_path / "nan.npz").exists()


def test_bad_files_make_the_learned_players_unavailable_and_logged_once(tmp_path, monkeypatch, caplog):
    folder = write_random_models(tmp_path / "models")
    data = (folder / "pv-7x6.npz").read_bytes()
    (folder / "pv-7x6.npz").write_bytes(data[:100])  # truncated
    (folder / "dqn-7x6.npz").unlink()  # missing
    monkeypatch.setenv("C4_MODEL_DIR", str(folder))
    pos = Position.parse("4453")
    with caplog.at_level(logging.WARNING, logger="engine_svc.learned.availability"):
        for _ in range(3):
            specs = [p.spec for p in list_players()]
            assert "net" not in specs and "dqn" not in specs and not any(s.startswith("az") for s in specs)
    warnings = [r for r in caplog.records if r.name == "engine_svc.learned.availability"]
    assert len(warnings) == 2  # once per model, however often the players are listed
    for spec, needle in (("net", "cannot be read"), ("az:10", "cannot be read"), ("dqn", "does not exist")):
        with pytest.raises(UnavailablePlayer, match=needle):
            make_player(spec)
    assert not available("pv")
    for spec in ("random", "greedy", "minimax:3", "mcts:50"):
        assert make_player(spec, seed=1).choose(pos).column in pos.legal_moves()


def test_learned_players_with_a_good_file_play_legal_moves(tmp_path, monkeypatch):
    monkeypatch.setenv("C4_MODEL_DIR", str(write_random_models(tmp_path / "models")))
    assert {"net", "dqn", "az:800"} <= {p.spec for p in list_players()}
    pos = Position.parse("4453")
    for spec in ("net", "dqn", "az:30"):
        r = make_player(spec).choose(pos)
        assert r.column in pos.legal_moves() and r.message.startswith("p=a:") and " v=" in r.message


def test_learned_players_refuse_other_board_sizes(tmp_path, monkeypatch):
    from connect4 import Geometry
    from engine_svc.players import InvalidSpec

    monkeypatch.setenv("C4_MODEL_DIR", str(write_random_models(tmp_path / "models")))
    with pytest.raises(InvalidSpec, match="7x6 only"):
        make_player("net", geometry=Geometry(6, 5, 4))
