"""The board constants the solver's kernel factories close over, made once a geometry.

Every factory (:mod:`.search`, :mod:`.ordering`, :mod:`.driver`) takes its
constants from here, so each kernel still sees them as compile-time constants
(a closure variable of a numba kernel is frozen into its machine code).
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

import numpy as np
from numba import uint64

from connect4.geometry import Geometry


@cache
def board_masks(g: Geometry) -> SimpleNamespace:
    """``W``, ``CELLS``, ``BOTTOM`` (lowest cell of each column), ``BOARD``
    (every cell), ``COL[c]`` (column c's cells), ``MCOL[c]`` (the mirror
    image of column c) and ``TOP[c]`` (its top cell)."""
    col = np.array([g.column_mask(c) for c in range(g.width)], dtype=np.uint64)
    top = np.array([g.top_mask(c) for c in range(g.width)], dtype=np.uint64)
    return SimpleNamespace(W=g.width, CELLS=g.cells, BOTTOM=uint64(g.bottom_mask), BOARD=uint64(g.board_mask),
                           COL=col, MCOL=col[::-1].copy(), TOP=top)
