"""The multi-word kernels (:mod:`connect4.wide`) against cell-by-cell scans
on random positions of boards past 64 bits (and two narrow shapes, 16x2 and
2x16, where the single-word family agrees too), and the geometry's limits."""

from __future__ import annotations

import random

import numpy as np
import pytest

from connect4 import Geometry, InvalidGeometry, Position
from connect4.kernels import family_for, kernels_for
from connect4.wide import from_words, to_words, wide_kernels_for

from .wide_reference import drop, empty_grid, has_line, run_through, winning_cells

SHAPES = [Geometry(8, 8), Geometry(9, 7), Geometry(16, 16), Geometry(16, 2, 3), Geometry(10, 10, 5),
          Geometry(9, 8, 2), Geometry(11, 6, 6), Geometry(16, 16, 16), Geometry(2, 16, 3), Geometry(16, 4, 7)]


def _playouts(g: Geometry, games: int, seed: int):
    """(position, grid, last column) along random games, every ply."""
    rng = random.Random(seed)
    for _ in range(games):
        pos, grid = Position(g), empty_grid(g)
        while not pos.is_over:
            c = rng.choice(pos.legal_moves())
            drop(grid, c, pos.to_move)
            pos.play(c)
            yield pos, grid, c


def _bits(cells, g: Geometry) -> int:
    return sum(g.cell_bit(c, r) for c, r in cells)


@pytest.mark.parametrize("g", SHAPES, ids=lambda g: g.name)
def test_winning_cells_alignment_and_possible_equal_a_full_scan(g):
    wk = wide_kernels_for(g)  # also on the narrow shapes (16x2, 2x16): the layout fits any board
    assert family_for(g) is wk if g.wide else family_for(g) is kernels_for(g)
    out = np.zeros(g.width, dtype=np.uint64)
    plies = 0
    for pos, grid, last in _playouts(g, 3 if g.cells > 100 else 8, seed=g.bits * 10 + g.k):
        plies += 1
        mask = to_words(pos.mask, g)
        for player in (0, 1):
            stones = to_words(pos.stones(player), g)
            expected = _bits(winning_cells(grid, player, g), g)
            wk.winning_cells(stones, mask, out)
            assert from_words(out, g) == expected, (g, pos.moves, player)
            wk.winning_cells_any(stones, mask, out)
            assert from_words(out, g) == expected, (g, pos.moves, player)
            if g.k == 4:
                wk.winning_cells_k4(stones, mask, out)
                assert from_words(out, g) == expected, (g, pos.moves, player)
            assert bool(wk.alignment(stones)) == has_line(grid, player, g), (g, pos.moves, player)
        row = pos.height(last) - 1
        mover = to_words(pos.stones(1 - pos.to_move), g)
        assert bool(wk.line_through(mover, last, row)) == (run_through(grid, last, row, 1 - pos.to_move, g) >= g.k)
        assert (pos.winner is not None) == has_line(grid, 1 - pos.to_move, g)
        wk.possible(mask, out)
        landing = _bits(((c, grid[c].index(None)) for c in range(g.width) if None in grid[c]), g)
        assert from_words(out, g) == landing == pos.possible()
    assert plies > 20


@pytest.mark.parametrize("g", SHAPES[:4], ids=lambda g: g.name)
def test_words_popcount_lowest_mirror_and_key64(g):
    wk = wide_kernels_for(g)
    rng = random.Random(g.bits)
    out = np.zeros(g.width, dtype=np.uint64)
    for _ in range(200):
        cells = rng.getrandbits(g.bits) & g.board_mask
        words = to_words(cells, g)
        assert from_words(words, g) == cells
        assert wk.popcount(words) == bin(cells).count("1")
        wk.lowest_per_column(words, out)
        assert from_words(out, g) == sum((cells & g.column_mask(c)) & -(cells & g.column_mask(c))
                                         for c in range(g.width))
        wk.mirror(words, out)
        assert [int(x) for x in out] == [int(x) for x in words[::-1]]
    keys = set()
    seen = set()
    for pos, _, _ in _playouts(g, 4, seed=5):
        if pos.key() in seen:
            continue
        seen.add(pos.key())
        keys.add(int(wk.key64(to_words(pos.current, g), to_words(pos.mask, g))))
    assert len(keys) == len(seen)  # distinct positions, distinct 64-bit keys on this sample


@pytest.mark.parametrize("w,h,k", [(16, 16, 4), (16, 16, 16), (2, 1, 2), (16, 1, 2),
                                   (1, 16, 16)])
def test_limits_accept_every_board_up_to_16_a_side(w, h, k):
    g = Geometry(w, h, k)
    assert g.wide == (w * (h + 1) > 64)


@pytest.mark.parametrize("w,h,k,fragment", [
    (17, 6, 4, "board 17x6 is out of range"), (16, 17, 4, "board 16x17"), (0, 6, 4, "board 0x6"),
    (7, 0, 4, "board 7x0"), (32, 1, 2, "board 32x1"), (1, 63, 2, "board 1x63"),
    (16, 16, 17, "line length 17 does not fit"), (7, 6, 1, "line length 1"), (7, 6, 8, "line length 8"),
    ("8", 8, 4, "width must be an integer"),
])
def test_a_bad_size_names_the_limits(w, h, k, fragment):
    with pytest.raises(InvalidGeometry) as err:
        Geometry(w, h, k)
    assert fragment in str(err.value)
    assert "width and height 1..16, line length 2..max(width, height)" in str(err.value)


def test_the_factory_picks_the_family_and_the_single_word_kernels_refuse_wide_boards():
    assert family_for(Geometry(7, 6)) is kernels_for(Geometry(7, 6))
    assert family_for(Geometry(8, 7)).wide is False  # 64 bits exactly: one word
    assert family_for(Geometry(8, 8)) is wide_kernels_for(Geometry(8, 8))
    with pytest.raises(InvalidGeometry, match=r"board 8x8 needs 72 bits: .* width\*\(height\+1\) <= 64 only"):
        kernels_for(Geometry(8, 8))
    with pytest.raises(InvalidGeometry, match="must look like 7x6"):
        Geometry.parse("8by8")
