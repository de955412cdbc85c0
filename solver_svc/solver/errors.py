"""Errors of the exact solver."""

from __future__ import annotations


class BudgetExceeded(RuntimeError):
    """A search ended by its node budget or its stop flag before it proved a value.

    ``nodes`` is the number of positions searched before the search gave up.
    The solver never returns an unproved value: it raises this instead.
    """

    index: int | None = None  # solve_many: the position that was stopped
    batch: object = None  # solve_many: the answers before it (a Batch)

    def __init__(self, nodes: int, reason: str = "node budget"):
        super().__init__(f"search stopped by {reason} after {nodes} nodes without a proved value")
        self.nodes = nodes
        self.reason = reason
