"""Cell-by-cell references for boards of any size (test oracles for the
multi-word kernels): a grid of lists, no bit arithmetic at all."""

from __future__ import annotations

from connect4 import Geometry

DIRS = ((1, 0), (0, 1), (1, 1), (1, -1))

Grid = list[list[int | None]]


def empty_grid(g: Geometry) -> Grid:
    return [[None] * g.height for _ in range(g.width)]


def drop(grid: Grid, col: int, player: int) -> int:
    """Put ``player``'s stone in ``col``; returns its row."""
    row = grid[col].index(None)
    grid[col][row] = player
    return row


def run_through(grid: Grid, col: int, row: int, player: int, g: Geometry) -> int:
    """The longest run of ``player`` through (col, row) along any direction, the cell itself counted."""
    best = 0
    for dc, dr in DIRS:
        n = 1
        for sign in (1, -1):
            c, r = col + sign * dc, row + sign * dr
            while 0 <= c < g.width and 0 <= r < g.height and grid[c][r] == player:
                n += 1
                c, r = c + sign * dc, r + sign * dr
        best = max(best, n)
    return best


def has_line(grid: Grid, player: int, g: Geometry) -> bool:
    """A full scan: any K in a row of ``player``."""
    for c in range(g.width):
        for r in range(g.height):
            for dc, dr in DIRS:
                if all(0 <= c + i * dc < g.width and 0 <= r + i * dr < g.height
                       and grid[c + i * dc][r + i * dr] == player for i in range(g.k)):
                    return True
    return False


def winning_cells(grid: Grid, player: int, g: Geometry) -> set[tuple[int, int]]:
    """Empty cells (col, row), reachable or not, whose stone would give ``player`` K in a row."""
    out = set()
    for c in range(g.width):
        for r in range(g.height):
            if grid[c][r] is None and run_through(grid, c, r, player, g) >= g.k:
                out.add((c, r))
    return out


def perft(grid: Grid, player: int, depth: int, g: Geometry) -> int:
    """Move sequences of ``depth`` plies; a finished game or a full board has no children."""
    open_cols = [c for c in range(g.width) if grid[c][-1] is None]
    if depth == 1:
        return len(open_cols)
    total = 0
    for c in open_cols:
        row = drop(grid, c, player)
        if run_through(grid, c, row, player, g) < g.k:
            total += perft(grid, 1 - player, depth - 1, g)
        grid[c][row] = None
    return total
