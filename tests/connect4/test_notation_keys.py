"""Notation and keys: round trips (hypothesis), Pons' key values, the inverse, bad input."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connect4 import Geometry, IllegalMove, InvalidPosition, Position, format_moves, parse_moves
from connect4.keys import decode_key, mirror_bits, parse_key, position_from_key
from connect4.notation import LETTERS, parse_column
from connect4.render import render_ascii, rows

G = Geometry()


def format_cells(cols, geometry):
    """0-based columns -> ``"d1 d2 e1"``: the cell notation people type, written out by hand."""
    heights = [0] * geometry.width
    out = []
    for c in cols:
        heights[c] += 1
        out.append(f"{LETTERS[c]}{heights[c]}")
    return " ".join(out)


@st.composite
def games(draw, g=G, max_moves=None):
    """A legal move list (0-based), possibly a finished game."""
    pos = Position(g)
    n = draw(st.integers(0, max_moves if max_moves is not None else g.cells))
    for _ in range(n):
        legal = pos.legal_moves()
        if not legal:
            break
        pos.play(draw(st.sampled_from(legal)))
    return pos.moves


@settings(max_examples=200, deadline=None)
@given(games())
def test_notation_round_trips(moves):
    for style in ("digits", "letters", "numbers"):
        assert parse_moves(format_moves(moves, G, style), G) == moves
    assert parse_moves(format_cells(moves, G), G) == moves
    assert parse_moves([c + 1 for c in moves], G) == moves


@settings(max_examples=200, deadline=None)
@given(games())
def test_key_inverse_and_mirror(moves):
    pos = Position.from_moves(moves)
    key = pos.key()
    assert key < 1 << 49
    assert decode_key(key) == (pos.current, pos.mask)
    if pos.winner is None:
        back = position_from_key(key)
        assert back == pos and back.winner is None
    mirrored = Position.from_moves([6 - c for c in moves])
    assert pos.mirror_key() == mirrored.key()
    assert mirror_bits(mirror_bits(pos.mask, G), G) == pos.mask


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([Geometry(4, 4), Geometry(9, 5), Geometry(5, 4, 3), Geometry(12, 4)]).flatmap(
    lambda g: st.tuples(st.just(g), games(g))))
def test_keys_and_notation_other_sizes(case):
    g, moves = case
    pos = Position.from_moves(moves, g)
    assert parse_moves(format_moves(moves, g, "numbers"), g) == moves
    assert decode_key(pos.key(), g) == (pos.current, pos.mask)
    if pos.winner is None:
        assert position_from_key(pos.key(), g) == pos


def test_pons_key_values():
    assert Position().key() == 0x40810204081
    # one stone in column 4: the side to move (second player) owns nothing,
    # column 4's marker moves up one cell.
    assert Position.parse("4").key() == 0x40810204081 + (1 << 21)
    assert Position.parse("4").mirror_key() == Position.parse("4").key()
    assert Position.parse("1").mirror_key() == Position.parse("7").key()


def test_notation_forms():
    assert parse_moves("4453") == [3, 3, 4, 2]
    assert parse_moves("4 4 5 3") == parse_moves("4,4,5,3") == parse_moves("[4, 4, 5, 3]") == [3, 3, 4, 2]
    assert parse_moves("ddec") == parse_moves("d d e c") == parse_moves("D1 d2 e1 c1") == [3, 3, 4, 2]
    assert parse_moves("d1d2e1c1") == [3, 3, 4, 2]
    assert parse_moves("") == []
    assert parse_moves("10 11 1", Geometry(12, 4)) == [9, 10, 0]
    assert parse_column("g") == 6 and parse_column(7) == 6 and parse_column(" 3 ") == 2


@pytest.mark.parametrize(
    "text,error,match",
    [
        ("448", IllegalMove, r"move 3 \(8\)"),
        ("4409", IllegalMove, r"move 3"),
        ("44z", IllegalMove, r"move 3 \('z'\): column 'z' is not on this 7-wide board: use 1\.\.7 or a\.\.g"),
        ("4x5", IllegalMove, r"move 2 \('x5'\): column 'x' is not on this 7-wide board: use 1\.\.7 or a\.\.g"),
        ("4 4 h", IllegalMove, r"move 3 \('h'\): column 'h' is not on this 7-wide board"),
        ("d1 d3", IllegalMove, r"move 2 \('d3'\).*lands on row 2, not 3"),
        ("4 4 x!", InvalidPosition, r"move 3 \('x!'\)"),
        ("44-5", InvalidPosition, r"'-' at character 3"),
        ("4 4 -1", InvalidPosition, r"move 3"),
        ("1111111", IllegalMove, r"move 7 \(1\): column 1 is full"),
    ],
)
def test_bad_notation_names_the_move(text, error, match):
    with pytest.raises(error, match=match):
        Position.parse(text)


@pytest.mark.parametrize("digit", ["\u00b2", "\u0663", "\uff14", "\u2463"])  # ², Arabic-Indic 3, fullwidth 4, ④
def test_only_ascii_digits_are_columns(digit):
    """str.isdigit() says yes to these but int() refuses them: each is a clear
    InvalidPosition naming what was given, never a ValueError from int()."""
    with pytest.raises(InvalidPosition, match=f"column '{digit}' is not a column: use 1..7 or a..g"):
        parse_column(digit)
    with pytest.raises(InvalidPosition, match=f"move 2 \\('{digit}'\\)"):
        parse_moves(["4", digit])
    with pytest.raises(InvalidPosition, match=f"move 2 \\('{digit}'\\)"):
        parse_moves(f"4 {digit} 5")
    for text in (digit, f"4{digit}", f"d{digit}"):
        with pytest.raises(InvalidPosition, match=f"'{digit}' at character"):
            parse_moves(text)
    with pytest.raises(InvalidPosition, match="is not a column"):
        parse_moves([f"d{digit}"])  # a cell whose row is not an ASCII number
    with pytest.raises(InvalidPosition):
        parse_moves("44\u212a")  # the Kelvin sign is not the letter k


def test_letters_past_the_board_say_which_columns_exist():
    with pytest.raises(IllegalMove, match=r"^column 'z' is not on this 7-wide board: use 1\.\.7 or a\.\.g$") as exc:
        parse_column("Z")
    assert exc.value.column == 25
    with pytest.raises(IllegalMove, match=r"column 'f' is not on this 5-wide board: use 1\.\.5 or a\.\.e"):
        parse_column("f", Geometry(5, 4))
    assert parse_column("e", Geometry(5, 4)) == 4
    # the widest board, 16 columns: letters a..p, numbers 1..16
    wide = Geometry(16, 1)
    assert parse_column("16", wide) == 15 and parse_column("p", wide) == 15
    with pytest.raises(InvalidPosition, match=r"use 1\.\.16 or a\.\.p"):
        parse_column("?", wide)


def test_digit_strings_on_wide_boards_are_one_number():
    assert parse_moves("11", Geometry(12, 4)) == [10]
    with pytest.raises(IllegalMove, match="off the board"):
        parse_moves("123", Geometry(12, 4))


def test_bad_keys():
    with pytest.raises(InvalidPosition):
        parse_key("zz")
    with pytest.raises(InvalidPosition):
        decode_key(1 << 60)
    with pytest.raises(InvalidPosition, match="no height marker"):
        decode_key(0)
    # side to move with more stones than the opponent: no game reaches it
    with pytest.raises(InvalidPosition, match="no legal game"):
        position_from_key(0x40810204081 + (1 << 21) + (1 << 20))


def test_ascii_rows_top_first():
    pos = Position.parse("4453")
    assert rows(pos)[-1] == "..OXX.." and rows(pos)[-2] == "...O..."
    assert render_ascii(pos).splitlines()[-1] == "1 2 3 4 5 6 7"
