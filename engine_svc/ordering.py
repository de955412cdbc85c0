"""Move ordering of the engine's search (Pons' MoveSorter, in its simplest form).

A node tries the transposition table's best column first (the move that was
best when this position was searched before, at any depth), then every other
column from the centre outwards: central columns take part in more lines.
Alpha-beta cuts most when the best move comes first, so the order is the
search's main speed-up after the table.

Late moves, from the third on (``REDUCE_AFTER``: the table's column and the
next one in centre-first order are searched at full depth), are tried one ply
shallower first with a null window and get their full depth only when they
beat alpha (late-move reduction). ``move_at`` names the k-th column of that
walk; it is inlined into numba's IR where it is called (``inline="always"``):
as a call of its own such a helper cost 5-12 % of the search's speed.
"""

from __future__ import annotations

import numpy as np

from connect4.geometry import Geometry
from connect4.jit import kernel

REDUCE_AFTER = 2  # late-move reductions: moves after the first two are tried one ply shallower first


def move_order(g: Geometry) -> np.ndarray:
    """The columns from the centre outwards, left before right on ties (after the table's column)."""
    return np.array(g.center_order(), dtype=np.int64)


@kernel("ordering", inline="always")
def move_at(order, k, first):
    """The column a node tries k-th, k = -1, 0 .. W-1: ``first`` (the table's
    column; -1 for none) at k = -1, then ``order`` without it; -1: nothing to try."""
    if k < 0:
        return first
    c = order[k]
    if c == first:
        return -1
    return c
