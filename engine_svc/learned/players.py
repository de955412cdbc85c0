"""The learned players of the ladder: ``net``, ``az:N`` and ``dqn``.

Their weights are read once per file (:func:`load_pv`, :func:`load_dqn`,
cached) and checked when the first player is made: a bad file raises
:class:`~.weights.WeightsError` there. Each result's ``message`` carries
the per-column probabilities (the policy, or az's visit shares, or dqn's
softmax of Q) and the value, in a form the gateway passes on as it is:
``p=a:0.12,b:...  v=+0.53``.
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

from connect4.errors import InvalidPosition
from connect4.geometry import STANDARD

from ..players.ladder import Player
from ..search import SearchResult
from ..stopping import Stopped, stop_on
from . import puct
from .encode import legal_mask, planes
from .pvnet import masked_softmax
from .qnet import QNet
from .runtime import PvNet, chosen_runtime, make_pv
from .weights import MODEL_DIR, read_weights

PV_FILE = "pv-7x6.npz"
DQN_FILE = "dqn-7x6.npz"
_lock = threading.Lock()


def model_path(name: str) -> Path:
    return Path(os.environ.get("C4_MODEL_DIR") or MODEL_DIR) / name


@lru_cache(maxsize=8)
def _load(path: str, mtime: float, kind: str, runtime: str):
    if kind == "dqn":
        return QNet.load(path)
    return make_pv(*read_weights(path, "pv"), runtime)


def _cached(name: str, kind: str):
    path = model_path(name)
    try:
        mtime = path.stat().st_mtime
    except OSError:
        mtime = -1.0
    runtime = chosen_runtime() if kind == "pv" else "numpy"
    with _lock:
        return _load(str(path), mtime, kind, runtime)


def load_pv() -> PvNet:
    """The shipped pv net in the chosen runtime (:mod:`.runtime`)."""
    return _cached(PV_FILE, "pv")


def load_dqn() -> QNet:
    return _cached(DQN_FILE, "dqn")


def _shares(probs, value=None) -> str:
    text = "p=" + ",".join(f"{'abcdefg'[c]}:{probs[c]:.3f}" for c in range(7))
    return text if value is None else f"{text} v={value:+.3f}"


def _check_size(geometry) -> None:
    if geometry != STANDARD:
        raise InvalidPosition(f"the learned players play 7x6 only, not {geometry.name}")


def _centre_argmax(values, legal) -> int:
    return max((c for c in (3, 2, 4, 1, 5, 0, 6) if legal[c]), key=lambda c: values[c])


class NetPlayer(Player):
    """The policy's most probable legal column, no search."""

    family = "net"

    def __init__(self, spec, geometry=STANDARD, seed=0):
        _check_size(geometry)
        super().__init__(spec, geometry, seed)
        self.net = load_pv()

    def _choose(self, pos, budget_ms, on_progress, cancel=None):
        logits, value = self.net.forward(planes(pos.current, pos.mask)[None])
        legal = legal_mask(pos.mask)
        probs = masked_softmax(logits, legal[None])[0]
        col = _centre_argmax(probs, legal)
        return SearchResult(column=col, nodes=1, message=_shares(probs, float(value[0])))


class AzPlayer(Player):
    """PUCT with N simulations over the net's prior and value (no rollouts)."""

    family = "az"

    def __init__(self, spec, geometry=STANDARD, seed=0, simulations=800, batch=8):
        _check_size(geometry)
        super().__init__(spec, geometry, seed)
        self.simulations = simulations
        self.batch = batch
        self.evaluate = puct.net_evaluator(load_pv())

    def _choose(self, pos, budget_ms, on_progress, cancel=None):
        stop = np.zeros(1, dtype=np.uint8)
        with stop_on(cancel, stop):
            root, done = puct.search(pos.current, pos.mask, pos.ply, self.simulations, self.evaluate,
                                     batch=self.batch, stop=stop)
        if done < self.simulations and root.proven is None:  # a proven root ends the search early
            raise Stopped(f"{self.spec} stopped after {done} of {self.simulations} simulations", done)
        col = puct.best_column(root)
        total = sum(root.n) or 1
        shares = [n / total for n in root.n]
        q = root.w[col] / root.n[col] if root.n[col] else 0.0
        if root.proven is not None:
            q = root.proven  # exact
        return SearchResult(column=col, nodes=done, message=_shares(shares, q))


class DqnPlayer(Player):
    """The DQN's greedy column: the largest Q-value among the legal columns."""

    family = "dqn"

    def __init__(self, spec, geometry=STANDARD, seed=0):
        _check_size(geometry)
        super().__init__(spec, geometry, seed)
        self.net = load_dqn()

    def _choose(self, pos, budget_ms, on_progress, cancel=None):
        q = self.net.forward(planes(pos.current, pos.mask)[None])[0]
        legal = legal_mask(pos.mask)
        col = _centre_argmax(q, legal)
        probs = masked_softmax(q[None], legal[None])[0]
        return SearchResult(column=col, nodes=1, message=_shares(probs, float(np.clip(q[col], -1, 1))))
