"""Monte Carlo tree search on boards past 64 bits: :mod:`engine_svc.mcts`
(PUCT, a uniform prior, random rollouts, the same rewards and seeding) over one
word per column (:mod:`connect4.wide`). A move wins when the line test through
its own stone says so (``line_through``)."""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

import numpy as np
from numba import uint64

from connect4.geometry import Geometry
from connect4.jit import kernel
from connect4.wide import wide_kernels_for


@cache
def wide_mcts_kernels(g: Geometry) -> SimpleNamespace:
    tag = f"wide{g.width}x{g.height}k{g.k}"
    W, H, CELLS = g.width, g.height, g.cells
    COL = uint64((1 << H) - 1)
    line_through = wide_kernels_for(g).line_through

    @kernel(tag)
    def height(word):
        n = 0
        while word:
            word &= word - uint64(1)
            n += 1
        return n

    @kernel(tag)
    def wins_with(cur, mask, c):
        """Would the side to move (``cur``) complete a line with a stone in column c?"""
        r = height(mask[c])
        cur[c] |= uint64(1) << uint64(r)
        won = line_through(cur, c, r)
        cur[c] ^= uint64(1) << uint64(r)
        return won

    @kernel(tag)
    def rollout(cur0, mask0, ply):
        """Random play to the end; +1 if the side to move at the start wins, -1 if it loses, 0 draw."""
        cur = cur0.copy()
        mask = mask0.copy()
        sign = 1
        cols = np.empty(W, dtype=np.int64)
        while ply < CELLS:
            n = 0
            for c in range(W):
                if (mask[c] + uint64(1)) & COL:
                    cols[n] = c
                    n += 1
            c = cols[np.random.randint(n)]
            if wins_with(cur, mask, c):
                return sign
            b = (mask[c] + uint64(1)) & COL
            for x in range(W):
                cur[x] ^= mask[x]  # the opponent is to move
            mask[c] |= b
            ply += 1
            sign = -sign
        return 0

    @kernel(tag)
    def search(cur0, mask0, ply0, sims, seed, c_puct, visits_out, stop):
        """As :func:`engine_svc.mcts.mcts_kernels`' search, on column words."""
        np.random.seed(seed)
        cap = sims + 2
        ncur = np.zeros((cap, W), dtype=np.uint64)
        nmask = np.zeros((cap, W), dtype=np.uint64)
        nply = np.zeros(cap, dtype=np.int64)
        term = np.zeros(cap, dtype=np.int64)     # 0 open, 1 the mover into it won, 2 draw
        visits = np.zeros(cap, dtype=np.int64)
        value = np.zeros(cap, dtype=np.float64)
        child = -np.ones((cap, W), dtype=np.int64)
        path = np.zeros(CELLS + 2, dtype=np.int64)
        ncur[0, :] = cur0
        nmask[0, :] = mask0
        nply[0] = ply0
        count = 1
        done = 0
        for _ in range(sims):
            if stop[0] != 0:
                break
            done += 1
            node = 0
            depth = 0
            path[0] = 0
            expanded = False
            while term[node] == 0 and nply[node] < CELLS and not expanded:
                legal = 0
                for c in range(W):
                    if (nmask[node, c] + uint64(1)) & COL:
                        legal += 1
                prior = 1.0 / legal
                sq = np.sqrt(visits[node] + 1.0)
                best = -1e300
                pick = -1
                for c in range(W):
                    if ((nmask[node, c] + uint64(1)) & COL) == 0:
                        continue
                    ch = child[node, c]
                    if ch < 0:
                        u = c_puct * prior * sq
                    else:
                        u = value[ch] / visits[ch] + c_puct * prior * sq / (1.0 + visits[ch])
                    if u > best:
                        best = u
                        pick = c
                ch = child[node, pick]
                if ch < 0:
                    ch = count
                    count += 1
                    child[node, pick] = ch
                    won = wins_with(ncur[node], nmask[node], pick)
                    for x in range(W):
                        ncur[ch, x] = ncur[node, x] ^ nmask[node, x]
                        nmask[ch, x] = nmask[node, x]
                    nmask[ch, pick] |= (nmask[node, pick] + uint64(1)) & COL
                    nply[ch] = nply[node] + 1
                    if won:
                        term[ch] = 1
                    elif nply[ch] == CELLS:
                        term[ch] = 2
                    expanded = True
                node = ch
                depth += 1
                path[depth] = node
            if term[node] == 1:
                r = 1.0
            elif term[node] == 2 or nply[node] == CELLS:
                r = 0.0
            else:
                r = -float(rollout(ncur[node], nmask[node], nply[node]))
            for i in range(depth, -1, -1):
                n = path[i]
                visits[n] += 1
                value[n] += r
                r = -r
        for c in range(W):
            ch = child[0, c]
            visits_out[c] = visits[ch] if ch >= 0 else -1
        return done

    return SimpleNamespace(rollout=rollout, search=search)
