"""Distil the policy/value net from exact labels (``c4 train pv``).

Loss: cross-entropy of the policy against the uniform share over the columns
that keep the best exact score, plus the squared error of the value against
the sign of that score. Every batch is mirrored at random (a board and its
mirror image have mirrored labels). Adam, at a constant rate or (``--lr-schedule
cosine``) one that falls by a half cosine from ``--lr`` to 0 over all the
run's steps; the epoch of the lowest held-out loss is the one exported (early
stopping); one checkpoint an epoch (``checkpoint.pt``: model, optimiser,
epoch, generator state, history), so a stopped run resumes at the next epoch
and gives the same weights as an unbroken one.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from engine_svc.learned.encode import planes_many


@dataclass
class PvConfig:
    epochs: int = 12
    batch: int = 256
    lr: float = 2e-3
    lr_schedule: str = "constant"  # or "cosine": lr * (1 + cos(pi * step / all steps)) / 2
    weight_decay: float = 1e-4
    channels: int = 32
    blocks: int = 3
    value_hidden: int = 64
    seed: int = 0
    eval_pairs: int = 10  # paired openings against each of greedy and minimax:3 after every epoch

    def check(self) -> None:
        """A clear error for a bad hyper-parameter, before any work."""
        for name in ("epochs", "batch", "channels", "blocks", "value_hidden"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        if not 0 < self.lr < 1:
            raise ValueError(f"--lr must be in (0, 1), got {self.lr}")
        if self.lr_schedule not in ("constant", "cosine"):
            raise ValueError(f"--lr-schedule must be constant or cosine, got {self.lr_schedule!r}")
        if not 0 <= self.weight_decay < 1:
            raise ValueError(f"--weight-decay must be in [0, 1), got {self.weight_decay}")
        if self.eval_pairs < 0:
            raise ValueError(f"--eval-pairs must be >= 0, got {self.eval_pairs}")


def tensors(data: dict):
    """(inputs, policy targets, value targets) as float32 numpy arrays."""
    from .labels import targets

    x = planes_many(data["current"], data["mask"])
    p, v = targets(data["scores"])
    return x, p, v


def loss_of(model, x, p, v):
    import torch

    logits, value = model(x)
    logp = torch.log_softmax(logits.masked_fill(p.sum(1, keepdim=True) < 0, 0), dim=1)
    policy_loss = -(p * logp).sum(1).mean()
    value_loss = ((value - v) ** 2).mean()
    return policy_loss + value_loss, policy_loss, value_loss


def train_step(model, opt, x, p, v) -> float:
    loss, _, _ = loss_of(model, x, p, v)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


def rate_at(cfg: PvConfig, step: int, all_steps: int) -> float:
    """The learning rate of one step of the run (derived from the step, so a resumed run keeps the schedule)."""
    if cfg.lr_schedule == "constant":
        return cfg.lr
    return cfg.lr * 0.5 * (1.0 + math.cos(math.pi * step / all_steps))


def train(cfg: PvConfig, train_data: dict, val_data: dict, out_dir: Path, progress=None, log=print) -> dict:
    import torch

    from .pvtorch import build

    cfg.check()
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(1)
    rng = np.random.default_rng(cfg.seed)
    model = build(cfg.channels, cfg.blocks, cfg.value_hidden)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    ckpt = out_dir / "checkpoint.pt"
    history: list[dict] = []
    start_epoch = 0
    best = None
    if ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        free = {"epochs": 0} if cfg.lr_schedule == "constant" else {}  # more epochs may follow a constant rate
        if {"lr_schedule": "constant", **state["config"], **free} != {**asdict(cfg), **free}:
            raise ValueError(f"{ckpt} was made with other settings; use another --out or the same settings")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        rng.bit_generator.state = state["rng"]
        torch.set_rng_state(state["torch_rng"])
        history, start_epoch, best = state["history"], state["epoch"], state.get("best")
        log(f"resuming from {ckpt} after epoch {start_epoch}")
    x, p, v = (torch.from_numpy(a) for a in tensors(train_data))
    vx, vp, vv = (torch.from_numpy(a) for a in tensors(val_data))
    n = len(x)
    steps = (n + cfg.batch - 1) // cfg.batch
    for epoch in range(start_epoch, cfg.epochs):
        model.train()
        order = torch.from_numpy(rng.permutation(n))
        flips = rng.random(steps) < 0.5
        total = 0.0
        for s in range(steps):
            idx = order[s * cfg.batch:(s + 1) * cfg.batch]
            for group in opt.param_groups:
                group["lr"] = rate_at(cfg, epoch * steps + s, cfg.epochs * steps)
            bx, bp = x[idx], p[idx]
            if flips[s]:  # the mirror image: columns reversed
                bx, bp = bx.flip(3), bp.flip(1)
            total += train_step(model, opt, bx, bp, v[idx]) * len(idx)
            if progress:
                progress(epoch, s + 1, steps)
        model.eval()
        with torch.no_grad():
            val_loss, val_p, val_v = (float(t) for t in loss_of(model, vx, vp, vv))
        row = {"epoch": epoch + 1, "train_loss": total / n, "val_loss": val_loss, "val_policy_loss": val_p,
               "val_value_loss": val_v}
        if cfg.eval_pairs:
            row.update(strength_row(model, cfg.eval_pairs, cfg.seed + epoch))
        history.append(row)
        log(json.dumps(row))
        if val_loss <= min(r["val_loss"] for r in history):  # early stopping: the best epoch is exported
            best = {k: v.clone() for k, v in model.state_dict().items()}
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "rng": rng.bit_generator.state,
                    "torch_rng": torch.get_rng_state(), "history": history, "epoch": epoch + 1, "best": best,
                    "config": asdict(cfg)}, ckpt.with_suffix(".tmp"))
        ckpt.with_suffix(".tmp").replace(ckpt)  # atomic: a stop mid-write keeps the last checkpoint
    if best is not None:
        model.load_state_dict(best)
    model.eval()
    return {"model": model, "history": history,
            "best_epoch": min(history, key=lambda r: r["val_loss"])["epoch"] if history else None}


def strength_row(model, pairs: int, seed: int) -> dict:
    from engine_svc.learned.players import _centre_argmax  # noqa: PLC2701  the players' tie rule
    from engine_svc.learned.encode import legal_mask, planes
    from engine_svc.learned.pvnet import PolicyValueNet

    from .pvtorch import export_arrays
    from .strength import score_against

    meta = {"channels": model.stem.out_channels, "blocks": sum(1 for k in model._modules if k.startswith("block")),
            "value_hidden": model.value.fc1.out_features}
    net = PolicyValueNet(meta, export_arrays(model))

    def choose(pos):
        logits, _ = net.forward(planes(pos.current, pos.mask)[None])
        return _centre_argmax(logits[0], legal_mask(pos.mask))

    return {f"vs_{opp.replace(':', '')}": score_against(choose, opp, pairs, seed)["score"]
            for opp in ("greedy", "minimax:3")}
