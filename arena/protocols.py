"""What the arena needs of a player and of an exact oracle.

Every player of a match, an audit, versus or terminal play (a ladder player
in-process or over gRPC, the perfect player, a person at the terminal) is a
:class:`Player`; the exact values that versus and audit compare against come
from an :class:`ExactOracle` (books and the in-process solver, or the solver
service). Both are structural: an implementation needs the methods, not a
base class. ``arena.players.ArenaPlayer`` is a convenience base with a
no-op ``close``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from connect4 import Position

    from .players import MoveInfo


@runtime_checkable
class Player(Protocol):
    spec: str

    def choose(self, pos: Position) -> MoveInfo:
        """The column to play in ``pos`` and what the player says of it; raises PlayerError."""
        ...

    def close(self) -> None:
        """Release what the player holds (a channel, a search table)."""
        ...


@runtime_checkable
class ExactOracle(Protocol):
    """Proved values only: a position it cannot prove raises ``arena.oracle.Unproved``."""

    def score(self, pos: Position) -> int:
        """Pons' score of ``pos`` for the side to move."""
        ...

    def column_value(self, pos: Position, col: int) -> int:
        """The score of playing ``col`` (0-based) for the side to move."""
        ...

    def analyze(self, pos: Position) -> list[int | None]:
        """Every column's score, None for a full column."""
        ...

    def best_move(self, pos: Position) -> tuple[int, int]:
        """(column, score) of a best move."""
        ...
