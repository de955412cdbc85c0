"""Position, perft, hints, keys, notation and rendering on boards past 64 bits,
against the cell-by-cell references of :mod:`tests.connect4.wide_reference`."""

from __future__ import annotations

import random

import pytest

from connect4 import Geometry, IllegalMove, Position, format_moves, hints, parse_moves
from connect4.keys import canonical, decode_key, mirror_key, position_from_key
from connect4.perft import perft
from connect4.render import render_ascii

from . import wide_reference as ref

PERFT_SHAPES = [Geometry(8, 8), Geometry(9, 7), Geometry(16, 16), Geometry(8, 8, 2), Geometry(9, 7, 3),
                Geometry(16, 16, 2), Geometry(16, 16, 3)]


@pytest.mark.parametrize("g", PERFT_SHAPES, ids=lambda g: g.name)
def test_perft_to_depth_5_equals_a_cell_by_cell_count(g):
    grid = ref.empty_grid(g)
    for depth in range(1, 6):
        assert perft(Position(g), depth) == ref.perft(grid, 0, depth, g), (g, depth)


@pytest.mark.parametrize("g", [Geometry(8, 8, 3), Geometry(9, 7, 2), Geometry(16, 4, 3), Geometry(10, 10, 5)],
                         ids=lambda g: g.name)
def test_perft_from_random_middle_games(g):
    """Deep positions: full columns, lines about to close, games ending inside the count."""
    rng = random.Random(g.bits)
    checked = 0
    while checked < 6:
        pos, grid = Position(g), ref.empty_grid(g)
        for _ in range(rng.randrange(g.cells // 3, g.cells)):
            quiet = [c for c in pos.legal_moves() if not pos.is_winning_move(c)]  # the game goes on
            if not quiet or pos.ply >= g.cells - 1:
                break
            c = rng.choice(quiet)
            ref.drop(grid, c, pos.to_move)
            pos.play(c)
        if pos.is_over:
            continue
        depth = 3 if g.width > 9 else 4
        assert perft(pos, depth) == ref.perft(grid, pos.to_move, depth, g), (g, pos.moves)
        checked += 1


@pytest.mark.parametrize("g", [Geometry(8, 8), Geometry(9, 7), Geometry(16, 16), Geometry(10, 10, 5)],
                         ids=lambda g: g.name)
def test_play_undo_winner_lines_hints_and_keys_on_random_games(g):
    rng = random.Random(g.cells)
    for _ in range(3):
        pos, grid = Position(g), ref.empty_grid(g)
        while not pos.is_over:
            h = hints(pos)
            mine = ref.winning_cells(grid, pos.to_move, g)
            theirs = ref.winning_cells(grid, 1 - pos.to_move, g)
            tops = {c: grid[c].index(None) for c in range(g.width) if None in grid[c]}
            assert h.next_row == [tops.get(c) for c in range(g.width)]
            assert h.winning_moves == [c for c in sorted(tops) if (c, tops[c]) in mine] == pos.winning_moves()
            assert h.must_block == [c for c in sorted(tops) if (c, tops[c]) in theirs]
            key = pos.key()
            assert key.bit_length() <= g.bits and decode_key(key, g) == (pos.current, pos.mask)
            mirrored = Position.from_moves([g.width - 1 - c for c in pos.moves], g)
            assert mirror_key(key, g) == pos.mirror_key() == mirrored.key()
            assert canonical(mirrored)[0] == canonical(pos)[0]
            c = rng.choice(pos.legal_moves())
            before = (pos.current, pos.mask)
            pos.play(c)
            assert pos.undo() == c and (pos.current, pos.mask) == before
            ref.drop(grid, c, pos.to_move)
            pos.play(c)
        assert (pos.winner is not None) == ref.has_line(grid, 1 - pos.to_move, g)
        if pos.winner is not None:
            cells = pos.winning_line_cells()
            assert len(cells) >= g.k and all(grid[c][r] == pos.winner for c, r in cells)
        again = position_from_key(pos.copy().key(), g) if pos.winner is None else None
        if again is not None:
            assert (again.current, again.mask) == (pos.current, pos.mask)


def test_notation_and_rendering_on_16_columns():
    g = Geometry(16, 16)
    assert parse_moves("16 1 p a", g) == [15, 0, 15, 0]
    assert parse_moves("p1 a1 p2", g) == [15, 0, 15]
    pos = Position.parse("16 1 16 1 16 1", g)
    assert format_moves(pos.moves, g) == "16 1 16 1 16 1"
    assert format_moves(pos.moves, g, style="letters") == "p a p a p a"
    text = render_ascii(pos)
    lines = text.splitlines()
    assert len(lines) == 17 and lines[-1].split() == [str((c + 1) % 10) for c in range(16)]
    assert lines[-2] == "O " + ". " * 14 + "X"
    assert render_ascii(pos, footer="letters").splitlines()[-1] == " ".join("abcdefghijklmnop")
    pos.play(15)
    assert pos.winner == 0 and sorted(pos.winning_line_cells()) == [(15, r) for r in range(4)]
    with pytest.raises(IllegalMove, match=r"column 17 is off the board \(1\.\.16\)"):
        Position.parse("17", g)
    with pytest.raises(IllegalMove, match="column 1 is full"):
        Position.from_moves([0] * 17, g)
