"""Move hints for the side to move: wins now, must block, loses at once."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Hints:
    """0-based columns; ``next_row`` is the landing row (0-based) or None when full."""

    next_row: list[int | None] = field(default_factory=list)
    winning_moves: list[int] = field(default_factory=list)
    must_block: list[int] = field(default_factory=list)
    losing_moves: list[int] = field(default_factory=list)


def hints(pos) -> Hints:
    """Wins now; columns that block an opponent's immediate win; moves that
    hand the opponent a win at once (playing under its winning cell)."""
    g = pos.geometry
    next_row = [pos.height(c) if pos.height(c) < g.height else None for c in range(g.width)]
    if pos.is_over:
        return Hints(next_row=next_row)
    possible = pos.possible()
    mine = pos.winning_cells()
    theirs = pos.winning_cells(1 - pos.to_move)
    cols = range(g.width)
    win = [c for c in cols if mine & possible & g.column_mask(c)]
    block = [c for c in cols if theirs & possible & g.column_mask(c)]
    under = (theirs >> 1) & possible  # the cell under an opponent's winning cell
    losing = [c for c in cols if under & g.column_mask(c) and c not in win]
    if len(block) > 1 and not win:
        losing = pos.legal_moves()  # two open threats: whatever is played loses
    elif block and not win:
        losing = sorted(set(losing) | (set(pos.legal_moves()) - set(block)))
    return Hints(next_row=next_row, winning_moves=win, must_block=block, losing_moves=losing)
