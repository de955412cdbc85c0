"""connect4: the game itself.

Bitboard positions for any board up to 64 bits, notation, Pascal Pons' keys,
hints, text rendering and the book file format. Layer 0: depends on numpy and
numba only.
"""

from .errors import Connect4Error, IllegalMove, InvalidGeometry, InvalidPosition
from .geometry import STANDARD, Geometry
from .hints import Hints, hints
from .notation import format_moves, parse_column, parse_moves
from .position import FIRST, SECOND, Position

__version__ = "0.1.0"

__all__ = [
    "Connect4Error",
    "FIRST",
    "Geometry",
    "Hints",
    "IllegalMove",
    "InvalidGeometry",
    "InvalidPosition",
    "Position",
    "SECOND",
    "STANDARD",
    "format_moves",
    "hints",
    "parse_column",
    "parse_moves",
]
