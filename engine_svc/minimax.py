"""The casual-game minimax: plain depth-limited alpha-beta with a window evaluation.

This is the AI of the well-known Connect Four tutorials, kept as a ladder
rung: every window of K cells scores, from the searching player's view,
1000 for K of its stones, ``three`` for K-1 and an empty cell, ``two`` for K-2
and two empty cells, ``opp_three`` (negative) for the opponent's K-1 and an
empty cell; each own stone in the centre column adds ``centre``. ``opp_two``
(the opponent's K-2 and two empty cells) is 0 for the casual AI; ``hard``
weighs blocking more with it and a heavier ``opp_three``. No table,
no move ordering beyond centre first, no threat analysis: it is meant to be
beatable.

Numba has no clock: a caller stops a search by setting ``nodes[1]`` (the
node counter array holds [nodes, stop flag]) from another thread; every node
above the leaves looks at it and returns at once, so the values of a stopped
search mean nothing (the player raises :class:`~engine_svc.stopping.Stopped`).
The flag rides in the counter's array because one more argument of the
recursion cost 7 % of the speed; the check costs about 2 %.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from types import SimpleNamespace

import numpy as np
from numba import int64, uint64

from connect4.geometry import STANDARD, Geometry
from connect4.jit import kernel
from connect4.kernels import kernels_for

from connect4.bits import popcount
from .evaluation import line_tables

WIN_VALUE = 1_000_000


@dataclass(frozen=True)
class WindowWeights:
    four: int = 1000
    three: int = 10
    two: int = 4
    opp_three: int = -15
    centre: int = 6
    opp_two: int = 0  # the opponent's K-2 with two empty cells (the casual AI ignores them)


CASUAL = WindowWeights()
BLOCKER = WindowWeights(opp_three=-20, opp_two=-4)  # "hard": weighs blocking more (the opponent's threes and twos)


@cache
def minimax_kernels(g: Geometry = STANDARD) -> SimpleNamespace:
    if g.wide:  # past 64 bits: the same player on column words
        from .wide_minimax import wide_minimax_kernels

        return wide_minimax_kernels(g)
    tag = f"{g.width}x{g.height}k{g.k}"
    K = g.k
    W = g.width
    BOTTOM = uint64(g.bottom_mask)
    BOARD = uint64(g.board_mask)
    LINES = line_tables(g).masks
    N_LINES = LINES.shape[0]
    COLMASK = np.array([g.column_mask(c) for c in range(W)], dtype=np.uint64)
    ORDER = np.array(g.center_order(), dtype=np.int64)
    centre = 0
    for c in ({(W - 1) // 2, W // 2}):  # one centre column, or both middle ones on even widths
        centre |= g.column_mask(c)
    CENTRE = uint64(centre)
    win_cells = kernels_for(g).winning_cells

    @kernel(tag)
    def window_eval(me, opp, w):
        """Window score of ``me`` against ``opp``; w = (four, three, two, opp_three, centre, opp_two)."""
        s = int64(popcount(me & CENTRE)) * w[4]
        for i in range(N_LINES):
            line = LINES[i]
            m = popcount(me & line)
            o = popcount(opp & line)
            if o == 0:
                if m == K:
                    s += w[0]
                elif m == K - 1:
                    s += w[1]
                elif m == K - 2 and K > 2:
                    s += w[2]
            elif m == 0:
                if o == K - 1:
                    s += w[3]
                elif o == K - 2 and K > 2:
                    s += w[5]
        return s

    @kernel(tag)
    def minimax(ai, hu, mask, depth, alpha, beta, maximizing, w, nodes):
        """Alpha-beta value from the AI's view; nobody has won yet in (ai, hu);
        0 at once when ``nodes[1]`` (the stop flag) is set.

        ``maximizing`` is an int (1: the AI moves), never a bool literal: numba
        would compile one specialisation per literal, and cached recursive
        specialisations fail to link when loaded."""
        nodes[0] += 1
        if mask == BOARD:
            return int64(0)
        if depth == 0:
            return window_eval(ai, hu, w)
        if nodes[1] != 0:  # looked at above the leaves only: most nodes are leaves
            return int64(0)  # a stopped search: the caller discards every value
        possible = (mask + BOTTOM) & BOARD
        if maximizing != 0:
            wins = win_cells(ai, mask) & possible
            if wins:
                return int64(WIN_VALUE + depth)  # sooner wins score higher
            v = -int64(1 << 40)
            for k in range(W):
                b = possible & COLMASK[ORDER[k]]
                if b == 0:
                    continue
                s = minimax(ai | b, hu, mask | b, depth - 1, alpha, beta, maximizing ^ 1, w, nodes)
                if s > v:
                    v = s
                if v > alpha:
                    alpha = v
                if alpha >= beta:
                    break
            return v
        wins = win_cells(hu, mask) & possible
        if wins:
            return -int64(WIN_VALUE + depth)
        v = int64(1 << 40)
        for k in range(W):
            b = possible & COLMASK[ORDER[k]]
            if b == 0:
                continue
            s = minimax(ai, hu | b, mask | b, depth - 1, alpha, beta, maximizing ^ 1, w, nodes)
            if s < v:
                v = s
            if v < beta:
                beta = v
            if alpha >= beta:
                break
        return v

    @kernel(tag)
    def root_values(cur, mask, depth, w, out, nodes):
        """Exact minimax value of every column (``out``; full columns untouched),
        unless ``nodes[1]`` (the stop flag) gets set: then ``out`` means nothing.
        ``nodes`` holds [node count, stop flag]."""
        if nodes.shape[0] < 2:
            raise ValueError("nodes must hold [node count, stop flag]")
        possible = (mask + BOTTOM) & BOARD
        opp = cur ^ mask
        wins = win_cells(cur, mask)
        opponent_moves = int64(0)
        for c in range(W):
            b = possible & COLMASK[c]
            if b == 0:
                continue
            if wins & b:
                out[c] = WIN_VALUE + depth
            else:
                out[c] = minimax(cur | b, opp, mask | b, depth - 1, -int64(1 << 40), int64(1 << 40), opponent_moves, w,
                                 nodes)

    return SimpleNamespace(window_eval=window_eval, minimax=minimax, root_values=root_values)


def weights_array(w: WindowWeights) -> np.ndarray:
    return np.array([w.four, w.three, w.two, w.opp_three, w.centre, w.opp_two], dtype=np.int64)
