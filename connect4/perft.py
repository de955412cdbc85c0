"""perft: count the move sequences of a given length (an exact oracle).

A finished game (a line of K completed) has no children; a full board none
either. Counts for 7x6: 7, 49, 343, 2401, 16807, 117649, 823536, 5673234.

One walk for every board over three node operations of the board's kernel
family (:func:`connect4.kernels.family_for`): whether a column is open, the
child after a stone in it, and whether that stone completed a line (the
family's ``alignment``, so perft against a cell-by-cell count is an oracle
for the kernels too). Up to 64 bits a node is the pair ``(cur, mask)`` of
words passed by value; past 64 bits (:mod:`connect4.wide`, one word per
column) one array of rows ``[side to move at the root, the other, mask]``
changed in place and restored on the way back.
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import int64, uint64

from .geometry import Geometry
from .jit import kernel
from .kernels import family_for
from .wide import kernel_board

if TYPE_CHECKING:
    from .position import Position


def _word_ops(g: Geometry, tag: str) -> SimpleNamespace:
    """Nodes ``(cur, mask)``: the side to move's stones and all stones, one word each."""
    BOTTOM_CELL = np.array([g.bottom_cell(c) for c in range(g.width)], dtype=np.uint64)
    TOP = np.array([g.top_mask(c) for c in range(g.width)], dtype=np.uint64)
    alignment = family_for(g).alignment

    @kernel(tag)
    def start(cur: Any, mask: Any) -> Any:
        return (cur, mask)

    @kernel(tag)
    def is_open(node: Any, ply: int, c: int) -> Any:
        return (node[1] & TOP[c]) == 0

    @kernel(tag)
    def play(node: Any, ply: int, c: int) -> Any:
        m = node[1]
        return (node[0] ^ m, m | (m + BOTTOM_CELL[c]))  # the opponent becomes the side to move

    @kernel(tag)
    def completed(child: Any, ply: int) -> Any:
        return alignment(child[0] ^ child[1])  # the stones of the side that just moved

    @kernel(tag)
    def undo(node: Any, ply: int, c: int) -> None:
        pass  # nodes are values

    return SimpleNamespace(start=start, is_open=is_open, play=play, completed=completed, undo=undo)


def _wide_ops(g: Geometry, tag: str) -> SimpleNamespace:
    """Nodes: one uint64 array of column words, rows [root's side to move, the other, mask]."""
    W = g.width
    TOP = uint64(1 << (g.height - 1))  # a column word's top cell
    alignment = family_for(g).alignment

    @kernel(tag)
    def start(cur: Any, mask: Any) -> Any:
        bb = np.empty((3, W), dtype=np.uint64)
        for c in range(W):
            bb[0, c] = cur[c]
            bb[1, c] = cur[c] ^ mask[c]
            bb[2, c] = mask[c]
        return bb

    @kernel(tag)
    def is_open(bb: Any, ply: int, c: int) -> Any:
        return (bb[2, c] & TOP) == 0

    @kernel(tag)
    def play(bb: Any, ply: int, c: int) -> Any:
        landing = (bb[2, c] + uint64(1)) & ~bb[2, c]
        bb[ply & 1, c] |= landing
        bb[2, c] |= landing
        return bb

    @kernel(tag)
    def completed(bb: Any, ply: int) -> Any:
        return alignment(bb[ply & 1])  # the side that moved at this ply

    @kernel(tag)
    def undo(bb: Any, ply: int, c: int) -> None:
        top = bb[2, c] & ~(bb[2, c] >> uint64(1))  # the column's highest stone
        bb[ply & 1, c] ^= top
        bb[2, c] ^= top

    return SimpleNamespace(start=start, is_open=is_open, play=play, completed=completed, undo=undo)


@cache
def perft_kernel(g: Geometry) -> Any:
    """``perft(current, mask, depth)`` on the kernels' boards (:func:`connect4.wide.kernel_board`)."""
    tag = f"wide{g.name}" if g.wide else g.name
    ops = (_wide_ops if g.wide else _word_ops)(g, tag)
    start, is_open, play, completed, undo = ops.start, ops.is_open, ops.play, ops.completed, ops.undo
    W = g.width

    @kernel(tag)
    def walk(node: Any, ply: int, depth: int) -> Any:
        # Sequences of ``depth`` more plies from ``node`` (``ply`` plies after the root).
        if depth <= 0:
            return int64(1)
        count = int64(0)
        for c in range(W):
            if not is_open(node, ply, c):
                continue
            if depth == 1:
                count += 1
                continue
            child = play(node, ply, c)
            if not completed(child, ply):  # a completed line ends the game
                count += walk(child, ply + 1, depth - 1)
            undo(node, ply, c)
        return count

    @kernel(tag)
    def perft(current: Any, mask: Any, depth: int) -> Any:
        if depth == 0:
            return int64(1)
        return walk(start(current, mask), int64(0), depth)  # not a literal 0: one signature of walk

    return perft


def perft(pos: Position, depth: int) -> int:
    """Number of move sequences of ``depth`` plies from ``pos``."""
    if pos.is_over:
        return 1 if depth == 0 else 0
    g = pos.geometry
    return int(perft_kernel(g)(kernel_board(pos.current, g), kernel_board(pos.mask, g), depth))
