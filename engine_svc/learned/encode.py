"""Board planes for the learned players (7x6 only).

A position becomes two 6x7 planes, the side to move's stones first (the
"canonical" view: the net always plays the stones of plane 0). Bit
``col * 7 + row`` of a 7x6 bitboard is cell (col, row); row 0 at the bottom.
"""

from __future__ import annotations

import numpy as np

from connect4.geometry import STANDARD

WIDTH, HEIGHT = STANDARD.width, STANDARD.height
H1 = HEIGHT + 1
# _BITS[r, c] is the bit of cell (c, r)
_BITS = np.array([[1 << (c * H1 + r) for c in range(WIDTH)] for r in range(HEIGHT)], dtype=np.uint64)


def planes(current: int, mask: int) -> np.ndarray:
    """(2, 6, 7) float32: the side to move's stones, then the opponent's."""
    cur = np.uint64(current)
    opp = np.uint64(current ^ mask)
    return np.stack([(_BITS & cur) != 0, (_BITS & opp) != 0]).astype(np.float32)


def planes_many(current: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(n, 2, 6, 7) float32 for arrays of bitboards."""
    cur = np.asarray(current, dtype=np.uint64)[:, None, None]
    opp = cur ^ np.asarray(mask, dtype=np.uint64)[:, None, None]
    return np.stack([(_BITS & cur) != 0, (_BITS & opp) != 0], axis=1).astype(np.float32)


def legal_mask(mask: int) -> np.ndarray:
    """(7,) bool: the columns whose top cell is empty."""
    top = _BITS[HEIGHT - 1]
    return (top & np.uint64(mask)) == 0
