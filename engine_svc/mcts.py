"""Monte Carlo tree search: PUCT with a uniform prior and random rollouts (numba).

The tree lives in preallocated arrays (one node per simulation at most).
``value[n]`` sums the rewards (+1 win, 0 draw, -1 loss) of the player who
made the move into node n, so a parent picks the child maximising
``Q + c * P * sqrt(N_parent) / (1 + N_child)`` with ``P = 1 / legal moves``.
Reproducible: the kernel seeds numba's generator with the seed it is given.
A caller stops a search by setting ``stop[0]`` from another thread (numba has
no clock); the kernel looks at it before every simulation.
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

import numpy as np
from numba import uint64

from connect4.geometry import STANDARD, Geometry
from connect4.jit import kernel
from connect4.kernels import kernels_for


C_PUCT = 1.5


@cache
def mcts_kernels(g: Geometry = STANDARD) -> SimpleNamespace:
    if g.wide:  # past 64 bits: the same search on column words
        from .wide_mcts import wide_mcts_kernels

        return wide_mcts_kernels(g)
    tag = f"{g.width}x{g.height}k{g.k}"
    W = g.width
    CELLS = g.cells
    BOTTOM = uint64(g.bottom_mask)
    BOARD = uint64(g.board_mask)
    COLMASK = np.array([g.column_mask(c) for c in range(W)], dtype=np.uint64)
    win_cells = kernels_for(g).winning_cells

    @kernel(tag)
    def rollout(cur, mask, ply):
        """Random play to the end; +1 if the side to move at the start wins, -1 if it loses, 0 draw."""
        sign = 1
        cols = np.empty(W, dtype=np.int64)
        while ply < CELLS:
            possible = (mask + BOTTOM) & BOARD
            n = 0
            for c in range(W):
                if possible & COLMASK[c]:
                    cols[n] = c
                    n += 1
            b = possible & COLMASK[cols[np.random.randint(n)]]
            if win_cells(cur, mask) & b:
                return sign
            cur, mask = cur ^ mask, mask | b  # the opponent is to move
            ply += 1
            sign = -sign
        return 0

    @kernel(tag)
    def search(cur0, mask0, ply0, sims, seed, c_puct, visits_out, stop):
        """Run ``sims`` simulations; root children's visit counts go to visits_out.
        Returns the simulations run: fewer than ``sims`` when ``stop[0]`` was set."""
        np.random.seed(seed)
        cap = sims + 2
        ncur = np.zeros(cap, dtype=np.uint64)
        nmask = np.zeros(cap, dtype=np.uint64)
        nply = np.zeros(cap, dtype=np.int64)
        term = np.zeros(cap, dtype=np.int64)     # 0 open, 1 the mover into it won, 2 draw
        visits = np.zeros(cap, dtype=np.int64)
        value = np.zeros(cap, dtype=np.float64)
        child = -np.ones((cap, W), dtype=np.int64)
        path = np.zeros(CELLS + 2, dtype=np.int64)
        ncur[0] = cur0
        nmask[0] = mask0
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
                cur = ncur[node]
                mask = nmask[node]
                possible = (mask + BOTTOM) & BOARD
                legal = 0
                for c in range(W):
                    if possible & COLMASK[c]:
                        legal += 1
                prior = 1.0 / legal
                sq = np.sqrt(visits[node] + 1.0)
                best = -1e300
                pick = -1
                for c in range(W):
                    if (possible & COLMASK[c]) == 0:
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
                    # Expand one new node and stop descending.
                    b = possible & COLMASK[pick]
                    ch = count
                    count += 1
                    child[node, pick] = ch
                    ncur[ch] = cur ^ mask
                    nmask[ch] = mask | b
                    nply[ch] = nply[node] + 1
                    if win_cells(cur, mask) & b:
                        term[ch] = 1
                    elif nply[ch] == CELLS:
                        term[ch] = 2
                    expanded = True
                node = ch
                depth += 1
                path[depth] = node
            # Reward for the player who moved into the leaf.
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

    return SimpleNamespace(search=search, rollout=rollout)
