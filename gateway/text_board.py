"""The text board MCP tools return: rows, column numbers, and the hints line."""

from __future__ import annotations

from typing import Any


def board_text(state: dict[str, Any]) -> str:
    """``state`` is the API's view (:func:`gateway.model.public_state`)."""
    lines = [" ".join(row) for row in state["rows"]]
    lines.append(" ".join(str((c + 1) % 10) for c in range(state["width"])))
    h = state.get("hints")
    if state.get("hints_on") and h:
        def fmt(cols: list[int]) -> str:
            return " ".join(map(str, cols)) or "-"
        lines.append(
            f"hints: wins now {fmt(h['winning_moves'])} | must block {fmt(h['must_block'])} "
            f"| loses at once {fmt(h['losing_moves'])}"
        )
    return "\n".join(lines)
