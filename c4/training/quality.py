"""Held-out quality of the policy/value net on solver-proven positions.

* move accuracy: the share of positions where the net's best legal column
  keeps the game-theoretic value (its exact score has the sign of the best
  column's score);
* value sign accuracy over decided positions (exact score not 0): the value
  head's sign equals the exact one;
* three-way value accuracy over all positions: win when v > 1/3, loss when
  v < -1/3, else draw.
By ply band too, since the early plies are the hard ones.
"""

from __future__ import annotations

import numpy as np

from engine_svc.learned.encode import planes_many

from .labels import FULL


def quality(net, data: dict) -> dict:
    x = planes_many(data["current"], data["mask"])
    outs = [net.forward(x[i:i + 512]) for i in range(0, len(x), 512)]
    logits = np.concatenate([o[0] for o in outs])
    value = np.concatenate([o[1] for o in outs])
    s = data["scores"].astype(np.int16)
    legal = s != FULL
    order = np.array([3, 2, 4, 1, 5, 0, 6])
    # the best legal column, centre first on ties (as the net player picks)
    masked = np.where(legal, logits, -np.inf)[:, order]
    col = order[np.argmax(masked, axis=1)]
    best = np.where(legal, s, -1000).max(axis=1)
    chosen = s[np.arange(len(s)), col]
    keeps = np.sign(chosen) == np.sign(best)
    decided = best != 0
    sign_ok = np.sign(value) == np.sign(best)
    three = np.where(value > 1 / 3, 1, np.where(value < -1 / 3, -1, 0)) == np.sign(best)
    ply = data["ply"].astype(int)
    bands = {}
    for lo, hi in ((0, 8), (8, 16), (16, 24), (24, 42)):
        m = (ply >= lo) & (ply < hi)
        if m.any():
            md = m & decided
            bands[f"{lo}-{hi - 1}"] = {"positions": int(m.sum()), "move_keeps_value": float(keeps[m].mean()),
                                       "value_sign": float(sign_ok[md].mean()) if md.any() else None}
    return {"positions": int(len(s)), "move_keeps_value": float(keeps.mean()),
            "decided_positions": int(decided.sum()), "value_sign_accuracy": float(sign_ok[decided].mean()),
            "value_three_way_accuracy": float(three.mean()), "by_ply": bands}
