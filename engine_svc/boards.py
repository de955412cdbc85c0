"""The board operations the engine's searches are written over, one set per kernel family.

:mod:`engine_svc.negamax` has one body for every board; what a board is stays
behind these jitted operations, made per geometry by :func:`board_ops`
(``connect4.kernels.family_for`` picks the family):

* up to 64 bits a search *node* is the tuple ``(cur, mask, mw)`` of uint64
  words passed by value (the side to move's stones, all stones, the side to
  move's winning cells): playing makes the child's tuple, undoing is nothing;
* past 64 bits (:mod:`connect4.wide`, one word per column) a node is one
  uint64 array ``bb`` per search, updated in place: the rows ``FIRST_ROW``,
  ``SECOND_ROW`` (each player's stones) and ``MASK_ROW``, then per ply the
  side to move's winning cells (``MW + ply``) and the opponent's
  (``OW + ply``); a column has at most one landing cell, so a set of moves is
  a bit set of columns.

============== ==============================================================
``start``      the root's node from the side to move's stones and the mask
``can_win``    whether the side to move completes a line now
``win_column`` the first column that does (the root names it)
``opp_wins``   the opponent's winning cells (``ow``; past 64 bits: stored in
               the node, a placeholder returned)
``legal``      the open columns as a move set
``winning``    the moves that complete a line now, as a move set
``safe``       the moves the tactics keep (a forced block if one, never right
               under an opponent's winning cell), empty when lost
``move_in``    non-zero when column ``c`` is in a move set (the cell's bit up to 64 bits)
``height``     the stones in column ``c`` (what ``play`` and ``undo`` take as ``h``;
               0 up to 64 bits, where they do not need it)
``play``       the child after a stone in column ``c`` at height ``h``
``undo``       that stone taken back (in place past 64 bits)
``key``        the table key (Pons' key up to 64 bits, ``key64`` past)
``mine``       the side to move's winning cells, as the family's ``threat_term`` takes them
``theirs``     the opponent's (from ``ow`` or the node)
============== ==============================================================

``safe_cells`` (up to 64 bits) is the tactics on plain words.
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

import numpy as np
from numba import uint64

from connect4.bits import popcount
from connect4.geometry import Geometry
from connect4.jit import kernel
from connect4.kernels import kernels_for
from connect4.wide import wide_kernels_for

FIRST_ROW, SECOND_ROW, MASK_ROW, MW = 0, 1, 2, 3  # the rows of a node past 64 bits


@cache
def board_ops(g: Geometry) -> SimpleNamespace:
    """The node operations of one geometry: single words up to 64 bits, column words past."""
    return wide_board_ops(g) if g.wide else word_board_ops(g)


@cache
def word_board_ops(g: Geometry) -> SimpleNamespace:
    """Nodes ``(cur, mask, mw)`` of uint64 words (boards of one 64-bit word)."""
    tag = f"{g.width}x{g.height}k{g.k}"
    win_cells = kernels_for(g).winning_cells
    W = g.width
    BOTTOM = uint64(g.bottom_mask)
    BOARD = uint64(g.board_mask)
    COLMASK = np.array([g.column_mask(c) for c in range(W)], dtype=np.uint64)

    @kernel(tag, inline="always")
    def safe_cells(possible, ow):
        """The landing cells the tactics keep, 0 when the side to move is lost
        (two opponent winning cells to block, or every move right under one)."""
        forced = possible & ow
        moves = possible & ~(ow >> uint64(1))  # not right under an opponent's winning cell
        if forced:
            if forced & (forced - uint64(1)):
                return uint64(0)  # two threats
            moves &= forced
        return moves

    @kernel(tag, inline="always")
    def start(cur, mask, ply):
        return (cur, mask, win_cells(cur, mask))

    @kernel(tag, inline="always")
    def can_win(node, ply):
        return (node[2] & (node[1] + BOTTOM) & BOARD) != 0

    @kernel(tag, inline="always")
    def win_column(node, ply):
        wins = node[2] & (node[1] + BOTTOM) & BOARD
        for c in range(W):
            if wins & COLMASK[c]:
                return c
        return -1

    @kernel(tag, inline="always")
    def opp_wins(node, ply):
        return win_cells(node[0] ^ node[1], node[1])

    @kernel(tag, inline="always")
    def legal(node):
        return (node[1] + BOTTOM) & BOARD

    @kernel(tag, inline="always")
    def winning(node, ply):
        return node[2] & (node[1] + BOTTOM) & BOARD

    @kernel(tag, inline="always")
    def height(node, c):
        return 0  # play and undo of one word need no height

    @kernel(tag, inline="always")
    def safe(node, ow, ply):
        return safe_cells((node[1] + BOTTOM) & BOARD, ow)

    @kernel(tag, inline="always")
    def move_in(moves, c):
        return moves & COLMASK[c]

    @kernel(tag, inline="always")
    def play(node, ow, ply, c, h, b):
        # The opponent moves next; its winning cells are ours but the cell just filled.
        return (node[0] ^ node[1], node[1] | b, ow & ~b)

    @kernel(tag, inline="always")
    def undo(node, ply, c, h):
        pass  # nodes are values: the parent's is unchanged

    @kernel(tag, inline="always")
    def key(node, ply):
        return node[0] + node[1] + BOTTOM  # Pons' key: unique per position

    @kernel(tag, inline="always")
    def mine(node, ply):
        return node[2]

    @kernel(tag, inline="always")
    def theirs(node, ow, ply):
        return ow

    return SimpleNamespace(
        geometry=g, wide=False, safe_cells=safe_cells, start=start, can_win=can_win, win_column=win_column,
        opp_wins=opp_wins, legal=legal, winning=winning, height=height, safe=safe, move_in=move_in, play=play,
        undo=undo, key=key, mine=mine, theirs=theirs,
    )


@cache
def wide_board_ops(g: Geometry) -> SimpleNamespace:
    """Nodes as one in-place uint64 array of column words (boards past 64 bits)."""
    tag = f"wide{g.width}x{g.height}k{g.k}"
    wk = wide_kernels_for(g)
    win_cells = wk.winning_cells
    key64 = wk.key64
    W, CELLS = g.width, g.cells
    COL = uint64((1 << g.height) - 1)
    OW = MW + CELLS + 2
    ROWS = OW + CELLS + 2

    @kernel(tag)
    def start(cur, mask, ply):
        """The work array of a search from the side to move's stones and the mask."""
        bb = np.zeros((ROWS, W), dtype=np.uint64)
        side = ply & 1
        for c in range(W):
            bb[side, c] = cur[c]
            bb[1 - side, c] = cur[c] ^ mask[c]
            bb[MASK_ROW, c] = mask[c]
        win_cells(bb[side], bb[MASK_ROW], bb[MW + ply])
        return bb

    @kernel(tag)
    def win_column(bb, ply):
        for c in range(W):
            if (bb[MASK_ROW, c] + uint64(1)) & COL & bb[MW + ply, c]:
                return c
        return -1

    @kernel(tag)
    def can_win(bb, ply):
        return win_column(bb, ply) >= 0

    @kernel(tag)
    def opp_wins(bb, ply):
        win_cells(bb[1 - (ply & 1)], bb[MASK_ROW], bb[OW + ply])
        return uint64(0)  # they are in the node

    @kernel(tag)
    def legal(bb):
        moves = 0
        for c in range(W):
            if (bb[MASK_ROW, c] + uint64(1)) & COL:
                moves |= 1 << c
        return moves

    @kernel(tag)
    def winning(bb, ply):
        moves = 0
        for c in range(W):
            if (bb[MASK_ROW, c] + uint64(1)) & COL & bb[MW + ply, c]:
                moves |= 1 << c
        return moves

    @kernel(tag)
    def height(bb, c):
        return popcount(bb[MASK_ROW, c])

    @kernel(tag)
    def safe(bb, ow, ply):
        nforced = 0
        forced = 0
        moves = 0
        for c in range(W):
            p = (bb[MASK_ROW, c] + uint64(1)) & COL
            if p == 0:
                continue
            theirs = bb[OW + ply, c]
            if p & theirs:
                nforced += 1
                forced |= 1 << c
            if p & ~(theirs >> uint64(1)):  # not right under an opponent's winning cell
                moves |= 1 << c
        if nforced >= 2:
            return 0
        if nforced == 1:
            moves &= forced
        return moves

    @kernel(tag)
    def move_in(moves, c):
        return (moves >> c) & 1

    @kernel(tag)
    def play(bb, ow, ply, c, h, b):
        for x in range(W):  # the child's winning cells: ours' opponent's, less the cell filled
            bb[MW + ply + 1, x] = bb[OW + ply, x]
        bit = uint64(1) << uint64(h)
        bb[MW + ply + 1, c] &= ~bit
        bb[ply & 1, c] |= bit
        bb[MASK_ROW, c] |= bit
        return bb

    @kernel(tag)
    def undo(bb, ply, c, h):
        bit = uint64(1) << uint64(h)
        bb[ply & 1, c] ^= bit
        bb[MASK_ROW, c] ^= bit

    @kernel(tag)
    def key(bb, ply):
        return key64(bb[ply & 1], bb[MASK_ROW])

    @kernel(tag)
    def mine(bb, ply):
        return bb[MW + ply]

    @kernel(tag)
    def theirs(bb, ow, ply):
        return bb[OW + ply]

    return SimpleNamespace(
        geometry=g, wide=True, start=start, can_win=can_win, win_column=win_column, opp_wins=opp_wins,
        legal=legal, winning=winning, height=height, safe=safe, move_in=move_in, play=play, undo=undo, key=key,
        mine=mine, theirs=theirs,
    )
