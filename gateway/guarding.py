"""Guarded seats: the gate (:mod:`connect4.gate`) checks a person's move.

A person (or an agent) whose seat has ``guarded`` on has each of its moves
checked by the gate's four checks before it is played. A move that fails
one is replaced by the gate's choice (the proposal stands only when no
column passes more checks), and the game document keeps the verdict as
``override`` until the next move of a person: the ply, who, the proposed and
the played column (1-based), and each failed check with its reason. A move
that passes every check leaves ``override`` empty.
"""

from __future__ import annotations

from typing import Any

from connect4 import Position
from connect4.gate import CHECKS, Guarded, guard

from .document import Game


def override_json(verdict: Guarded, color: str, ply: int) -> dict[str, Any]:
    """The verdict as clients see it; columns 1-based, ``ply`` the move's 1-based ply."""
    return {
        "ply": ply, "color": color,
        "proposed": verdict.proposed + 1, "played": verdict.played + 1, "overridden": verdict.overridden,
        "failed": [{"check": ch.name, "reason": ch.reason} for ch in verdict.failed],
        "played_passes": sum(map(bool, verdict.played_checks)), "checks": len(CHECKS),
        "summary": verdict.summary(),
    }


def guarded_column(doc: Game, color: str, pos: Position, col: int) -> int:
    """The column to play for the person at ``color`` proposing ``col`` (legal, 0-based)
    in ``pos``; sets ``doc.override`` to the gate's verdict (None when not guarded or
    the move passes)."""
    doc.override = None
    if not doc.seats[color].guarded:
        return col
    verdict = guard(pos, col)
    if verdict.failed:
        doc.override = override_json(verdict, color, len(doc.moves) + 1)
    return verdict.played
