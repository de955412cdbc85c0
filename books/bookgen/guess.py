"""The book side's likely best move, to send the tree's deep positions first.

Only a guess: the coordinator expands an unsolved node below it at once, so
the whole likely tree can be solved deepest-first; the book itself always
holds the solver's move (a wrong guess costs work, never correctness).
"""

from __future__ import annotations

from collections.abc import Callable

from connect4 import Geometry, Position


def engine_guess(g: Geometry, depth: int = 12) -> Callable[[Position], int]:
    """The engine's move at a fixed depth (one table, reused across calls)."""
    from engine_svc.search import Engine

    engine = Engine(g, tt_mb=16)

    def guess(pos: Position) -> int:
        return engine.search(pos, max_depth=depth).column

    return guess
