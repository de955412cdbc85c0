"""The engine's score scale.

Scores are from the side to move's view. Heuristic scores are small (the
evaluation of :mod:`engine_svc.evaluation`); proven results live beyond
``MATE``: a game that ends with the winning stone number ``n`` (stones on the
board after it) scores ``MATE + CELLS + 1 - n`` for the winner, so sooner wins
score higher and a score depends only on the position, never on the path
(the stone count is part of the position), which keeps table entries valid
anywhere. A draw is 0 and proven once the search reached every end.
"""

from __future__ import annotations

MATE = 100_000
INF = 1 << 30


def win_score(end_stone: int, cells: int) -> int:
    """Score of a win whose last stone is stone number ``end_stone``."""
    return MATE + cells + 1 - end_stone


def is_proven(score: int) -> bool:
    return abs(score) > MATE


def end_stone_of(score: int, cells: int) -> int:
    """The stone number that ends the game, for a proven win/loss score."""
    return MATE + cells + 1 - abs(score)


def describe_outcome(score: int, proven: bool, ply: int, cells: int) -> tuple[str, int]:
    """(outcome, plies to the end) of a root score."""
    if not proven:
        return "unknown", 0
    if score == 0 and not is_proven(score):
        return "draw", cells - ply
    plies = end_stone_of(score, cells) - ply
    return ("win" if score > 0 else "loss"), plies
