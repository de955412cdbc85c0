"""Monte Carlo tree search: PUCT with a uniform prior and random rollouts (numba).

The tree lives in preallocated arrays (one node per simulation at most).
``value[n]`` sums the rewards (+1 win, 0 draw, -1 loss) of the player who
made the move into node n, so a parent picks the child maximising
``Q + c * P * sqrt(N_parent) / (1 + N_child)`` with ``P = 1 / legal moves``.
Reproducible: the kernel seeds numba's generator with the seed it is given.
A caller stops a search by setting ``stop[0]`` from another thread (numba has
no clock); the kernel looks at it before every simulation.

One body for every board (``_mcts_over``) over the node operations of the
board's kernel family: up to 64 bits a tree node is one word of stones and
one of mask (``_word_nodes``); past 64 bits a row of column words each
(``_wide_nodes``, where a move wins when the line test through its own stone
says so, ``line_through``).
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
def mcts_kernels(g: Geometry = STANDARD, column_words: bool = False) -> SimpleNamespace:
    """The MCTS of one geometry, over the nodes of its kernel family; ``column_words``:
    the column-word nodes even on a board of one word (the tests hold the two equal)."""
    return _mcts_over(g, _wide_nodes(g) if g.wide or column_words else _word_nodes(g))


def _word_nodes(g: Geometry) -> SimpleNamespace:
    """Tree nodes ``ncur[n]``, ``nmask[n]`` of one word; a rollout's state the pair (cur, mask)."""
    tag = f"{g.width}x{g.height}k{g.k}"
    BOTTOM = uint64(g.bottom_mask)
    BOARD = uint64(g.board_mask)
    COLMASK = np.array([g.column_mask(c) for c in range(g.width)], dtype=np.uint64)
    win_cells = kernels_for(g).winning_cells

    @kernel(tag, inline="always")
    def tree(cap, cur0, mask0):
        ncur = np.zeros(cap, dtype=np.uint64)
        nmask = np.zeros(cap, dtype=np.uint64)
        ncur[0] = cur0
        nmask[0] = mask0
        return ncur, nmask

    @kernel(tag, inline="always")
    def is_open(nmask, n, c):
        return ((nmask[n] + BOTTOM) & BOARD & COLMASK[c]) != 0

    @kernel(tag, inline="always")
    def expand(ncur, nmask, n, ch, c):
        """Node ``ch`` := node ``n`` after a stone in column c; whether that stone won."""
        cur, mask = ncur[n], nmask[n]
        b = (mask + BOTTOM) & BOARD & COLMASK[c]
        ncur[ch] = cur ^ mask  # the opponent is to move
        nmask[ch] = mask | b
        return (win_cells(cur, mask) & b) != 0

    @kernel(tag, inline="always")
    def state(ncur, nmask, n):
        return (ncur[n], nmask[n])

    @kernel(tag, inline="always")
    def can_play(st, c):
        return ((st[1] + BOTTOM) & BOARD & COLMASK[c]) != 0

    @kernel(tag, inline="always")
    def wins_with(st, c):
        return (win_cells(st[0], st[1]) & (st[1] + BOTTOM) & BOARD & COLMASK[c]) != 0

    @kernel(tag, inline="always")
    def play(st, c):
        b = (st[1] + BOTTOM) & BOARD & COLMASK[c]
        return (st[0] ^ st[1], st[1] | b)  # the opponent is to move

    return SimpleNamespace(tag=tag, tree=tree, is_open=is_open, expand=expand, state=state, can_play=can_play,
                           wins_with=wins_with, play=play)


def _wide_nodes(g: Geometry) -> SimpleNamespace:
    """Tree nodes ``ncur[n]``, ``nmask[n]`` as rows of column words; a rollout's
    state one array (row 0 the side to move's stones, row 1 the mask) changed in place."""
    from connect4.wide import wide_kernels_for

    tag = f"wide{g.width}x{g.height}k{g.k}"
    W, H = g.width, g.height
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
    def stone_wins(cur, mask, c):
        """Would the side to move (``cur``) complete a line with a stone in column c?"""
        r = height(mask[c])
        cur[c] |= uint64(1) << uint64(r)
        won = line_through(cur, c, r)
        cur[c] ^= uint64(1) << uint64(r)
        return won

    @kernel(tag)
    def tree(cap, cur0, mask0):
        ncur = np.zeros((cap, W), dtype=np.uint64)
        nmask = np.zeros((cap, W), dtype=np.uint64)
        ncur[0, :] = cur0
        nmask[0, :] = mask0
        return ncur, nmask

    @kernel(tag)
    def is_open(nmask, n, c):
        return ((nmask[n, c] + uint64(1)) & COL) != 0

    @kernel(tag)
    def expand(ncur, nmask, n, ch, c):
        won = stone_wins(ncur[n], nmask[n], c)
        for x in range(W):
            ncur[ch, x] = ncur[n, x] ^ nmask[n, x]  # the opponent is to move
            nmask[ch, x] = nmask[n, x]
        nmask[ch, c] |= (nmask[n, c] + uint64(1)) & COL
        return won

    @kernel(tag)
    def state(ncur, nmask, n):
        st = np.empty((2, W), dtype=np.uint64)
        st[0, :] = ncur[n]
        st[1, :] = nmask[n]
        return st

    @kernel(tag)
    def can_play(st, c):
        return ((st[1, c] + uint64(1)) & COL) != 0

    @kernel(tag)
    def wins_with(st, c):
        return stone_wins(st[0], st[1], c)

    @kernel(tag)
    def play(st, c):
        b = (st[1, c] + uint64(1)) & COL
        for x in range(W):
            st[0, x] ^= st[1, x]  # the opponent is to move
        st[1, c] |= b
        return st

    return SimpleNamespace(tag=tag, tree=tree, is_open=is_open, expand=expand, state=state, can_play=can_play,
                           wins_with=wins_with, play=play)


def _mcts_over(g: Geometry, nodes: SimpleNamespace) -> SimpleNamespace:
    """One body of the MCTS for every board: the node operations are ``nodes``'."""
    tag = nodes.tag
    W = g.width
    CELLS = g.cells
    tree, is_open, expand, state = nodes.tree, nodes.is_open, nodes.expand, nodes.state
    can_play, wins_with, play = nodes.can_play, nodes.wins_with, nodes.play

    @kernel(tag)
    def rollout(st, ply):
        """Random play to the end from the state ``st``; +1 if the side to move at
        the start wins, -1 if it loses, 0 draw."""
        sign = 1
        cols = np.empty(W, dtype=np.int64)
        while ply < CELLS:
            n = 0
            for c in range(W):
                if can_play(st, c):
                    cols[n] = c
                    n += 1
            c = cols[np.random.randint(n)]
            if wins_with(st, c):
                return sign
            st = play(st, c)
            ply += 1
            sign = -sign
        return 0

    @kernel(tag)
    def search(cur0, mask0, ply0, sims, seed, c_puct, visits_out, stop):
        """Run ``sims`` simulations; root children's visit counts go to visits_out.
        Returns the simulations run: fewer than ``sims`` when ``stop[0]`` was set."""
        np.random.seed(seed)
        cap = sims + 2
        ncur, nmask = tree(cap, cur0, mask0)
        nply = np.zeros(cap, dtype=np.int64)
        term = np.zeros(cap, dtype=np.int64)     # 0 open, 1 the mover into it won, 2 draw
        visits = np.zeros(cap, dtype=np.int64)
        value = np.zeros(cap, dtype=np.float64)
        child = -np.ones((cap, W), dtype=np.int64)
        path = np.zeros(CELLS + 2, dtype=np.int64)
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
                    if is_open(nmask, node, c):
                        legal += 1
                prior = 1.0 / legal
                sq = np.sqrt(visits[node] + 1.0)
                best = -1e300
                pick = -1
                for c in range(W):
                    if not is_open(nmask, node, c):
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
                    ch = count
                    count += 1
                    child[node, pick] = ch
                    nply[ch] = nply[node] + 1
                    if expand(ncur, nmask, node, ch, pick):
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
                r = -float(rollout(state(ncur, nmask, node), nply[node]))
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
