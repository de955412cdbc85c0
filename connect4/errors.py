"""Typed errors of the game library.

Every error says what was wrong and where, so the layers above can pass the
message to a person unchanged.
"""


class Connect4Error(ValueError):
    """Base class of every error the library raises on bad input."""


class InvalidGeometry(Connect4Error):
    """A board size or line length the bitboard layout cannot hold."""


class InvalidPosition(Connect4Error):
    """Notation, a key or a book entry that does not describe a position."""


class IllegalMove(Connect4Error):
    """A move that cannot be played: column out of range, column full, game over.

    ``index`` is the 0-based place of the move in the list being played (None
    for a single move) and ``column`` the column as given (1-based at edges).
    """

    def __init__(self, message: str, *, column: object = None, index: int | None = None):
        super().__init__(message)
        self.column = column
        self.index = index
