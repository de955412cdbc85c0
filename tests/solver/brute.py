"""A brute-force reference: plain minimax over connect4.Position, memoized.

No pruning, no ordering, no table of bounds: every move is tried and the
score of a position is the best of its children, so it shares no idea with the
solver beyond the rules of the game and Pons' score formula.
"""

from __future__ import annotations

from connect4 import Position


def brute_score(pos: Position, memo: dict | None = None) -> int:
    """Pons' score of ``pos`` (not over) for the side to move."""
    memo = {} if memo is None else memo
    key = (pos.current, pos.mask)
    if key in memo:
        return memo[key]
    g = pos.geometry
    best = None
    for col in pos.legal_moves():
        pos.play(col)
        if pos.winner is not None:
            score = (g.cells + 2 - pos.ply) // 2  # the winner's score: sooner is larger
        elif pos.is_draw:
            score = 0
        else:
            score = -brute_score(pos, memo)
        pos.undo()
        if best is None or score > best:
            best = score
    memo[key] = best
    return best
