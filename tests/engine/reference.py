"""Plain cell-by-cell references for the engine's incremental and bitboard code."""

from __future__ import annotations

import random

from connect4 import Geometry, Position

DIRS = ((1, 0), (0, 1), (1, 1), (1, -1))


def grid_after(moves, g: Geometry):
    """grid[col][row] = 0 first player, 1 second, None empty."""
    grid = [[None] * g.height for _ in range(g.width)]
    for i, c in enumerate(moves):
        grid[c][grid[c].index(None)] = i & 1
    return grid


def all_lines(g: Geometry):
    for c in range(g.width):
        for r in range(g.height):
            for dc, dr in DIRS:
                cells = [(c + i * dc, r + i * dr) for i in range(g.k)]
                if all(0 <= x < g.width and 0 <= y < g.height for x, y in cells):
                    yield cells


def line_score(grid, g: Geometry) -> int:
    """Full scan: signed stone count of every one-colour line, +-1000 when complete."""
    total = 0
    for cells in all_lines(g):
        a = sum(grid[x][y] == 0 for x, y in cells)
        b = sum(grid[x][y] == 1 for x, y in cells)
        if a and not b:
            total += 1000 if a == g.k else a
        elif b and not a:
            total -= 1000 if b == g.k else b
    return total


def own_line_score(grid, player: int, g: Geometry) -> int:
    """Full scan: ``player``'s half of the line score, its one-colour lines only."""
    total = 0
    for cells in all_lines(g):
        mine = sum(grid[x][y] == player for x, y in cells)
        theirs = sum(grid[x][y] == 1 - player for x, y in cells)
        if mine and not theirs:
            total += 1000 if mine == g.k else mine
    return total


def threats(grid, player: int, g: Geometry) -> set[tuple[int, int]]:
    """Empty cells that complete a line of ``player``."""
    out = set()
    for cells in all_lines(g):
        empty = [(x, y) for x, y in cells if grid[x][y] is None]
        if len(empty) == 1 and all(grid[x][y] == player for x, y in cells if (x, y) != empty[0]):
            out.add(empty[0])
    return out


def threat_term(grid, g: Geometry) -> int:
    """Allis' parity rule as the issue states it, cell by cell."""
    first, second = threats(grid, 0, g), threats(grid, 1, g)
    total = 0
    for c in range(g.width):
        for r in range(g.height):  # the lowest threat of the column
            f, s = (c, r) in first, (c, r) in second
            if not (f or s):
                continue
            odd = r % 2 == 0  # rows 1, 3, 5 counting from 1
            owner = 0 if f and (not s or odd) else 1
            if owner == 0:
                total += 24 if odd else 6
            else:
                total -= 6 if odd else 24
            break
    return total


MATE = 100_000


def plain_negamax(pos: Position, alpha: int = -(1 << 30), beta: int = 1 << 30) -> int:
    """Exact value to the end, alpha-beta without any table or heuristics
    (a win ending with stone n scores MATE + cells + 1 - n)."""
    g = pos.geometry
    if pos.ply == g.cells:
        return 0
    wins = pos.winning_moves()
    if wins:
        return MATE + g.cells - pos.ply
    best = -(1 << 30)
    for c in pos.legal_moves():
        pos.play(c)
        v = -plain_negamax(pos, -beta, -alpha)
        pos.undo()
        if v > best:
            best = v
        if best > alpha:
            alpha = best
        if alpha >= beta:
            break
    return best


def minimax(pos: Position, win_score) -> int:
    """Plain minimax to the end of the game: a win for the side to move on its
    next stone scores ``win_score(pos)``, a full board 0."""
    g = pos.geometry
    if pos.can_win_next():
        return win_score(pos)
    if pos.ply == g.cells:
        return 0
    best = None
    for c in pos.legal_moves():
        pos.play(c)
        v = -minimax(pos, win_score)
        pos.undo()
        best = v if best is None else max(best, v)
    assert best is not None
    return best


def brute_force(pos: Position) -> int:
    """The engine's score scale by plain minimax: a win with stone n scores MATE + cells - n + 1."""
    return minimax(pos, lambda p: MATE + p.geometry.cells - p.ply)


def near_the_end(g: Geometry, empties: int, seed: int) -> Position:
    """A random game (no move that wins at once) stopped, not over, with ``empties`` cells left."""
    rng = random.Random(seed)
    while True:
        pos = Position(g)
        while pos.ply < g.cells - empties:
            quiet = [c for c in pos.legal_moves() if not pos.is_winning_move(c)]
            if not quiet:
                break
            pos.play(rng.choice(quiet))
        if pos.ply == g.cells - empties and not pos.is_over:
            return pos


def pons_score(score: int, cells: int) -> int:
    """A proven engine score in Pascal Pons' convention (0 for a draw or an unproven score):
    how the tests hold the engine's scale against the solver's."""
    from engine_svc.scores import end_stone_of, is_proven

    if not is_proven(score):
        return 0
    s = (cells + 2 - end_stone_of(score, cells)) // 2
    return s if score > 0 else -s
