"""How deep the next iteration of a timed search goes.

The budget rule: a new iteration starts only while less than a third of the
budget is spent (an iteration still running at twice the budget is aborted).
Deepening one ply at a time, the search stops as soon as an iteration ends
past that third, and most of the budget is never used: on 1 s a move the
engine spent about 120 ms on average. So when the next iteration is predicted
to end past the third, it is the last one the rule lets start, and it goes as
deep as the tree's measured growth says will still end within the budget.
The abort at twice the budget guards a wrong prediction.
"""

from __future__ import annotations

MIN_GROWTH = 1.3   # per ply; near the end of the game proven lines make the tree grow slowly
MAX_GROWTH = 8.0
MAX_JUMP = 4       # the calibration went no further; deeper predictions compound the error
MARGIN = 1.25      # a jump of s plies cost 1.2-1.6 times growth**s in a calibration on arena positions


class IterationPace:
    """Fed every finished iteration; answers the depth of the next one."""

    def __init__(self) -> None:
        self.depths: list[int] = []
        self.nodes: list[int] = []    # nodes of each iteration alone
        self.ends_ms: list[float] = []
        self._total = 0

    def finished(self, depth: int, total_nodes: int, elapsed_ms: float) -> None:
        """An iteration to ``depth`` ended; ``total_nodes`` and ``elapsed_ms`` count from the search's start."""
        self.depths.append(depth)
        self.nodes.append(max(total_nodes - self._total, 1))
        self._total = total_nodes
        self.ends_ms.append(elapsed_ms)

    def growth(self) -> float:
        """Nodes per extra ply, over the last two iterations' depths (an
        alpha-beta tree grows unevenly from odd to even depths)."""
        if len(self.depths) < 3:
            return MAX_GROWTH
        plies = self.depths[-1] - self.depths[-3]
        ratio = (self.nodes[-1] / self.nodes[-3]) ** (1.0 / plies)
        return min(max(ratio, MIN_GROWTH), MAX_GROWTH)

    def next_depth(self, limit: int, spent_ms: float, budget_ms: float) -> int:
        """The depth to search next; called only while under a third of the budget."""
        depth = self.depths[-1] + 1
        if len(self.depths) < 3 or depth >= limit:
            return min(depth, limit)
        growth = self.growth()
        cost = (self.ends_ms[-1] - self.ends_ms[-2]) * growth  # predicted time of one ply deeper
        if spent_ms + cost < budget_ms / 3.0:
            return depth  # another iteration may start after this one
        deepest = min(limit, self.depths[-1] + MAX_JUMP)
        while depth < deepest and spent_ms + MARGIN * cost * growth <= budget_ms:  # one more ply fits
            depth += 1
            cost *= growth
        return depth
