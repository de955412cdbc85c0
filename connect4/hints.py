"""Move hints for the side to move: wins now, must block, loses at once.

The same one-ply lookups as Connect4-rs's LLM hints (its ``src/hints.rs``), so a
client sees the same lists from either program:

* ``winning_moves``: columns where the side to move completes a line now;
* ``must_block``: columns where the opponent would complete a line on its next
  move (its playable winning cells);
* ``losing_moves``: columns after which the opponent has an immediate win
  somewhere: under one of its winning cells, or anywhere but the block while it
  has a threat. A move that wins is never losing. This list does not depend on
  ``winning_moves``: with a win at hand, the other columns that lose are listed
  too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .position import Position


@dataclass(frozen=True)
class Hints:
    """0-based columns; ``next_row`` is the landing row (0-based) or None when full."""

    next_row: list[int | None] = field(default_factory=list)
    winning_moves: list[int] = field(default_factory=list)
    must_block: list[int] = field(default_factory=list)
    losing_moves: list[int] = field(default_factory=list)


def hints(pos: Position) -> Hints:
    """The hints of ``pos`` for the side to move; only ``next_row`` once the game is over."""
    g = pos.geometry
    next_row = [pos.height(c) if pos.height(c) < g.height else None for c in range(g.width)]
    if pos.is_over:
        return Hints(next_row=next_row)
    possible = pos.possible()  # the landing cell of every column that is not full
    mine = pos.winning_cells()
    # The opponent's winning cells: empty cells, reachable now or not, that complete
    # one of its lines. A stone of ours only takes away the cell it fills, so this
    # set stays right after any move of ours.
    theirs = pos.winning_cells(1 - pos.to_move)
    win, block, losing = [], [], []
    for c in range(g.width):
        cell = possible & g.column_mask(c)  # where a stone in c lands (0 when full)
        if not cell:
            continue
        if mine & cell:
            win.append(c)
        if theirs & cell:
            block.append(c)
        # After our stone in c the opponent plays anywhere we could, except that
        # column c now lands one cell higher (cell << 1; the sentinel above the
        # top row is outside board_mask, so a full column offers nothing).
        after = (possible & ~cell) | ((cell << 1) & g.board_mask)
        if not mine & cell and theirs & after:
            losing.append(c)
    return Hints(next_row=next_row, winning_moves=win, must_block=block, losing_moves=losing)
