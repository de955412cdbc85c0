"""Weights files made with numpy alone (no training framework): random but
well-formed, for the tests that need a file of a given shape."""

import numpy as np

from engine_svc.learned.weights import dqn_shapes, pv_shapes, write_weights

PV_META = {"channels": 8, "blocks": 1, "value_hidden": 16}
DQN_META = {"hidden": [32]}


def random_arrays(shapes: dict, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {k: (rng.standard_normal(s) * 0.3).astype(np.float32) for k, s in shapes.items()}


def write_random_models(folder, seed: int = 0):
    folder.mkdir(parents=True, exist_ok=True)
    write_weights(folder / "pv-7x6.npz", "pv", PV_META, random_arrays(pv_shapes(PV_META), seed))
    write_weights(folder / "dqn-7x6.npz", "dqn", DQN_META, random_arrays(dqn_shapes(DQN_META), seed))
    return folder
