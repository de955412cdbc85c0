"""Completed lines: which cells make up a K-in-a-row."""

from __future__ import annotations

from .geometry import Geometry
from .kernels import direction_steps, run_steps


def line_cells(stones: int, g: Geometry) -> list[tuple[int, int]]:
    """Every cell (col, row) that lies on a completed line of ``stones``."""
    found = 0
    # Python integers have no word size: on boards past 64 bits every direction counts.
    for d in direction_steps(g) if g.wide else run_steps(g):
        starts = stones
        for i in range(1, g.k):
            starts &= stones >> (i * d)  # a start whose K-1 successors are set
        while starts:
            low = starts & -starts
            starts ^= low
            for i in range(g.k):
                found |= low << (i * d)
    cells = []
    for col in range(g.width):
        for row in range(g.height):
            if found & g.cell_bit(col, row):
                cells.append((col, row))
    return cells
