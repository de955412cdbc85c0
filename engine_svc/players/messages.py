"""What a player says about its move, in words a person reads.

The search answers numbers (:class:`engine_svc.result.SearchResult`: score,
outcome, plies to the end, whether it stopped early); the players turn them
into the message the protocols pass on (gRPC ``SearchResult.message``, the
gateway, ``c4 play``).
"""

from __future__ import annotations

from ..result import SearchResult


def _moves(n: int) -> str:
    return "1 move" if n == 1 else f"{n} moves"


def search_message(r: SearchResult) -> str:
    """The engine's words for a search result: a forced win, a resignation, a
    proven draw, a search stopped before its first depth, else nothing."""
    if r.stopped:
        return "stopped before depth 1"
    moves = _moves((r.plies_to_end + 1) // 2)
    if r.outcome == "win":
        return f"forced win in {moves}"
    if r.outcome == "loss":
        return f"resigns: a forced loss in {moves}"
    if r.outcome == "draw":
        return "proven draw"
    return ""
