"""Pascal Pons' exact scores and where they end the game.

A win with the stone of ply p (stones on the board once it is played) is
worth ``(W*H + 2 - p) // 2`` to the player who made it; the side to move
scores it positive, its opponent negative, a draw is 0. Each score stands for
two plies, one of each player's, so the winner's parity picks the one.
"""

from __future__ import annotations

from .geometry import Geometry


def end_ply(score: int, ply: int, g: Geometry) -> int:
    """The ply (stones on the board at the end) at which the game ends with
    best play, from a position with ``ply`` stones and exact ``score``."""
    if score == 0:
        return g.cells
    winner = ply % 2 if score > 0 else 1 - ply % 2  # 0: the first player wins
    s = abs(score)
    for p in (g.cells + 2 - 2 * s, g.cells + 1 - 2 * s):
        if (p - 1) % 2 == winner:  # the first player places stones 1, 3, 5, ...
            return p
    raise AssertionError("unreachable")


def plies_to_end(score: int, ply: int, g: Geometry) -> int:
    """Plies from a position with ``ply`` stones to the end of the game with
    best play (a draw ends when the board is full: ``cells - ply``)."""
    return end_ply(score, ply, g) - ply
