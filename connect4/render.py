"""Text boards: ASCII for logs and protocols, rows top first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .notation import LETTERS

if TYPE_CHECKING:
    from .position import Position

SYMBOLS = {None: ".", 0: "X", 1: "O"}


def rows(pos: Position, symbols: dict[int | None, str] | None = None) -> list[str]:
    """One string a row, top row first: ``X`` first player, ``O`` second, ``.`` empty."""
    symbols = symbols or SYMBOLS
    g = pos.geometry
    return [
        "".join(symbols[pos.cell(c, r)] for c in range(g.width)) for r in range(g.height - 1, -1, -1)
    ]


def render_ascii(pos: Position, symbols: dict[int | None, str] | None = None, spaced: bool = True,
                 footer: str = "numbers") -> str:
    """The board with a column footer (``1 2 3 ...`` or ``a b c ...``)."""
    g = pos.geometry
    sep = " " if spaced else ""
    lines = [sep.join(row) for row in rows(pos, symbols)]
    if footer == "letters":
        lines.append(sep.join(LETTERS[c] for c in range(g.width)))
    elif footer == "numbers":
        lines.append(sep.join(str((c + 1) % 10) for c in range(g.width)))
    return "\n".join(lines)
