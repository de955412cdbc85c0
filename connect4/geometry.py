"""Board geometry and the bitboard layout.

Layout (Pascal Pons'): column ``c`` owns bits ``c*(H+1) .. c*(H+1)+H-1``, bottom
row first; bit ``c*(H+1)+H`` is a sentinel that is never set, so lines that would
wrap from one column into the next always pass through an empty sentinel.

Boards are 1..16 cells a side with lines of 2..max(width, height). Those whose
``width*(height+1)`` bits fit in 64 (7x6 among them) run on the single-word
kernels of :mod:`connect4.kernels`; the others (``wide``, e.g. 8x8, 16x16) on
the multi-word family of :mod:`connect4.wide`. Python-side bitboards of either
are plain integers in the layout above, whatever their width.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .errors import InvalidGeometry

MAX_BITS = 64  # one machine word: the single-word kernels' limit
MAX_SIDE = 16  # cells a side, the largest board being 16 x 16
MIN_K = 2
LIMITS = f"width and height 1..{MAX_SIDE}, line length {MIN_K}..max(width, height)"


@dataclass(frozen=True)
class Geometry:
    """A board of ``width`` x ``height`` cells where ``k`` in a row wins."""

    width: int = 7
    height: int = 6
    k: int = 4

    def __post_init__(self) -> None:
        for name in ("width", "height", "k"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidGeometry(f"{name} must be an integer, got {value!r} ({LIMITS})")
        if not (1 <= self.width <= MAX_SIDE and 1 <= self.height <= MAX_SIDE):
            raise InvalidGeometry(f"board {self.width}x{self.height} is out of range: {LIMITS}")
        if not MIN_K <= self.k <= max(self.width, self.height):
            raise InvalidGeometry(
                f"line length {self.k} does not fit on a {self.width}x{self.height} board: {LIMITS}"
            )

    @classmethod
    def parse(cls, size: str, k: int = 4) -> Geometry:
        """``"7x6"`` -> Geometry(7, 6, k)."""
        try:
            w, h = (int(part) for part in size.lower().split("x"))
        except ValueError:
            raise InvalidGeometry(f"board size {size!r} must look like 7x6 ({LIMITS})") from None
        return cls(w, h, k)

    @property
    def name(self) -> str:
        return f"{self.width}x{self.height}" + ("" if self.k == 4 else f"k{self.k}")

    @property
    def bits(self) -> int:
        """Bits of the layout: every column's cells and its sentinel."""
        return self.width * (self.height + 1)

    @property
    def wide(self) -> bool:
        """Past one 64-bit word: runs on the multi-word kernels (:mod:`connect4.wide`)."""
        return self.bits > MAX_BITS

    @property
    def h1(self) -> int:
        """Bits per column: the cells plus the sentinel."""
        return self.height + 1

    @property
    def cells(self) -> int:
        return self.width * self.height

    @cached_property
    def bottom_mask(self) -> int:
        """One bit at the bottom cell of every column."""
        return sum(1 << (c * self.h1) for c in range(self.width))

    @cached_property
    def board_mask(self) -> int:
        """Every playable cell (no sentinels)."""
        return self.bottom_mask * ((1 << self.height) - 1)

    def column_mask(self, col: int) -> int:
        return ((1 << self.height) - 1) << (col * self.h1)

    def top_mask(self, col: int) -> int:
        """The top cell of a column."""
        return 1 << (self.height - 1 + col * self.h1)

    def bottom_cell(self, col: int) -> int:
        return 1 << (col * self.h1)

    def cell_bit(self, col: int, row: int) -> int:
        """Bit of cell (col, row), both 0-based, row 0 at the bottom."""
        return 1 << (col * self.h1 + row)

    def bit_cell(self, bit_index: int) -> tuple[int, int]:
        return divmod(bit_index, self.h1)

    def center_order(self) -> list[int]:
        """Columns from the centre outwards, left before right on ties."""
        return sorted(range(self.width), key=lambda c: (abs(2 * c - (self.width - 1)), c))

    @property
    def is_standard(self) -> bool:
        return (self.width, self.height, self.k) == (7, 6, 4)


STANDARD = Geometry(7, 6, 4)


def large_boards(text: str, setting: str) -> list[Geometry]:
    """The boards past 64 bits of a list setting such as C4_ENGINE_PREWARM
    (``"8x8,9x7k5"``: line length after ``k``, 4 by default; ``"none"`` or empty:
    none); the 64-bit ones are left out. InvalidGeometry naming the setting and
    the bad part."""
    if text.strip().lower() in ("", "none"):
        return []
    out = []
    for part in text.split(","):
        size, _, k = part.strip().lower().partition("k")
        try:
            g = Geometry.parse(size, int(k) if k else 4)
        except (InvalidGeometry, ValueError) as exc:
            raise InvalidGeometry(f"{setting}: {part.strip()!r} is not a board ({exc})") from None
        if g.wide:
            out.append(g)
    return out
