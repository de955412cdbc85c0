"""Plain cell-by-cell references for the bitboard code (test oracles)."""

from __future__ import annotations

from connect4 import Geometry

DIRS = ((1, 0), (0, 1), (1, 1), (1, -1))


def grid_after(moves: list[int], g: Geometry) -> list[list[int | None]]:
    """grid[col][row] = 0 first player, 1 second player, None empty."""
    grid = [[None] * g.height for _ in range(g.width)]
    for i, c in enumerate(moves):
        row = grid[c].index(None)
        grid[c][row] = i & 1
    return grid


def has_line(grid, player: int, g: Geometry) -> bool:
    for c in range(g.width):
        for r in range(g.height):
            for dc, dr in DIRS:
                if all(
                    0 <= c + i * dc < g.width and 0 <= r + i * dr < g.height and grid[c + i * dc][r + i * dr] == player
                    for i in range(g.k)
                ):
                    return True
    return False


def winning_cells(grid, player: int, g: Geometry) -> set[tuple[int, int]]:
    """Empty cells (col, row), reachable or not, that complete a line for player."""
    out = set()
    for c in range(g.width):
        for r in range(g.height):
            if grid[c][r] is None:
                grid[c][r] = player
                if has_line(grid, player, g):
                    out.add((c, r))
                grid[c][r] = None
    return out
