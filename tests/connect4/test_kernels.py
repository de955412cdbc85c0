"""The bitboard primitives of ``connect4.kernels``, every one against a plain
cell-by-cell reference, on random stones of boards from 4x4 to 9x6 and lines
of 3 to 5 (the K = 4 formula and the shift-table test must agree wherever
both apply)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from numba import njit

from connect4 import Geometry, Position
from connect4.bits import ctz, popcount
from connect4.kernels import kernels_for, pons_k4_fits
from connect4.keys import canonical, mirror_bits, mirror_key

from .reference import grid_after, has_line, winning_cells

GEOMETRIES = [Geometry(7, 6), Geometry(4, 4), Geometry(9, 6), Geometry(6, 5, 3), Geometry(8, 7, 5), Geometry(5, 4, 3),
              Geometry(4, 12)]


def _random_games(g: Geometry, n: int, seed: int):
    """Positions along random playouts (every ply of each game)."""
    rng = random.Random(seed)
    for _ in range(n):
        pos = Position(g)
        moves: list[int] = []
        while not pos.is_over:
            yield pos, moves
            c = rng.choice(pos.legal_moves())
            pos = pos.played(c)
            moves = [*moves, c]


def _bits(cells, g: Geometry) -> int:
    return sum(g.cell_bit(c, r) for c, r in cells)


@pytest.mark.parametrize("g", GEOMETRIES, ids=lambda g: g.name)
def test_winning_cells_alignment_and_possible_equal_a_cell_scan(g):
    bk = kernels_for(g)
    assert bk.winning_cells is (bk.winning_cells_k4 if pons_k4_fits(g) else bk.winning_cells_table)
    for pos, moves in _random_games(g, 12, seed=g.width * 100 + g.height * 10 + g.k):
        grid = grid_after(moves, g)
        mask = np.uint64(pos.mask)
        for player in (0, 1):
            stones = np.uint64(pos.stones(player))
            expected = _bits(winning_cells(grid, player, g), g)
            assert int(bk.winning_cells_table(stones, mask)) == expected, (g, moves, player)
            assert int(bk.winning_cells(stones, mask)) == expected, (g, moves, player)
            if pons_k4_fits(g):
                assert int(bk.winning_cells_k4(stones, mask)) == expected
            assert bool(bk.alignment(stones)) == has_line(grid, player, g)
        landing = _bits(((c, grid[c].index(None)) for c in range(g.width) if None in grid[c]), g)
        assert int(bk.possible(mask)) == landing


@njit
def _popcount_ctz(x):  # intrinsics are called from kernels only
    return popcount(x), ctz(x)


@pytest.mark.parametrize("g", GEOMETRIES, ids=lambda g: g.name)
def test_lowest_per_column_mirror_popcount_and_ctz(g):
    bk = kernels_for(g)
    rng = random.Random(g.cells)
    for _ in range(300):
        cells = rng.getrandbits(64) & rng.getrandbits(64) & g.board_mask
        lowest = 0
        for c in range(g.width):
            column = cells & g.column_mask(c)
            lowest |= column & -column
        assert int(bk.lowest_per_column(np.uint64(cells))) == lowest
        key = rng.getrandbits(g.width * g.h1)
        assert int(bk.mirror(np.uint64(key))) == mirror_bits(key, g) == mirror_key(key, g)
        assert mirror_bits(mirror_bits(key, g), g) == key
        x = rng.getrandbits(64) | 1 << rng.randrange(64)
        assert (bk.popcount, bk.ctz) == (popcount, ctz)
        n, low = _popcount_ctz(np.uint64(x))
        assert (int(n), int(low)) == (bin(x).count("1"), (x & -x).bit_length() - 1)


def test_canonical_is_one_key_for_a_position_and_its_mirror():
    g = Geometry(7, 6)
    for pos, _ in _random_games(g, 3, seed=1):
        key, flipped = canonical(pos)
        mirrored = Position.from_moves([g.width - 1 - c for c in pos.moves], g)
        assert canonical(mirrored)[0] == key == min(pos.key(), pos.mirror_key())
        assert flipped == (pos.mirror_key() < pos.key())
        assert mirror_key(pos.key(), g) == pos.mirror_key()
