"""Position: play, undo, lines in every direction, edges, draws, K != 4, errors."""

import random

import pytest

from connect4 import FIRST, SECOND, Geometry, IllegalMove, InvalidGeometry, Position
from connect4.hints import hints

from .reference import grid_after, has_line, winning_cells

SIZES = [Geometry(7, 6), Geometry(4, 4), Geometry(5, 4, 3), Geometry(8, 7, 5), Geometry(9, 5), Geometry(6, 9, 4)]


def cells_of(bitboard: int, g: Geometry) -> set[tuple[int, int]]:
    return {(c, r) for c in range(g.width) for r in range(g.height) if bitboard & g.cell_bit(c, r)}


@pytest.mark.parametrize(
    "moves,winner",
    [
        ("4444444", None),  # column fills but no line: 4 alternating stones
        ("1212121", FIRST),  # vertical
        ("1122334", FIRST),  # horizontal
        ("1223733474544", FIRST),  # diagonal /
        ("7665155414344", FIRST),  # diagonal \
        ("71122334", SECOND),  # second player's horizontal
    ],
)
def test_lines_in_every_direction(moves, winner):
    if moves == "4444444":
        with pytest.raises(IllegalMove, match="full"):
            Position.parse(moves)
        return
    pos = Position.parse(moves)
    assert pos.winner == winner and pos.is_over
    assert len(pos.winning_line_cells()) >= 4


def test_no_wrap_around_at_the_edges():
    # first player: column 7 rows 4-6 and column 1 row 1 are consecutive bits
    # in a naive layout; with the sentinel row they are not a line.
    pos = Position.parse("7171717")  # vertical in 7: real win
    assert pos.winner == FIRST
    # horizontal across the edge: stones on 6,7 then 1,2 in the bottom row
    pos = Position.parse("6 5 7 5 1 3 2")
    assert pos.winner is None
    # a5 a6 b1 b2: consecutive cells in column-major order, split by the sentinel bit
    pos = Position.parse("2 1 2 1 1 1 1 7 1")
    assert pos.winner is None and pos.cell(0, 5) == FIRST and pos.cell(1, 1) == FIRST


def test_full_board_draw():
    # a known drawn full board: columns filled in pairs with alternating starts
    g = Geometry(7, 6)
    order = []
    for pair in ((0, 1), (2, 3), (4, 5)):
        for rep in range(3):
            a, b = pair if rep % 2 == 0 else pair[::-1]
            order += [a, b, a, b]
    # the pattern above fills 6 columns; column 7 takes the last 6 stones
    order = order[:36]
    pos = Position(g)
    for c in order:
        pos.play(c)
    assert pos.winner is None
    for _ in range(6):
        pos.play(6)
    assert pos.is_draw and pos.is_over and pos.legal_moves() == []
    with pytest.raises(IllegalMove):
        pos.play(0)


@pytest.mark.parametrize("g", SIZES)
def test_random_playouts_match_cell_reference(g):
    rng = random.Random(hash(g) & 0xFFFF)
    for _ in range(12):
        pos = Position(g)
        while not pos.is_over:
            col = rng.choice(pos.legal_moves())
            pos.play(col)
            grid = grid_after(pos.moves, g)
            mover = 1 - pos.to_move
            assert (pos.winner == mover) == has_line(grid, mover, g)
            if pos.winner is None:
                for player in (FIRST, SECOND):
                    assert cells_of(pos.winning_cells(player), g) == winning_cells(grid, player, g)
        # undo all the way back
        while pos.moves:
            pos.undo()
        assert pos == Position(g) and pos.winner is None


def test_k3_and_k5():
    g3 = Geometry(5, 4, 3)
    assert Position.parse("11223", g3).winner == FIRST
    g5 = Geometry(8, 7, 5)
    assert Position.parse("1 1 2 2 3 3 4 4", g5).winner is None
    assert Position.parse("1 1 2 2 3 3 4 4 5", g5).winner == FIRST


def test_can_win_next_and_non_losing_moves():
    pos = Position.parse("445566")  # first player threatens 3 and 7
    assert pos.can_win_next() and pos.winning_moves() == [2, 6]
    pos.play(0)
    assert pos.non_losing_moves() == []  # two threats: every move loses
    pos = Position.parse("4455")
    assert set(pos.non_losing_moves()) == set(range(7))
    h = hints(Position.parse("44556"))
    assert h.must_block == [2, 6] and set(h.losing_moves) == set(range(7))


def test_illegal_moves_say_why():
    with pytest.raises(IllegalMove, match="off the board"):
        Position().play(7)
    with pytest.raises(IllegalMove, match="off the board"):
        Position().play(-1)
    with pytest.raises(IllegalMove, match="not a number"):
        Position().play("3")
    with pytest.raises(IllegalMove, match=r"move 7 \(4\): column 4 is full"):
        Position.parse("4444444")
    with pytest.raises(IllegalMove, match="already over"):
        Position.parse("12121211")
    with pytest.raises(IllegalMove, match="no move to undo"):
        Position().undo()


@pytest.mark.parametrize("w,h,k", [(17, 8, 4), (0, 6, 4), (7, 0, 4), (7, 6, 1), (7, 6, 8), (True, 6, 4)])
def test_bad_geometry(w, h, k):
    with pytest.raises(InvalidGeometry):
        Geometry(w, h, k)


def test_largest_boards_play_to_the_end():
    for g in (Geometry(8, 7), Geometry(16, 3), Geometry(4, 15), Geometry(1, 16, 2), Geometry(16, 1, 2),
              Geometry(8, 8), Geometry(16, 16), Geometry(16, 16, 16)):
        pos = Position(g)
        rng = random.Random(1)
        while not pos.is_over:
            pos.play(rng.choice(pos.legal_moves()))
        assert pos.mask & ~g.board_mask == 0
