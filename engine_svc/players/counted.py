"""A negamax that stops at a counted number of positions, not at a clock.

The kernels of the ``search`` and ``solver`` players (:mod:`.budgeted`) on
every board (one body over the node operations of :mod:`engine_svc.boards`):
alpha-beta negamax, fail-soft, with

* exact pruning of the moves that lose at once: a win now is taken; two
  opponent winning cells on top of columns lose; one must be blocked; a move
  right under an opponent's winning cell is never searched; nothing left is
  a loss (the engine's tactics: ``safe`` of :mod:`engine_svc.boards`);
* a table of scored positions (key, score, depth, bound, best column),
  always replaced, whose best column is tried first; then centre first;
* leaves scored by :func:`leaf_value`: the side to move's winning cells
  (empty cells that would complete one of its lines) minus the opponent's,
  times ``WINNING_CELL``, plus its stones in the central column(s) minus the
  opponent's.

Scores are the engine's (:mod:`engine_svc.scores`): a win whose last stone is
stone ``n`` scores ``MATE + CELLS + 1 - n`` for the winner, a draw 0; leaves
stay far below ``MATE``. Searched to the end of the game (``depth`` = the
empty cells) no leaf is ever scored and every value is exact: that is the
``solver`` player's exact solve.

The budget: ``ws[NODES]`` counts positions entered, and a search that would
enter one more than ``ws[BUDGET]`` sets ``ws[ABORT]`` and unwinds without
storing anything, so the count never passes the budget and two runs with one
budget visit the same positions in the same order. ``ws[STOP]`` (a cancel
from another thread, :func:`engine_svc.stopping.stop_on`) aborts the same way,
read every 1024 positions.
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

import numpy as np
from numba import int64, uint64

from connect4.bits import popcount
from connect4.geometry import STANDARD, Geometry
from connect4.jit import kernel

from ..boards import MASK_ROW, MW, board_ops
from ..ordering import move_at
from ..scores import INF, MATE

NODES, BUDGET, ABORT, STOP, BEST = 0, 1, 2, 3, 4  # the workspace ws (int64)
WS_SIZE = 5
KEY, SCORE, DEPTH, BOUND, MOVE = 0, 1, 2, 3, 4  # the columns of a table row
LOWER, UPPER, EXACT = 1, 2, 3
WINNING_CELL = 4  # a winning cell is worth four central stones
STOP_CHECK = 1023
HASH_MUL = uint64(0x9E3779B97F4A7C15)  # 2**64 / golden ratio


def new_table(bits: int) -> tuple[np.ndarray, np.uint64]:
    """A table of ``2**bits`` rows and the shift that picks a row from a key
    (Fibonacci hashing); key 0 marks an empty row (no position has key 0)."""
    return np.zeros((1 << bits, 5), dtype=np.int64), np.uint64(64 - bits)


def new_workspace(budget: int) -> np.ndarray:
    ws = np.zeros(WS_SIZE, dtype=np.int64)
    ws[BUDGET] = budget
    return ws


@cache
def counted_kernels(g: Geometry = STANDARD) -> SimpleNamespace:
    """Compile the counted search of one geometry. One body for every board:
    the node operations are the kernel family's (:mod:`engine_svc.boards`)."""
    tag = f"counted{'wide' if g.wide else ''}{g.width}x{g.height}k{g.k}"
    W, CELLS = g.width, g.cells
    ORDER = np.array(g.center_order(), dtype=np.int64)
    ops = board_ops(g)
    start, can_win, opp_wins, legal, safe = ops.start, ops.can_win, ops.opp_wins, ops.legal, ops.safe
    winning, move_in, height, play, undo, key_of = ops.winning, ops.move_in, ops.height, ops.play, ops.undo, ops.key
    leaf_value = counted_leaf(g)

    @kernel(tag)
    def negamax(node, ply, depth, alpha, beta, tt, shift, ws):
        """Value of the node for the side to move, fail-soft within (alpha, beta);
        0 with ws[ABORT] set when the budget or the stop flag ends the search."""
        n = ws[NODES]
        if n >= ws[BUDGET] or ((n & STOP_CHECK) == 0 and ws[STOP] != 0):
            ws[ABORT] = 1
            return int64(0)
        ws[NODES] = n + 1
        if ply == CELLS:
            return int64(0)  # a full board: a draw
        if can_win(node, ply):
            return int64(MATE + CELLS - ply)  # a win with stone ply + 1
        ow = opp_wins(node, ply)
        moves = safe(node, ow, ply)  # the engine's tactics
        if moves == 0:
            return -int64(MATE + CELLS - ply - 1)  # two threats, or every move lets the opponent win next
        if depth <= 0:
            return leaf_value(node, ow, ply)

        key = int64(key_of(node, ply))
        slot = int64((uint64(key) * HASH_MUL) >> shift)
        ttmove = -1
        if tt[slot, KEY] == key:
            ttmove = tt[slot, MOVE]
            if tt[slot, DEPTH] >= depth:
                ts, tb = tt[slot, SCORE], tt[slot, BOUND]
                if tb == EXACT or (tb == LOWER and ts >= beta) or (tb == UPPER and ts <= alpha):
                    return ts

        alpha0 = alpha
        best = -int64(INF)
        bestmove = -1
        for k in range(-1, W):
            c = move_at(ORDER, k, ttmove)
            if c < 0:
                continue
            b = move_in(moves, c)
            if b == 0:
                continue
            h = height(node, c)
            v = -negamax(play(node, ow, ply, c, h, b), ply + 1, depth - 1, -beta, -alpha, tt, shift, ws)
            undo(node, ply, c, h)
            if ws[ABORT]:
                return int64(0)
            if v > best:
                best = v
                bestmove = c
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        bound = UPPER if best <= alpha0 else (LOWER if best >= beta else EXACT)
        tt[slot, KEY] = key
        tt[slot, SCORE] = best
        tt[slot, DEPTH] = depth
        tt[slot, BOUND] = bound
        tt[slot, MOVE] = bestmove
        return best

    @kernel(tag)
    def window(cur, mask, ply, depth, alpha, beta, tt, shift, ws):
        """:func:`negamax` of the position (the side to move's stones, the mask)."""
        return negamax(start(cur, mask, ply), ply, depth, alpha, beta, tt, shift, ws)

    @kernel(tag)
    def root(cur, mask, ply, depth, tt, shift, ws):
        """Every legal column searched with the full window (a lost position
        still gets its longest defence); the value, and the best column in ws[BEST]."""
        ws[BEST] = -1
        node = start(cur, mask, ply)
        possible = legal(node)
        wins = winning(node, ply)
        for k in range(W):
            c = ORDER[k]
            if move_in(wins, c):
                ws[BEST] = c
                return int64(MATE + CELLS - ply)
        best = -int64(INF)
        alpha = -int64(INF)
        ow = opp_wins(node, ply)
        first = -1
        key = int64(key_of(node, ply))
        slot = int64((uint64(key) * HASH_MUL) >> shift)
        if tt[slot, KEY] == key:
            first = tt[slot, MOVE]  # the previous iteration's best column first
        for k in range(-1, W):
            c = move_at(ORDER, k, first)
            if c < 0:
                continue
            b = move_in(possible, c)
            if b == 0:
                continue
            h = height(node, c)
            v = -negamax(play(node, ow, ply, c, h, b), ply + 1, depth - 1, -int64(INF), -alpha, tt, shift, ws)
            undo(node, ply, c, h)
            if ws[ABORT]:
                return int64(0)
            if v > best:
                best = v
                ws[BEST] = c
                if v > alpha:
                    alpha = v
        tt[slot, KEY] = key
        tt[slot, SCORE] = best
        tt[slot, DEPTH] = depth
        tt[slot, BOUND] = EXACT
        tt[slot, MOVE] = ws[BEST]
        return best

    return SimpleNamespace(leaf_value=leaf_value, negamax=negamax, window=window, root=root, geometry=g)


def _centre_columns(g: Geometry) -> list[int]:
    """One central column, or both middle ones on even widths."""
    return sorted({(g.width - 1) // 2, g.width // 2})


@cache
def counted_leaf(g: Geometry):
    """The leaf score of :func:`leaf_value` over the family's node (``ow``: the opponent's winning cells)."""
    return _wide_leaf(g) if g.wide else _word_leaf(g)


def _word_leaf(g: Geometry):
    BOARD = uint64(g.board_mask)
    centre = 0
    for c in _centre_columns(g):
        centre |= g.column_mask(c)
    CENTRE = uint64(centre)

    @kernel(f"counted{g.width}x{g.height}k{g.k}", inline="always")
    def leaf_value(node, ow, ply):
        """The side to move's view: winning cells (x WINNING_CELL) and central stones, each minus the opponent's."""
        cur, mask = node[0], node[1]
        opp = cur ^ mask
        empty = BOARD & ~mask
        cells = popcount(node[2] & empty) - popcount(ow & empty)
        return int64(WINNING_CELL) * int64(cells) + int64(popcount(cur & CENTRE)) - int64(popcount(opp & CENTRE))

    return leaf_value


def _wide_leaf(g: Geometry):
    W, CELLS = g.width, g.cells
    COL = uint64((1 << g.height) - 1)
    CENTRE = np.array(_centre_columns(g), dtype=np.int64)
    OW = MW + CELLS + 2  # the rows of the node (engine_svc.boards)

    @kernel(f"countedwide{g.width}x{g.height}k{g.k}")
    def leaf_value(bb, ow, ply):
        """As on one word: the rows of the side to move's and the opponent's winning cells, column by column."""
        side = ply & 1
        cells = int64(0)
        for c in range(W):
            empty = ~bb[MASK_ROW, c] & COL
            cells += int64(popcount(bb[MW + ply, c] & empty)) - int64(popcount(bb[OW + ply, c] & empty))
        stones = int64(0)
        for i in range(CENTRE.shape[0]):
            c = CENTRE[i]
            stones += int64(popcount(bb[side, c])) - int64(popcount(bb[1 - side, c]))
        return int64(WINNING_CELL) * cells + stones

    return leaf_value
