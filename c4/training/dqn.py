"""The DQN of the published study, trained by self-play (``c4 train dqn``).

As the study describes it: two 6x7 canonical planes (the side to move's
stones first) into an MLP with one Q-value per column; illegal columns masked
when acting and in the Bellman target; the negamax sign flip (the next state
belongs to the opponent, so the target is ``r - gamma * max Q_target(s')``,
``r`` = +1 for the move that wins, 0 otherwise, the target ``r`` alone at the
end of a game); Huber loss, Adam, a replay buffer of 50k transitions, batch
64, gamma 0.99, gradient-norm clipping 10, a hard target update every 500
steps, epsilon from 1 to 0.05 over 30k steps; greedy evaluation. The MLP's
hidden sizes and the learning rate are not given by the study: 128, 128 and
1e-3 here (``--hidden``, ``--lr``).

Two improvements measured: ``--double`` (Double DQN: the online net picks
the next state's column and the target net values it), and
``--solver-targets`` (``solver_targets.py``: the Q-values of the legal
columns of exactly labelled positions regressed toward the exact results,
mixed with ``--bellman-weight`` times the Bellman loss, after
``--label-warmup`` steps on the labels alone).

A checkpoint (``checkpoint.pt``) every ``checkpoint_every`` episodes keeps the
nets, the optimiser, the replay buffer and every generator's state, so a
stopped run resumes to the same result.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from engine_svc.learned.encode import legal_mask, planes
from engine_svc.learned.puct import TOP, won


@dataclass
class DqnConfig:
    episodes: int = 3000
    hidden: list = field(default_factory=lambda: [128, 128])
    lr: float = 1e-3
    gamma: float = 0.99
    buffer: int = 50_000
    batch: int = 64
    clip: float = 10.0
    target_every: int = 500
    eps_start: float = 1.0
    eps_end: float = 0.05
    eps_steps: int = 30_000
    warmup: int = 1_000  # transitions in the buffer before learning starts
    double: bool = False
    seed: int = 0
    eval_every: int = 500  # episodes between strength checks
    eval_pairs: int = 10
    checkpoint_every: int = 250
    solver_targets: list = field(default_factory=list)  # c4 train labels folders (block-*.npz)
    bellman_weight: float = 1.0  # the Bellman loss's weight beside the solver-target loss
    target_scale: float = 0.0  # 0: targets sign(score); S > 0: clip(score / S, -1, 1) for strong labels
    target_decay: float = 1.0  # < 1: strong labels' targets sign(score) * decay ** (plies to the end - 1)
    label_warmup: int = 0  # learning steps on the labels alone before the first episode
    solver_batch: int = 64
    heldout: str = ""  # a labels .npz never trained on, scored in every strength check

    def check(self) -> None:
        self._check_dqn()
        if not 0 <= self.bellman_weight <= 100:
            raise ValueError(f"--bellman-weight must be in [0, 100], got {self.bellman_weight}")
        if self.target_scale < 0:
            raise ValueError(f"--target-scale must be 0 (signs) or more, got {self.target_scale}")
        if not 0 < self.target_decay <= 1:
            raise ValueError(f"--target-decay must be in (0, 1], got {self.target_decay}")
        if self.target_scale and self.target_decay < 1:
            raise ValueError("give --target-scale or --target-decay, not both")
        if self.label_warmup < 0 or self.solver_batch < 1:
            raise ValueError("--label-warmup must be >= 0 and --solver-batch at least 1")
        if not self.solver_targets and (self.bellman_weight != 1.0 or self.target_scale
                                       or self.target_decay != 1.0 or self.label_warmup):
            raise ValueError("--bellman-weight, --target-scale, --target-decay and --label-warmup need --solver-targets")
        for folder in self.solver_targets:
            if not Path(folder).is_dir():
                raise ValueError(f"--solver-targets {folder}: no such folder")
            if not any(Path(folder).glob("block-[0-9]*[0-9].npz")):
                raise ValueError(f"--solver-targets {folder}: no block-*.npz there (made by c4 train labels)")
        if self.heldout and not Path(self.heldout).is_file():
            raise ValueError(f"--heldout {self.heldout}: no such file")

    def _check_dqn(self) -> None:
        for name in ("episodes", "buffer", "batch", "target_every", "eps_steps", "eval_every", "checkpoint_every"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        if not self.hidden or any(int(h) < 1 for h in self.hidden):
            raise ValueError(f"--hidden must be positive layer sizes, got {self.hidden}")
        if not 0 < self.lr < 1:
            raise ValueError(f"--lr must be in (0, 1), got {self.lr}")
        if not 0 <= self.gamma <= 1:
            raise ValueError(f"--gamma must be in [0, 1], got {self.gamma}")
        if not 0 <= self.eps_end <= self.eps_start <= 1:
            raise ValueError("epsilon must satisfy 0 <= --eps-end <= --eps-start <= 1")
        if self.batch > self.buffer:
            raise ValueError(f"--batch {self.batch} is larger than --buffer {self.buffer}")
        if self.clip <= 0:
            raise ValueError(f"--clip must be more than 0, got {self.clip}")
        if self.eval_pairs < 0 or self.warmup < 0:
            raise ValueError("--eval-pairs and --warmup must be >= 0")


OPPONENTS = ("random", "greedy", "minimax:1", "minimax:2")


def build(hidden):
    from torch import nn

    layers, size = [], 84
    mlp = nn.Module()
    for i, h in enumerate([*hidden, 7]):
        layer = nn.Linear(size, h)
        mlp.add_module(f"fc{i}", layer)
        layers.append(layer)
        size = h
    mlp.n_layers = len(layers)
    return mlp


def forward(mlp, x):
    import torch

    h = x.reshape(len(x), -1)
    for i in range(mlp.n_layers):
        h = getattr(mlp, f"fc{i}")(h)
        if i < mlp.n_layers - 1:
            h = torch.relu(h)
    return h


def export_arrays(mlp) -> dict:
    return {f"{name.rpartition('.')[0]}.{'w' if name.endswith('weight') else 'b'}": t.detach().numpy().astype("float32")
            for name, t in mlp.state_dict().items()}


class Replay:
    def __init__(self, size: int):
        self.s = np.zeros((size, 2, 6, 7), np.float32)
        self.a = np.zeros(size, np.int64)
        self.r = np.zeros(size, np.float32)
        self.s2 = np.zeros((size, 2, 6, 7), np.float32)
        self.legal2 = np.zeros((size, 7), bool)
        self.done = np.zeros(size, np.float32)
        self.size, self.n, self.i = size, 0, 0

    def add(self, s, a, r, s2, legal2, done) -> None:
        j = self.i
        self.s[j], self.a[j], self.r[j], self.s2[j], self.legal2[j], self.done[j] = s, a, r, s2, legal2, done
        self.i = (j + 1) % self.size
        self.n = min(self.n + 1, self.size)


def td_targets(cfg: DqnConfig, online, target, r, s2, legal2, done):
    """The negamax Bellman target: r - gamma * Q(s', best legal a') (r alone when the game ended)."""
    import torch

    with torch.no_grad():
        q_target = forward(target, s2).masked_fill(~legal2, -1e9)
        if cfg.double:
            pick = forward(online, s2).masked_fill(~legal2, -1e9).argmax(1, keepdim=True)
            nxt = q_target.gather(1, pick)[:, 0]
        else:
            nxt = q_target.max(1).values
        nxt = torch.where(done > 0, torch.zeros_like(nxt), nxt)
        return r - cfg.gamma * nxt


def learn_step(cfg: DqnConfig, online, target, opt, batch, solver_batch=None, bellman_weight: float = 1.0):
    """One Adam step on ``bellman_weight`` x the Bellman loss of ``batch`` (None: none) plus, given
    ``solver_batch`` (planes, targets, legal), the solver-target loss. The Bellman loss alone
    (a float) without ``solver_batch``; else (total, bellman or None, solver)."""
    import torch

    from .solver_targets import solver_loss

    total = bell = None
    if batch is not None and bellman_weight > 0:
        s, a, r, s2, legal2, done = batch
        y = td_targets(cfg, online, target, r, s2, legal2, done)
        q = forward(online, s).gather(1, a[:, None])[:, 0]
        bell = torch.nn.functional.smooth_l1_loss(q, y)
        total = bellman_weight * bell
    sol = None
    if solver_batch is not None:
        x, t, legal = solver_batch
        sol = solver_loss(forward(online, x), t, legal)
        total = sol if total is None else total + sol
    assert total is not None, "a learning step needs a batch"
    opt.zero_grad()
    total.backward()
    torch.nn.utils.clip_grad_norm_(online.parameters(), cfg.clip)
    opt.step()
    bell_f = None if bell is None else float(bell.item())
    if solver_batch is None or sol is None:
        return bell_f
    return float(total.item()), bell_f, float(sol.item())


def epsilon(cfg: DqnConfig, step: int) -> float:
    frac = min(1.0, step / cfg.eps_steps)
    return cfg.eps_start + frac * (cfg.eps_end - cfg.eps_start)


def greedy_column(mlp, current: int, mask: int) -> int:
    import torch

    with torch.no_grad():
        q = forward(mlp, torch.from_numpy(planes(current, mask)[None]))[0].numpy()
    legal = legal_mask(mask)
    return max((c for c in (3, 2, 4, 1, 5, 0, 6) if legal[c]), key=lambda c: q[c])


RESUMABLE = ("episodes", "checkpoint_every")  # a resumed run may change these: run longer, save more often


def _fixed(config: dict) -> dict:
    return {k: v for k, v in config.items() if k not in RESUMABLE}


def train(cfg: DqnConfig, out_dir: Path, progress=None, log=print) -> dict:
    import copy

    import torch

    from .strength import score_against

    cfg.check()
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(1)
    rng = np.random.default_rng(cfg.seed)
    online = build(cfg.hidden)
    target = copy.deepcopy(online)
    opt = torch.optim.Adam(online.parameters(), lr=cfg.lr)
    replay = Replay(cfg.buffer)
    history, losses, sol_losses = [], [], []
    step = episode = 0
    labels = heldout = None
    if cfg.solver_targets:
        from .labels import canonical_keys
        from .solver_targets import SolverTargets, load_label_dirs

        skip = canonical_keys(cfg.heldout) if cfg.heldout else set()
        labels = SolverTargets(load_label_dirs(cfg.solver_targets, skip), cfg.target_scale, cfg.target_decay)
        log(f"solver targets: {labels.n} labelled positions from {', '.join(cfg.solver_targets)}"
            f" ({len(skip)} held-out positions left out)")
    if cfg.heldout:
        from .labels import read_labels_file

        heldout = read_labels_file(cfg.heldout)
    ckpt = out_dir / "checkpoint.pt"
    if ckpt.exists():
        st = torch.load(ckpt, weights_only=False)
        if _fixed(st["config"]) != _fixed(asdict(cfg)):
            raise ValueError(f"{ckpt} was made with other settings; use another --out or the same settings")
        online.load_state_dict(st["online"])
        target.load_state_dict(st["target"])
        opt.load_state_dict(st["opt"])
        replay = st["replay"]
        rng.bit_generator.state = st["rng"]
        torch.set_rng_state(st["torch_rng"])
        history, losses, step, episode = st["history"], st["losses"], st["step"], st["episode"]
        sol_losses = st.get("sol_losses", [])
        log(f"resuming from {ckpt} after episode {episode}")
    elif labels is not None:
        for _ in range(cfg.label_warmup):  # the labels alone first: a start that already knows some play
            sol_losses.append(learn_step(cfg, online, target, opt, None, labels.batch(rng, cfg.solver_batch))[2])
        if cfg.label_warmup:
            target.load_state_dict(online.state_dict())
            log(f"label warm-up: {cfg.label_warmup} steps, solver-target loss {np.mean(sol_losses[-200:]):.4f}")
    while episode < cfg.episodes:
        cur, mask, ply = 0, 0, 0
        s = planes(cur, mask)
        while True:
            legal = [c for c in range(7) if not mask & TOP[c]]
            if rng.random() < epsilon(cfg, step):
                a = int(legal[rng.integers(len(legal))])
            else:
                a = greedy_column(online, cur, mask)
            new_mask = mask | (mask + (1 << (a * 7)))
            mover = (cur ^ mask) ^ new_mask
            cur, mask, ply = cur ^ mask, new_mask, ply + 1
            win, full = won(mover), ply == 42
            s2 = planes(cur, mask)
            replay.add(s, a, 1.0 if win else 0.0, s2, legal_mask(mask), float(win or full))
            s = s2
            step += 1
            if replay.n >= max(cfg.batch, cfg.warmup):
                idx = rng.integers(replay.n, size=cfg.batch)
                batch = (torch.from_numpy(replay.s[idx]), torch.from_numpy(replay.a[idx]),
                         torch.from_numpy(replay.r[idx]), torch.from_numpy(replay.s2[idx]),
                         torch.from_numpy(replay.legal2[idx]), torch.from_numpy(replay.done[idx]))
                if labels is None:
                    losses.append(learn_step(cfg, online, target, opt, batch))
                else:
                    _, bell, sol = learn_step(cfg, online, target, opt, batch,
                                              labels.batch(rng, cfg.solver_batch), cfg.bellman_weight)
                    sol_losses.append(sol)
                    if bell is not None:
                        losses.append(bell)
            if step % cfg.target_every == 0:
                target.load_state_dict(online.state_dict())
            if win or full:
                break
        episode += 1
        if progress:
            progress(episode)
        if episode % cfg.eval_every == 0 or episode == cfg.episodes:
            recent = losses[-1000:]
            row = {"episode": episode, "step": step, "epsilon": round(epsilon(cfg, step), 4),
                   "loss": float(np.mean(recent)) if recent else None}
            if labels is not None:
                row["solver_loss"] = float(np.mean(sol_losses[-1000:])) if sol_losses else None
            if heldout is not None:
                from .solver_targets import dqn_quality

                row["heldout_keeps_value"] = round(dqn_quality(q_values(online, heldout), heldout)["move_keeps_value"], 4)
            if cfg.eval_pairs:
                choose = lambda pos: greedy_column(online, pos.current, pos.mask)  # noqa: E731
                for opp in OPPONENTS:
                    res = score_against(choose, opp, cfg.eval_pairs, cfg.seed + episode)
                    row[f"win_vs_{opp.replace(':', '')}"] = res["wins"] / res["games"]  # the study counts wins
            history.append(row)
            log(json.dumps(row))
        if episode % cfg.checkpoint_every == 0 or episode == cfg.episodes:
            torch.save({"online": online.state_dict(), "target": target.state_dict(), "opt": opt.state_dict(),
                        "replay": replay, "rng": rng.bit_generator.state, "torch_rng": torch.get_rng_state(),
                        "history": history, "losses": losses, "sol_losses": sol_losses, "step": step, "episode": episode,
                        "config": asdict(cfg)}, ckpt.with_suffix(".tmp"))
            ckpt.with_suffix(".tmp").replace(ckpt)  # atomic: a stop mid-write keeps the last checkpoint
    return {"model": online, "history": history, "steps": step}


def q_values(mlp, data: dict) -> np.ndarray:
    """The net's Q-values of the positions of a labels dict (current, mask)."""
    import torch

    from engine_svc.learned.encode import planes_many

    with torch.no_grad():
        return forward(mlp, torch.from_numpy(planes_many(data["current"], data["mask"]))).numpy()


def write_reference(mlp, weights: Path, count: int = 64, seed: int = 0) -> Path:
    """Inputs (bitboards of random positions) and the trainer's Q-values, beside the weights."""
    import torch

    from connect4 import Position
    from engine_svc.learned.encode import planes_many

    from .distil import reference_path

    rng = np.random.default_rng(seed)
    cur: list[int] = []
    msk: list[int] = []
    while len(cur) < count:
        pos = Position()
        for _ in range(int(rng.integers(0, 30))):
            if pos.is_over:
                break
            legal = pos.legal_moves()
            pos.play(int(legal[rng.integers(len(legal))]))
        if not pos.is_over:
            cur.append(pos.current)
            msk.append(pos.mask)
    cur_a, msk_a = np.array(cur, np.uint64), np.array(msk, np.uint64)
    with torch.no_grad():
        q = forward(mlp, torch.from_numpy(planes_many(cur_a, msk_a))).numpy()
    path = reference_path(weights)
    np.savez(path, current=cur_a, mask=msk_a, q=q)
    return path
