"""Move notation at the edges: digits, letters and cells, all 1-based.

Accepted for a move list (any mix, separated by spaces, commas or nothing
for single-character moves):
  ``4453``            1-based column digits (boards up to 9 columns; on wider
                      boards a lone number is one move)
  ``4 4 5 3``, ``[4, 4, 5, 3]``  1-based numbers, any width
  ``d d e c``, ``ddec``          column letters a..
  ``d1 d2 e1 c1``     cells: column letter and 1-based row from the bottom;
                      the row must be where the stone actually lands
Inside the library columns are 0-based; this module is the only converter.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable

from .errors import IllegalMove, InvalidPosition
from .geometry import STANDARD, Geometry

LETTERS = string.ascii_lowercase
_COMPACT = re.compile(r"[a-z][0-9]*|[0-9]")  # "ddec", "d1d2e1c1", or one digit a move (ASCII only)


_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def _lower(text: str) -> str:
    """ASCII letters lowered, nothing else: str.lower() turns the Kelvin sign into "k"."""
    return text.strip().translate(_LOWER)


def _digits(text: str) -> bool:
    """ASCII digits only: str.isdigit() also says yes to "²" or "٣", which int() refuses."""
    return text.isascii() and text.isdigit()


def _accepted(geometry: Geometry) -> str:
    """What a column may be on this board, for error messages: "1..7 or a..g"."""
    letters = min(geometry.width, len(LETTERS))
    return f"1..{geometry.width} or a..{LETTERS[letters - 1]}"


def parse_column(text: str | int, geometry: Geometry = STANDARD) -> int:
    """One column as a person gives it (``4``, ``"4"``, ``"d"``) -> 0-based."""
    if isinstance(text, bool):
        raise InvalidPosition(f"column {text!r} is not a column")
    if isinstance(text, int):
        col = text
    elif isinstance(text, str):
        t = _lower(text)
        if _digits(t):
            col = int(t)
        elif len(t) == 1 and t in LETTERS:
            col = LETTERS.index(t) + 1
            if col > geometry.width:
                raise IllegalMove(f"column {t!r} is not on this {geometry.width}-wide board: use {_accepted(geometry)}",
                                  column=col - 1)
        else:
            raise InvalidPosition(f"column {text!r} is not a column: use {_accepted(geometry)}")
    else:
        raise InvalidPosition(f"column {text!r} must be a number or a letter")
    if not 1 <= col <= geometry.width:
        raise IllegalMove(f"column {col} is off the board (1..{geometry.width})", column=col - 1)
    return col - 1


def parse_moves(moves: str | Iterable[str | int], geometry: Geometry = STANDARD) -> list[int]:
    """A move list in any accepted notation -> 0-based columns.

    Raises InvalidPosition naming the offending move for bad notation, and
    IllegalMove (via Position) when a cell's row is not where the stone lands.
    """
    if isinstance(moves, str):
        tokens = _tokenize(moves, geometry)
    elif isinstance(moves, Iterable):
        tokens = list(moves)
    else:
        raise InvalidPosition(f"moves must be a string or a list, got {type(moves).__name__}")
    cols: list[int] = []
    heights = [0] * geometry.width
    for index, token in enumerate(tokens):
        where = f"move {index + 1} ({token!r})"
        row = None
        if isinstance(token, str) and len(token) > 1 and token[0] in LETTERS and _digits(token[1:]):
            row = int(token[1:]) - 1
            token = token[0]
        try:
            col = parse_column(token, geometry)
        except IllegalMove as exc:
            raise IllegalMove(f"{where}: {exc}", column=exc.column, index=index) from None
        except InvalidPosition as exc:
            raise InvalidPosition(f"{where}: {exc}") from None
        if row is not None and row != heights[col]:
            raise IllegalMove(
                f"{where}: a stone in column {LETTERS[col]} lands on row {heights[col] + 1}, not {row + 1}",
                column=col,
                index=index,
            )
        heights[col] += 1
        cols.append(col)
    return cols


def _tokenize(text: str, geometry: Geometry) -> list[str | int]:
    """Split text into one token a move: an int (1-based), a letter or a cell."""
    t = _lower(text)
    if t.startswith("[") and t.endswith("]"):
        t = t[1:-1].strip()
    if not t:
        return []
    if re.search(r"[\s,;]", t):  # separated: each part is one move
        return [int(p) if _digits(p) else p for p in re.split(r"[\s,;]+", t) if p]
    if _digits(t):  # "4453": one digit a move
        if geometry.width > 9:
            return [int(t)]  # wide boards: a lone number is one move; lists need separators
        return [int(ch) for ch in t]
    pieces, at = [], 0
    while at < len(t):
        m = _COMPACT.match(t, at)
        if not m:
            raise InvalidPosition(f"cannot read {text.strip()!r} as moves: {t[at]!r} at character {at + 1}")
        pieces.append(int(m.group()) if _digits(m.group()) else m.group())
        at = m.end()
    return pieces


def format_moves(cols: Iterable[int], geometry: Geometry = STANDARD, style: str = "digits") -> str:
    """0-based columns -> ``"4453"`` (digits), ``"d d e c"`` (letters) or ``"4 4 5 3"`` (numbers)."""
    cols = list(cols)
    if style == "letters":
        return " ".join(LETTERS[c] for c in cols)
    if style == "numbers" or geometry.width > 9:
        return " ".join(str(c + 1) for c in cols)
    return "".join(str(c + 1) for c in cols)
