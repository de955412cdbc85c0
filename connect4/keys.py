"""Position keys: Pascal Pons' key, its mirror, and the exact inverse.

The key is ``current + mask + bottom``. In each column ``mask + bottom`` is a
single bit just above the column's stones, and ``current`` only has bits below
it, so the sum never carries between columns: the highest set bit of a column
marks its height and the bits below it are the side to move's stones. On 7x6
the key fits in 49 bits and the empty board is 0x40810204081.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import InvalidPosition
from .geometry import STANDARD, Geometry

if TYPE_CHECKING:
    from .position import Position


def mirror_bits(board: int, g: Geometry) -> int:
    """Reflect a bitboard left to right (column c <-> width-1-c)."""
    out = 0
    column = (1 << g.h1) - 1
    for c in range(g.width):
        out |= ((board >> (c * g.h1)) & column) << ((g.width - 1 - c) * g.h1)
    return out


def mirror_key(key: int, g: Geometry = STANDARD) -> int:
    """The key of the mirrored position: a key mirrors column by column like a
    bitboard (each column's marker moves with it)."""
    return mirror_bits(key, g)


def canonical(pos: Position) -> tuple[int, bool]:
    """(the smaller of the position's key and its mirror's, True when that is
    the mirror's): one key for a position and its mirror image."""
    key, mirror = pos.key(), pos.mirror_key()
    return (key, False) if key <= mirror else (mirror, True)


def decode_key(key: int, g: Geometry = STANDARD) -> tuple[int, int]:
    """key -> (current, mask); InvalidPosition when no position has this key."""
    if not isinstance(key, int) or key < 0 or key >> (g.width * g.h1):
        raise InvalidPosition(f"key {key!r} is not a {g.width}x{g.height} key")
    current = mask = 0
    for c in range(g.width):
        column = (key >> (c * g.h1)) & ((1 << g.h1) - 1)
        if not column:
            raise InvalidPosition(f"key {key:#x}: column {c + 1} has no height marker")
        h = column.bit_length() - 1  # the marker sits right above the stones
        if h > g.height:
            raise InvalidPosition(f"key {key:#x}: column {c + 1} is higher than the board")
        mask |= ((1 << h) - 1) << (c * g.h1)
        current |= (column ^ (1 << h)) << (c * g.h1)
    return current, mask


def position_from_key(key: int, g: Geometry = STANDARD) -> Position:
    """The Position with this key, with a legal move history that reaches it.

    Raises InvalidPosition when the stone counts cannot alternate or no order
    of moves reaches the position without a line completed earlier.
    """
    from .history import find_history
    from .position import Position

    current, mask = decode_key(key, g)
    moves = find_history(current, mask, g)
    if moves is None:
        raise InvalidPosition(f"key {key:#x}: no legal game reaches this position")
    pos = Position.from_moves(moves, g)
    assert pos.current == current and pos.mask == mask
    return pos


def parse_key(text: str) -> int:
    """A key as written in books: hex with or without 0x."""
    t = text.strip().lower()
    try:
        return int(t, 16)
    except ValueError:
        raise InvalidPosition(f"key {text!r} is not hexadecimal") from None
