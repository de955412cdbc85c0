"""The policy/value net's forward pass in numpy (no training framework).

Architecture (sizes in the weights' meta): a 3x3 conv stem from the two
planes of :mod:`.encode` to C channels, B residual blocks (3x3 conv, ReLU,
3x3 conv, add the input, ReLU), then two heads: policy (1x1 conv to 2
planes, ReLU, a dense layer to 7 logits) and value (1x1 conv to 1 plane,
ReLU, dense to H, ReLU, dense to 1, tanh). Convolutions are one matrix product
each over the nine shifted copies of the zero-padded boards of the whole
batch (im2col, channels first), so one BLAS call serves every position.
"""

from __future__ import annotations

import numpy as np

from .weights import read_weights

_blas_limited = False


def one_blas_thread() -> None:
    """Keep numpy's BLAS on one thread in this process (once). The products
    here are small (32 x 288 by 288 x 42n): on a busy machine a second BLAS
    thread spinning for a core made batch 8 sixty times slower than one
    thread (docs/results/learned.md). The engine's own code uses no BLAS."""
    global _blas_limited
    if _blas_limited:
        return
    _blas_limited = True
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - a dependency; without it BLAS keeps its threads
        return
    threadpool_limits(limits=1, user_api="blas")


def _conv3(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """3x3 convolution, stride 1, zero padding 1, channels first over the
    whole batch: (ci, n, 6, 7) -> (co, n, 6, 7) in one matrix product."""
    ci, n, h, wd = x.shape
    p = np.zeros((ci, n, h + 2, wd + 2), dtype=np.float32)
    p[:, :, 1:-1, 1:-1] = x
    # cols[ci, ky, kx, n, y, x] = p[ci, n, y + ky, x + kx], the order of w's (ci, ky, kx) axes
    cols = np.stack([p[:, :, ky:ky + h, kx:kx + wd] for ky in range(3) for kx in range(3)], axis=1)
    out = w.reshape(w.shape[0], ci * 9) @ cols.reshape(ci * 9, n * h * wd) + b[:, None]
    return out.reshape(w.shape[0], n, h, wd)


def _conv1(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    ci, n, h, wd = x.shape
    out = w.reshape(w.shape[0], ci) @ x.reshape(ci, n * h * wd) + b[:, None]
    return out.reshape(w.shape[0], n, h, wd)


class PolicyValueNet:
    """``forward(planes)`` -> (policy logits (n, 7), value (n,) in [-1, 1])."""

    runtime = "numpy"

    def __init__(self, meta: dict, arrays: dict[str, np.ndarray]):
        self.meta = meta
        self.a = arrays
        self.blocks = int(meta["blocks"])
        one_blas_thread()

    @classmethod
    def load(cls, path) -> PolicyValueNet:
        return cls(*read_weights(path, "pv"))

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a = self.a
        x = np.asarray(x, dtype=np.float32).transpose(1, 0, 2, 3)  # channels first: (2, n, 6, 7)
        x = np.maximum(_conv3(x, a["stem.w"], a["stem.b"]), 0)
        for i in range(self.blocks):
            y = np.maximum(_conv3(x, a[f"block{i}.conv1.w"], a[f"block{i}.conv1.b"]), 0)
            y = _conv3(y, a[f"block{i}.conv2.w"], a[f"block{i}.conv2.b"])
            x = np.maximum(x + y, 0)
        n = x.shape[1]
        # the heads flatten (channel, row, column) per position, as the trainer's reshape does
        p = np.maximum(_conv1(x, a["policy.conv.w"], a["policy.conv.b"]), 0).transpose(1, 0, 2, 3).reshape(n, -1)
        logits = p @ a["policy.fc.w"].T + a["policy.fc.b"]
        v = np.maximum(_conv1(x, a["value.conv.w"], a["value.conv.b"]), 0).transpose(1, 0, 2, 3).reshape(n, -1)
        v = np.maximum(v @ a["value.fc1.w"].T + a["value.fc1.b"], 0)
        value = np.tanh(v @ a["value.fc2.w"].T + a["value.fc2.b"])[:, 0]
        return logits.astype(np.float32), value.astype(np.float32)


def masked_softmax(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Probabilities over the legal columns (0 on the others)."""
    z = np.where(legal, logits, -np.inf)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)
