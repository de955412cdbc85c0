"""A Connect Four position as two bitboards.

``current`` holds the stones of the side to move and ``mask`` every occupied
cell (Pascal Pons' representation); the opponent's stones are
``current ^ mask``. Playing swaps the roles, so ``current`` always belongs to
the side to move. Columns are 0-based inside the library; notation and the
edges convert (see :mod:`connect4.notation`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from .errors import IllegalMove
from .geometry import STANDARD, Geometry
from .kernels import family_for

FIRST, SECOND = 0, 1


def bits(x: int) -> Iterator[int]:
    """Indexes of the set bits of x, lowest first."""
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


class Position:
    """A position with its move history; play and undo are O(1)."""

    __slots__ = ("geometry", "current", "mask", "moves", "winner", "_kernels")

    def __init__(self, geometry: Geometry = STANDARD):
        self.geometry = geometry
        self.current = 0
        self.mask = 0
        self.moves: list[int] = []
        # FIRST or SECOND once a line of K is on the board, else None.
        self.winner: int | None = None
        self._kernels = family_for(geometry)  # single-word, or multi-word past 64 bits

    # -- construction -------------------------------------------------------
    @classmethod
    def from_moves(cls, moves: Iterable[int], geometry: Geometry = STANDARD) -> Position:
        """Play 0-based columns from the empty board."""
        pos = cls(geometry)
        for index, col in enumerate(moves):
            try:
                pos.play(col)
            except IllegalMove as exc:
                raise IllegalMove(
                    f"move {index + 1} ({_edge(col)}): {exc}", column=exc.column, index=index
                ) from None
        return pos

    @classmethod
    def parse(cls, text: str | Iterable[str | int], geometry: Geometry = STANDARD) -> Position:
        """A position from any notation :func:`connect4.notation.parse_moves` accepts."""
        from .notation import parse_moves

        return cls.from_moves(parse_moves(text, geometry), geometry)

    def copy(self) -> Position:
        other = Position.__new__(Position)
        other.geometry = self.geometry
        other.current = self.current
        other.mask = self.mask
        other.moves = list(self.moves)
        other.winner = self.winner
        other._kernels = self._kernels
        return other

    # -- state ---------------------------------------------------------------
    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def to_move(self) -> int:
        """FIRST (0) or SECOND (1): whose turn it is."""
        return len(self.moves) & 1

    @property
    def opponent(self) -> int:
        return self.current ^ self.mask

    def stones(self, player: int) -> int:
        """The bitboard of FIRST's or SECOND's stones."""
        return self.current if player == self.to_move else self.current ^ self.mask

    def cell(self, col: int, row: int) -> int | None:
        """FIRST, SECOND or None for an empty cell (row 0 at the bottom)."""
        bit = self.geometry.cell_bit(col, row)
        if not self.mask & bit:
            return None
        return self.to_move if self.current & bit else 1 - self.to_move

    def height(self, col: int) -> int:
        """Stones in a column."""
        return bin(self.mask & self.geometry.column_mask(col)).count("1")

    @property
    def is_over(self) -> bool:
        return self.winner is not None or len(self.moves) == self.geometry.cells

    @property
    def is_draw(self) -> bool:
        return self.winner is None and len(self.moves) == self.geometry.cells

    # -- moves ---------------------------------------------------------------
    def can_play(self, col: int) -> bool:
        """True when ``col`` is on the board, not full, and the game goes on."""
        return (
            self.winner is None
            and 0 <= col < self.geometry.width
            and not self.mask & self.geometry.top_mask(col)
        )

    def legal_moves(self) -> list[int]:
        if self.winner is not None:
            return []
        return [c for c in range(self.geometry.width) if not self.mask & self.geometry.top_mask(c)]

    def check_move(self, col: object) -> None:
        """Raise IllegalMove saying why ``col`` (0-based) cannot be played."""
        g = self.geometry
        if not isinstance(col, (int, np.integer)) or isinstance(col, bool):
            raise IllegalMove(f"column {col!r} is not a number", column=col)
        if not 0 <= col < g.width:
            raise IllegalMove(f"column {_edge(col)} is off the board (1..{g.width})", column=col)
        if self.winner is not None:
            raise IllegalMove("the game is already over", column=col)
        if self.mask & g.top_mask(int(col)):
            raise IllegalMove(f"column {_edge(col)} is full", column=col)

    def play(self, col: int) -> Position:
        """Drop a stone of the side to move in ``col``; returns self."""
        self.check_move(col)
        col = int(col)
        g = self.geometry
        self.current ^= self.mask  # the mover's stones become the opponent's
        self.mask |= self.mask + g.bottom_cell(col)  # the carry lands on the lowest empty cell
        self.moves.append(col)
        mover = self.current ^ self.mask
        if g.wide:
            if self._kernels.alignment_int(mover):
                self.winner = 1 - self.to_move
        elif self._kernels.alignment(np.uint64(mover)):
            self.winner = 1 - self.to_move
        return self

    def undo(self) -> int:
        """Take back the last move; returns its column."""
        if not self.moves:
            raise IllegalMove("there is no move to undo")
        col = self.moves.pop()
        top = self.mask & self.geometry.column_mask(col)
        top_bit = 1 << (top.bit_length() - 1)
        self.mask ^= top_bit
        self.current ^= self.mask  # the opponent is to move again
        self.winner = None
        return col

    def played(self, col: int) -> Position:
        """A copy with ``col`` played."""
        return self.copy().play(col)

    # -- tactics (Pons' naming) ---------------------------------------------
    def winning_cells(self, player: int | None = None) -> int:
        """Empty cells where ``player`` (default: side to move) would complete a line."""
        player = self.to_move if player is None else player
        if self.geometry.wide:
            return int(self._kernels.winning_cells_int(self.stones(player), self.mask))
        return int(self._kernels.winning_cells(np.uint64(self.stones(player)), np.uint64(self.mask)))

    def possible(self) -> int:
        """The landing cell of every non-full column."""
        return (self.mask + self.geometry.bottom_mask) & self.geometry.board_mask

    def is_winning_move(self, col: int) -> bool:
        """Would playing ``col`` complete a line for the side to move?"""
        return bool(self.can_play(col) and self.winning_cells() & self.possible() & self.geometry.column_mask(col))

    def winning_moves(self) -> list[int]:
        return [c for c in self.legal_moves() if self.is_winning_move(c)]

    def can_win_next(self) -> bool:
        return self.winner is None and bool(self.winning_cells() & self.possible())

    def non_losing_moves(self) -> list[int]:
        """Moves that neither leave an immediate win to the opponent nor
        play under one of its winning cells (Pons' possibleNonLosingMoves);
        empty when every move loses. Assumes the side to move cannot win now."""
        if self.winner is not None:
            return []
        possible = self.possible()
        threats = self.winning_cells(1 - self.to_move)
        forced = possible & threats
        if forced:
            if forced & (forced - 1):
                return []  # two threats to block: every move loses
            possible = forced
        safe = possible & ~(threats >> 1)  # never play right under a threat
        return [c for c in range(self.geometry.width) if safe & self.geometry.column_mask(c)]

    def winning_line_cells(self) -> list[tuple[int, int]]:
        """The cells (col, row) of every completed line of the winner."""
        if self.winner is None:
            return []
        from .lines import line_cells

        return line_cells(self.stones(self.winner), self.geometry)

    # -- keys ----------------------------------------------------------------
    def key(self) -> int:
        """Pascal Pons' key ``current + mask + bottom`` (49 bits on 7x6; on boards
        past 64 bits the same formula, a wider integer: see :mod:`connect4.wide`)."""
        return self.current + self.mask + self.geometry.bottom_mask

    def mirror_key(self) -> int:
        from .keys import mirror_bits

        g = self.geometry
        return mirror_bits(self.current, g) + mirror_bits(self.mask, g) + g.bottom_mask

    def canonical_key(self) -> int:
        return min(self.key(), self.mirror_key())

    # -- dunder --------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Position)
            and self.geometry == other.geometry
            and self.current == other.current
            and self.mask == other.mask
        )

    def __hash__(self) -> int:
        return hash((self.geometry, self.current, self.mask))

    def __repr__(self) -> str:
        from .notation import format_moves

        return f"Position({self.geometry.name}, {format_moves(self.moves, self.geometry)!r})"

    def __str__(self) -> str:
        from .render import render_ascii

        return render_ascii(self)


def _edge(col: object) -> str:
    """A 0-based column as people see it."""
    try:
        return str(int(col) + 1)  # type: ignore[call-overload]  # whatever the caller gave
    except (TypeError, ValueError):
        return repr(col)
