"""Targets from the exact solver for the DQN (``c4 train dqn --solver-targets``).

The one improvement over the study's DQN measured here: besides the usual
Bellman loss on its own replay buffer, the Q-values of the legal columns of
positions with exact labels (``c4 train labels`` blocks, e.g.
``books/labels/7x6/labels-s11``) are regressed toward the exact result of
playing that column, from the side to move's point of view: ``sign(score)``
(+1 the column wins, 0 it draws, -1 it loses), the scale of the Bellman
target (a win is +1 discounted by ``gamma`` a ply). With ``target_scale`` S
> 0 a strong label's magnitude counts too: ``clip(score / S, -1, 1)``, so a
quicker win is worth more; with ``target_decay`` D < 1 a strong label's
target is ``sign(score) * D ** (plies to the end - 1)`` (the win on this move
+1, the opponent's win on the next one -D). Weak labels hold signs only and
stay ``sign``.

The loss of a learning step is ``solver_loss + bellman_weight * bellman_loss``
(Huber both); ``label_warmup`` steps on the labels alone come before the
first episode. The network is the study's (an MLP on the two canonical
planes), so the result is "the study's DQN plus one improvement". Positions
of the held-out set are never trained on.

``dqn_quality`` is the held-out figure: the share of solver-proven positions
where the DQN's greedy column keeps the game-theoretic value.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from connect4 import STANDARD, Geometry
from connect4.scores import end_ply
from engine_svc.learned.encode import planes_many

from .labels import FULL, _canonical

ORDER = np.array([3, 2, 4, 1, 5, 0, 6])  # the dqn player's tie order (centre first)


def load_label_dirs(folders: list[str], exclude: set[int] | frozenset[int] = frozenset()) -> dict[str, np.ndarray]:
    """The labels of every ``block-*.npz`` of ``folders``, each position once, less ``exclude`` (canonical keys)."""
    from .labelrun import load_run
    from .labels import merge

    parts = []
    for folder in folders:
        data = load_run(Path(folder))
        keep = np.array([_canonical(int(c), int(m)) not in exclude
                         for c, m in zip(data["current"], data["mask"], strict=True)], bool)
        parts.append({k: v[keep] for k, v in data.items()})
    return merge(*parts)


def plies_to_end(scores: np.ndarray, ply: np.ndarray, g: Geometry = STANDARD) -> np.ndarray:
    """Plies from the move (1: the move itself wins) to the decisive stone, from the columns' Pons
    scores (``connect4.scores.end_ply``, looked up per ply and score); 0 where the column draws or is full."""
    top = (g.cells + 1) // 2 + 1  # beyond every score
    table = np.array([[max(end_ply(s, p, g) - p, 1) if s else 0 for s in range(-top, top + 1)]
                      for p in range(g.cells + 1)], np.int32)
    decided = (scores != 0) & (scores != FULL)
    return np.where(decided, table[ply.astype(np.int64)[:, None], np.where(decided, scores, 0) + top], 0)


def q_targets(scores: np.ndarray, strong: np.ndarray, target_scale: float = 0.0, ply: np.ndarray | None = None,
              target_decay: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """(targets float32 [n, 7], legal bool [n, 7]) from exact per-column scores (FULL: a full column)."""
    s = scores.astype(np.float32)
    legal = scores != FULL
    t = np.sign(s)
    if target_scale > 0:
        scaled = np.clip(s / target_scale, -1.0, 1.0)
        t = np.where(strong[:, None], scaled, t)
    elif target_decay < 1:
        if ply is None:
            raise ValueError("a target decay needs the positions' plies")
        decayed = np.sign(s) * target_decay ** (plies_to_end(scores, ply) - 1).clip(0)
        t = np.where(strong[:, None], decayed, t)
    return np.where(legal, t, 0.0).astype(np.float32), legal


class SolverTargets:
    """The labelled positions as tensors, sampled in batches by the trainer's generator."""

    def __init__(self, data: dict[str, np.ndarray], target_scale: float = 0.0, target_decay: float = 1.0):
        import torch

        if len(data["current"]) == 0:
            raise ValueError("the solver-target labels hold no position")
        t, legal = q_targets(data["scores"], data["strong"], target_scale, data["ply"], target_decay)
        self.x = torch.from_numpy(planes_many(data["current"], data["mask"]))
        self.t = torch.from_numpy(t)
        self.legal = torch.from_numpy(legal)
        self.n = len(t)

    def batch(self, rng: np.random.Generator, size: int):
        idx = torch_index(rng.integers(self.n, size=size))
        return self.x[idx], self.t[idx], self.legal[idx]


def torch_index(idx: np.ndarray):
    import torch

    return torch.from_numpy(idx.astype(np.int64))


def solver_loss(q, t, legal):
    """Huber loss of the legal columns' Q-values against the exact targets."""
    import torch

    return torch.nn.functional.smooth_l1_loss(q[legal], t[legal])


def dqn_quality(q: np.ndarray, data: dict[str, np.ndarray]) -> dict:
    """Share of positions where the greedy legal column (centre first on ties) keeps the exact value."""
    s = data["scores"].astype(np.int16)
    legal = s != FULL
    masked = np.where(legal, q, -np.inf)[:, ORDER]
    col = ORDER[np.argmax(masked, axis=1)]
    best = np.where(legal, s, -1000).max(axis=1)
    keeps = np.sign(s[np.arange(len(s)), col]) == np.sign(best)
    ply = data["ply"].astype(int)
    bands = {}
    for lo, hi in ((0, 8), (8, 16), (16, 24), (24, 42)):
        m = (ply >= lo) & (ply < hi)
        if m.any():
            bands[f"{lo}-{hi - 1}"] = {"positions": int(m.sum()), "move_keeps_value": float(keeps[m].mean())}
    return {"positions": int(len(s)), "move_keeps_value": float(keeps.mean()), "by_ply": bands}
