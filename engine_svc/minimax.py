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

One body for every board (``_minimax_over``) over a few node operations of
the board's kernel family: words passed by value up to 64 bits, column words
played and taken back in place past 64 bits (``_word_nodes``, ``_wide_nodes``).

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
from typing import Any

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


def window_score_kernel(tag: str, k: int) -> Any:
    """The score of one window holding ``m`` own and ``o`` opposing stones (both families)."""

    @kernel(tag, inline="always")
    def window_score(m, o, w):
        if o == 0:
            if m == k:
                return w[0]
            if m == k - 1:
                return w[1]
            if m == k - 2 and k > 2:
                return w[2]
        elif m == 0:
            if o == k - 1:
                return w[3]
            if o == k - 2 and k > 2:
                return w[5]
        return int64(0)

    return window_score


def _word_nodes(g: Geometry) -> SimpleNamespace:
    """Nodes ``(ai, hu, mask)`` of uint64 words, passed by value (boards of one 64-bit word)."""
    tag = f"{g.width}x{g.height}k{g.k}"
    W = g.width
    BOTTOM = uint64(g.bottom_mask)
    BOARD = uint64(g.board_mask)
    LINES = line_tables(g).masks
    N_LINES = LINES.shape[0]
    COLMASK = np.array([g.column_mask(c) for c in range(W)], dtype=np.uint64)
    centre = 0
    for c in ({(W - 1) // 2, W // 2}):  # one centre column, or both middle ones on even widths
        centre |= g.column_mask(c)
    CENTRE = uint64(centre)
    win_cells = kernels_for(g).winning_cells
    window_score = window_score_kernel(tag, g.k)

    @kernel(tag)
    def window_eval(me, opp, w):
        """Window score of ``me`` against ``opp``; w = (four, three, two, opp_three, centre, opp_two)."""
        s = int64(popcount(me & CENTRE)) * w[4]
        for i in range(N_LINES):
            line = LINES[i]
            s += window_score(popcount(me & line), popcount(opp & line), w)
        return s

    @kernel(tag, inline="always")
    def start(cur, mask, depth):
        return (cur, cur ^ mask, mask)

    @kernel(tag, inline="always")
    def full(node):
        return node[2] == BOARD

    @kernel(tag, inline="always")
    def value(node, w):
        return window_eval(node[0], node[1], w)

    @kernel(tag, inline="always")
    def root_wins(node, depth):
        return win_cells(node[0], node[2])

    @kernel(tag, inline="always")
    def wins_at(wins, c, b):
        return wins & b

    @kernel(tag, inline="always")
    def wins_now(node, maximizing, depth):
        mover = node[0] if maximizing != 0 else node[1]
        return (win_cells(mover, node[2]) & (node[2] + BOTTOM) & BOARD) != 0

    @kernel(tag, inline="always")
    def landing(node, c):
        return (node[2] + BOTTOM) & BOARD & COLMASK[c]

    @kernel(tag, inline="always")
    def play(node, maximizing, c, b):
        if maximizing != 0:
            return (node[0] | b, node[1], node[2] | b)
        return (node[0], node[1] | b, node[2] | b)

    @kernel(tag, inline="always")
    def undo(node, maximizing, c, b):
        pass  # nodes are values

    return SimpleNamespace(tag=tag, window_eval=window_eval, start=start, full=full, value=value,
                           root_wins=root_wins, wins_at=wins_at, wins_now=wins_now, landing=landing, play=play,
                           undo=undo)


def _wide_nodes(g: Geometry) -> SimpleNamespace:
    """Nodes as one uint64 array of column words changed in place (boards past 64 bits; any board
    for the tests): rows ``AI``, ``HU``, ``MASK``, then a scratch row per depth."""
    from connect4.wide import wide_kernels_for

    from .wide_evaluation import wide_line_tables

    tag = f"wide{g.width}x{g.height}k{g.k}"
    K, W, H = g.k, g.width, g.height
    AI, HU, MASK, SCRATCH = 0, 1, 2, 3
    COL = uint64((1 << H) - 1)
    T = wide_line_tables(g)
    N_LINES = T.n_lines
    L_COLS, L_ROWS = T.cols, T.rows
    CENTRE = np.zeros(W, dtype=np.uint64)
    for c in {(W - 1) // 2, W // 2}:  # one centre column, or both middle ones on even widths
        CENTRE[c] = (1 << H) - 1
    win_cells = wide_kernels_for(g).winning_cells
    window_score = window_score_kernel(tag, K)

    @kernel(tag)
    def window_eval(me, opp, w):
        s = int64(0)
        for c in range(W):
            s += int64(popcount(me[c] & CENTRE[c])) * w[4]
        for i in range(N_LINES):
            m = 0
            o = 0
            for j in range(K):
                c = L_COLS[i, j]
                r = uint64(L_ROWS[i, j])
                m += int64((me[c] >> r) & uint64(1))
                o += int64((opp[c] >> r) & uint64(1))
            s += window_score(m, o, w)
        return s

    @kernel(tag)
    def start(cur, mask, depth):
        bb = np.zeros((SCRATCH + depth + 1, W), dtype=np.uint64)
        for c in range(W):
            bb[AI, c] = cur[c]
            bb[HU, c] = cur[c] ^ mask[c]
            bb[MASK, c] = mask[c]
        return bb

    @kernel(tag)
    def full(bb):
        for c in range(W):  # noqa: SIM110 (numba compiles no generator expressions)
            if bb[MASK, c] != COL:
                return False
        return True

    @kernel(tag)
    def value(bb, w):
        return window_eval(bb[AI], bb[HU], w)

    @kernel(tag)
    def root_wins(bb, depth):
        win_cells(bb[AI], bb[MASK], bb[SCRATCH + depth])
        return bb[SCRATCH + depth]

    @kernel(tag)
    def wins_at(wins, c, b):
        return wins[c] & b

    @kernel(tag)
    def wins_now(bb, maximizing, depth):
        """Does the mover have a winning cell on top of a column? (``depth``'s scratch row)"""
        buf = bb[SCRATCH + depth]
        win_cells(bb[AI] if maximizing != 0 else bb[HU], bb[MASK], buf)
        for c in range(W):  # noqa: SIM110 (numba compiles no generator expressions)
            if buf[c] & (bb[MASK, c] + uint64(1)) & COL:
                return True
        return False

    @kernel(tag)
    def landing(bb, c):
        return (bb[MASK, c] + uint64(1)) & COL

    @kernel(tag)
    def play(bb, maximizing, c, b):
        bb[AI if maximizing != 0 else HU, c] |= b
        bb[MASK, c] |= b
        return bb

    @kernel(tag)
    def undo(bb, maximizing, c, b):
        bb[AI if maximizing != 0 else HU, c] ^= b
        bb[MASK, c] ^= b

    return SimpleNamespace(tag=tag, window_eval=window_eval, start=start, full=full, value=value,
                           root_wins=root_wins, wins_at=wins_at, wins_now=wins_now, landing=landing, play=play,
                           undo=undo)


@cache
def minimax_kernels(g: Geometry = STANDARD, column_words: bool = False) -> SimpleNamespace:
    """The casual minimax of one geometry, over the nodes of its kernel family; ``column_words``:
    the column-word nodes even on a board of one word (the tests hold the two equal)."""
    return _minimax_over(g, _wide_nodes(g) if g.wide or column_words else _word_nodes(g))


def _minimax_over(g: Geometry, nodes: SimpleNamespace) -> SimpleNamespace:
    """One body of the minimax for every board: the node operations are ``nodes``'."""
    tag = nodes.tag
    W = g.width
    ORDER = np.array(g.center_order(), dtype=np.int64)
    start, full, value, root_wins, wins_at = nodes.start, nodes.full, nodes.value, nodes.root_wins, nodes.wins_at
    wins_now, landing, play, undo = nodes.wins_now, nodes.landing, nodes.play, nodes.undo

    @kernel(tag)
    def minimax(node, depth, alpha, beta, maximizing, w, counter):
        """Alpha-beta value from the AI's view; nobody has won yet in ``node``;
        0 at once when ``counter[1]`` (the stop flag) is set.

        ``maximizing`` is an int (1: the AI moves), never a bool literal: numba
        would compile one specialisation per literal, and cached recursive
        specialisations fail to link when loaded."""
        counter[0] += 1
        if full(node):
            return int64(0)
        if depth == 0:
            return value(node, w)
        if counter[1] != 0:  # looked at above the leaves only: most nodes are leaves
            return int64(0)  # a stopped search: the caller discards every value
        if wins_now(node, maximizing, depth):
            return int64(WIN_VALUE + depth) if maximizing != 0 else -int64(WIN_VALUE + depth)  # sooner wins higher
        v = -int64(1 << 40) if maximizing != 0 else int64(1 << 40)
        for k in range(W):
            c = ORDER[k]
            b = landing(node, c)
            if b == 0:
                continue
            s = minimax(play(node, maximizing, c, b), depth - 1, alpha, beta, maximizing ^ 1, w, counter)
            undo(node, maximizing, c, b)
            if maximizing != 0:
                if s > v:
                    v = s
                if v > alpha:
                    alpha = v
            else:
                if s < v:
                    v = s
                if v < beta:
                    beta = v
            if alpha >= beta:
                break
        return v

    @kernel(tag)
    def root_values(cur, mask, depth, w, out, counter):
        """Exact minimax value of every column (``out``; full columns untouched),
        unless ``counter[1]`` (the stop flag) gets set: then ``out`` means nothing.
        ``counter`` holds [node count, stop flag]."""
        if counter.shape[0] < 2:
            raise ValueError("nodes must hold [node count, stop flag]")
        node = start(cur, mask, depth)
        wins = root_wins(node, depth)
        ai_moves, opponent_moves = int64(1), int64(0)
        for c in range(W):
            b = landing(node, c)
            if b == 0:
                continue
            if wins_at(wins, c, b):
                out[c] = WIN_VALUE + depth
            else:
                out[c] = minimax(play(node, ai_moves, c, b), depth - 1, -int64(1 << 40), int64(1 << 40),
                                 opponent_moves, w, counter)
                undo(node, ai_moves, c, b)

    return SimpleNamespace(window_eval=nodes.window_eval, minimax=minimax, root_values=root_values)


def weights_array(w: WindowWeights) -> np.ndarray:
    return np.array([w.four, w.three, w.two, w.opp_three, w.centre, w.opp_two], dtype=np.int64)
