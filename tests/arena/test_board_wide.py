"""The terminal board past 7x6: columns lettered a..p, rows numbered 1..16 on both
sides (right-aligned on the left once they take two digits), the last move in
brackets; exact strings."""

from __future__ import annotations

from arena.board import render
from connect4 import Position
from connect4.geometry import Geometry

BOARD_16X16 = (
    '    a b c d e f g h i j k l m n o p\n'
    '   ╭─────────────────────────────────╮\n'
    '16 │ · · · · · · · · · · · · · · · · │ 16\n'
    '15 │ · · · · · · · · · · · · · · · · │ 15\n'
    '14 │ · · · · · · · · · · · · · · · · │ 14\n'
    '13 │ · · · · · · · · · · · · · · · · │ 13\n'
    '12 │ · · · · · · · · · · · · · · · · │ 12\n'
    '11 │ · · · · · · · · · · · · · · · · │ 11\n'
    '10 │ · · · · · · · · · · · · · · · · │ 10\n'
    ' 9 │ · · · · · · · · · · · · · · · · │ 9\n'
    ' 8 │ · · · · · · · · · · · · · · · · │ 8\n'
    ' 7 │ · · · · · · · · · · · · · · · · │ 7\n'
    ' 6 │ · · · · · · · · · · · · · · · · │ 6\n'
    ' 5 │ · · · · · · · · · · · · · · · · │ 5\n'
    ' 4 │ · · · · · · · · · · · · · · · · │ 4\n'
    ' 3 │ · · · · · · · · · · · · · · · · │ 3\n'
    ' 2 │ · · · · · · · · · · · · · · · ● │ 2\n'
    ' 1 │ ○ ○ · · · · · · · ·[●]· · · · ● │ 1\n'
    '   ╰─────────────────────────────────╯\n'
    '    a b c d e f g h i j k l m n o p\n'
)

BOARD_10X3 = (
    '   a b c d e f g h i j\n'
    '  ╭─────────────────────╮\n'
    '3 │ · · · · · · · · · · │ 3\n'
    '2 │ · · · · · · · · ·[●]│ 2\n'
    '1 │ ○ · · · · · · · · ● │ 1\n'
    '  ╰─────────────────────╯\n'
    '   a b c d e f g h i j\n'
)


def test_a_16x16_board_names_columns_a_to_p_and_rows_1_to_16():
    pos = Position.from_moves([15, 0, 15, 1, 10], Geometry(16, 16, 5))
    assert render(pos) + "\n" == BOARD_16X16


def test_a_10x3_board_with_its_last_move_on_the_right_edge():
    pos = Position.from_moves([9, 0, 9], Geometry(10, 3, 3))
    assert render(pos) + "\n" == BOARD_10X3
