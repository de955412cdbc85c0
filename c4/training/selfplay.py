"""Self-play PUCT iterations for the policy/value net (``c4 train selfplay``).

One generation: the current net plays ``games`` games against itself with
PUCT (``sims`` simulations a move; the first ``sample_plies`` moves drawn in
proportion to the root visits, the rest the most visited), each position
keeping its visit shares as the policy target and the game's result (from
the side to move) as the value target. A candidate is trained from the
current net on those positions mixed with the exact labels (so it does not
forget them), then plays the current net in the arena's way: paired random
4-ply openings, both seats, ``az:gate_sims`` each. It is kept, and becomes the
current net, only if it scores more than ``gate_score``; otherwise the
generation is recorded as rejected and the current net stays.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from engine_svc.learned import puct
from engine_svc.learned.encode import planes_many
from engine_svc.learned.runtime import PvNet, chosen_runtime, make_pv


@dataclass
class SelfPlayConfig:
    generations: int = 2
    games: int = 40
    sims: int = 64
    sample_plies: int = 8
    epochs: int = 3
    lr: float = 5e-4
    gate_pairs: int = 20
    gate_sims: int = 64
    gate_score: float = 0.5
    seed: int = 0

    def check(self) -> None:
        for name in ("generations", "games", "sims", "epochs", "gate_pairs", "gate_sims"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        if self.sample_plies < 0 or not 0 < self.lr < 1 or not 0 <= self.gate_score < 1:
            raise ValueError("--sample-plies >= 0, --lr in (0, 1) and --gate-score in [0, 1) please")


def self_play(net: PvNet, games: int, sims: int, sample_plies: int, seed: int):
    """(current, mask, visit shares, value target) arrays of ``games`` self-play games."""
    rng = np.random.default_rng(seed)
    evaluate = puct.net_evaluator(net)
    cur_l, msk_l, pi_l, z_l = [], [], [], []
    for _ in range(games):
        cur, mask, ply, record = 0, 0, 0, []
        winner_ply = None
        while True:
            root, _ = puct.search(cur, mask, ply, sims, evaluate)
            n = np.array(root.n, dtype=np.float64)
            pi = n / n.sum()
            a = int(rng.choice(7, p=pi)) if ply < sample_plies else puct.best_column(root)
            record.append((cur, mask, pi))
            child = root.child(a)
            cur, mask, ply = child.current, child.mask, child.ply
            if child.terminal is not None:
                winner_ply = ply if child.terminal == -1.0 else None
                break
        for i, (c, m, pi) in enumerate(record):
            cur_l.append(c)
            msk_l.append(m)
            pi_l.append(pi)
            # the mover of the last move won: +1 for positions where that side was to move
            z_l.append(0.0 if winner_ply is None else (1.0 if (len(record) - 1 - i) % 2 == 0 else -1.0))
    return (np.array(cur_l, np.uint64), np.array(msk_l, np.uint64), np.array(pi_l, np.float32),
            np.array(z_l, np.float32))


def gate(candidate: PvNet, current: PvNet, pairs: int, sims: int, seed: int) -> dict:
    """The candidate's score against the current net: paired random 4-ply openings, both seats."""
    from connect4 import Position
    from connect4.openings import random_openings

    ev = {"candidate": puct.net_evaluator(candidate), "current": puct.net_evaluator(current)}
    points = wins = losses = 0.0
    for opening in random_openings(pairs, 4, seed):
        for cand_first in (True, False):
            pos = Position.from_moves(opening)
            while not pos.is_over:
                cand_turn = (pos.ply - len(opening)) % 2 == (0 if cand_first else 1)
                root, _ = puct.search(pos.current, pos.mask, pos.ply, sims, ev["candidate" if cand_turn else "current"])
                pos.play(puct.best_column(root))
            if pos.winner is None:
                points += 0.5
            else:
                cand_colour = len(opening) % 2 if cand_first else 1 - len(opening) % 2
                won = pos.winner == cand_colour
                points += won
                wins += won
                losses += not won
    games = 2 * pairs
    return {"score": points / games, "wins": int(wins), "losses": int(losses), "games": games}


def fine_tune(model, cfg: SelfPlayConfig, sp, labels: dict, rng):
    """A few epochs over the self-play positions and as many exact labels."""
    import torch

    from .labels import targets
    from .pvtrain import train_step

    cur, msk, pi, z = sp
    take = rng.choice(len(labels["current"]), size=min(len(cur) * 2, len(labels["current"])), replace=False)
    lp, lv = targets(labels["scores"][take])
    x = torch.from_numpy(np.concatenate([planes_many(cur, msk),
                                         planes_many(labels["current"][take], labels["mask"][take])]))
    p = torch.from_numpy(np.concatenate([pi, lp]).astype(np.float32))
    v = torch.from_numpy(np.concatenate([z, lv]).astype(np.float32))
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=1e-4)
    model.train()
    losses = []
    for _ in range(cfg.epochs):
        order = torch.from_numpy(rng.permutation(len(x)))
        for s in range(0, len(x), 256):
            idx = order[s:s + 256]
            bx, bp = x[idx], p[idx]
            if rng.random() < 0.5:
                bx, bp = bx.flip(3), bp.flip(1)
            losses.append(train_step(model, opt, bx, bp, v[idx]))
    model.eval()
    return float(np.mean(losses))


def iterate(cfg: SelfPlayConfig, start_weights: Path, labels: dict, out: Path, log=print) -> dict:
    """Run the generations; the kept net is ``out/current.npz``; history in ``out/generations.json``."""
    import shutil

    import torch

    from engine_svc.learned.weights import read_weights, write_weights

    from .pvtorch import build, export_arrays

    cfg.check()
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(1)
    hist_path = out / "generations.json"
    history = json.loads(hist_path.read_text())["history"] if hist_path.exists() else []
    current_path = out / "current.npz"
    if not current_path.exists():
        shutil.copyfile(start_weights, current_path)
    for gen in range(len(history) + 1, cfg.generations + 1):
        rng = np.random.default_rng(cfg.seed * 1000 + gen)
        meta, arrays = read_weights(current_path, "pv")
        current = make_pv(meta, arrays, chosen_runtime())
        sp = self_play(current, cfg.games, cfg.sims, cfg.sample_plies, cfg.seed * 1000 + gen)
        model = build(meta["channels"], meta["blocks"], meta["value_hidden"])
        model.load_state_dict({_torch_name(k): torch.from_numpy(v) for k, v in arrays.items()})
        loss = fine_tune(model, cfg, sp, labels, rng)
        cand_path = out / f"gen{gen}.npz"
        write_weights(cand_path, "pv", {**meta, "generation": gen}, export_arrays(model))
        candidate = make_pv(*read_weights(cand_path, "pv"), chosen_runtime())
        g = gate(candidate, current, cfg.gate_pairs, cfg.gate_sims, cfg.seed * 1000 + gen)
        kept = g["score"] > cfg.gate_score
        if kept:
            shutil.copyfile(cand_path, current_path)
        row = {"generation": gen, "selfplay_positions": int(len(sp[0])), "loss": loss, "gate_score": g["score"],
               "gate_wins": g["wins"], "gate_losses": g["losses"], "gate_games": g["games"], "kept": kept}
        history.append(row)
        log(json.dumps(row))
        hist_path.write_text(json.dumps({"config": asdict(cfg), "history": history}, indent=1))
    return {"history": history, "current": current_path}


def _torch_name(name: str) -> str:
    base, _, kind = name.rpartition(".")
    return f"{base}.{'weight' if kind == 'w' else 'bias'}"
