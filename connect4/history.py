"""Find a legal move order that reaches a given pair of bitboards."""

from __future__ import annotations

from .geometry import Geometry
from .lines import line_cells


def find_history(current: int, mask: int, g: Geometry) -> list[int] | None:
    """0-based columns reaching (current, mask) from the empty board, or None.

    Works backwards: the last stone was played by the side not to move and sits
    on top of its column; taking it back must leave a position in which nobody
    had a line yet. Depth-first over those choices; realistic positions (books,
    games) resolve without backtracking.
    """
    stones = bin(mask).count("1")
    mover = current ^ mask  # the side that moved last
    if abs(bin(mover).count("1") - bin(current).count("1")) > 1 or (
        bin(mover).count("1") != (stones + 1) // 2
    ):
        return None
    if line_cells(current, g):
        return None  # the side to move already has a line: impossible
    out: list[int] = []
    seen: set[tuple[int, int]] = set()
    if _unplay(current, mask, g, out, seen):
        out.reverse()
        return out
    return None


def _unplay(current: int, mask: int, g: Geometry, out: list[int], seen: set[tuple[int, int]]) -> bool:
    if mask == 0:
        return True
    if (current, mask) in seen:
        return False
    mover = current ^ mask
    for c in g.center_order():
        col = mask & g.column_mask(c)
        if not col:
            continue
        top = 1 << (col.bit_length() - 1)
        if not mover & top:
            continue
        prev_mask = mask ^ top
        prev_current = mover ^ top  # the mover was to move before its stone
        if line_cells(prev_current, g) or line_cells(prev_current ^ prev_mask, g):
            continue  # the game would have ended earlier
        out.append(c)
        if _unplay(prev_current, prev_mask, g, out, seen):
            return True
        out.pop()
    seen.add((current, mask))
    return False
