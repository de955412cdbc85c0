"""The DQN's forward pass in numpy: the two planes flattened (84 inputs),
dense layers with ReLU, one Q-value per column."""

from __future__ import annotations

import numpy as np

from .weights import read_weights


class QNet:
    def __init__(self, meta: dict, arrays: dict[str, np.ndarray]):
        self.meta = meta
        self.layers = [(arrays[f"fc{i}.w"], arrays[f"fc{i}.b"]) for i in range(len(meta["hidden"]) + 1)]

    @classmethod
    def load(cls, path) -> QNet:
        return cls(*read_weights(path, "dqn"))

    def forward(self, x: np.ndarray) -> np.ndarray:
        """(n, 2, 6, 7) planes -> (n, 7) Q-values."""
        h = np.asarray(x, dtype=np.float32).reshape(len(x), -1)
        for i, (w, b) in enumerate(self.layers):
            h = h @ w.T + b
            if i < len(self.layers) - 1:
                h = np.maximum(h, 0)
        return h
