"""Match statistics: scores, Wilson intervals, Elo from a score.

A game scores 1 for a win, 1/2 for a draw and 0 for a loss. A player's score
over n games is ``(W + D/2) / n``; its 95 % interval is Wilson's score
interval applied to that proportion (draws count as half a success, the
usual convention for chess and Connect Four match reports).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054  # the 97.5 % quantile of the standard normal


@dataclass(frozen=True)
class Interval:
    low: float
    high: float

    def as_list(self) -> list[float]:
        return [self.low, self.high]


def wilson(successes: float, n: int, z: float = Z95) -> Interval:
    """Wilson's score interval for a proportion ``successes / n``.

    ``successes`` may be a half-integer (draws count 1/2). With no games the
    interval is the whole range [0, 1].
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return Interval(0.0, 1.0)
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = (z / denom) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)  # exact ends, no rounding below 1
    return Interval(low, high)


def score(wins: int, draws: int, losses: int) -> float:
    """Points per game: (W + D/2) / n; NaN for no games."""
    n = wins + draws + losses
    return (wins + draws / 2) / n if n else float("nan")


def elo_difference(p: float) -> float:
    """The Elo difference that makes the expected score ``p``.

    Infinite at 0 and 1: a clean sweep says nothing about the size of the gap.
    """
    if p <= 0.0:
        return -math.inf
    if p >= 1.0:
        return math.inf
    return 400.0 * math.log10(p / (1.0 - p))


@dataclass
class Tally:
    """Wins, draws and losses of one side, with its move statistics."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    moves: int = 0  # moves this side chose (opening plies excluded)
    nodes: int = 0
    ms: float = 0.0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    @property
    def score(self) -> float:
        return score(self.wins, self.draws, self.losses)

    @property
    def interval(self) -> Interval:
        return wilson(self.points, self.games)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else float("nan")

    @property
    def win_interval(self) -> Interval:
        return wilson(self.wins, self.games)

    @property
    def mean_nodes(self) -> float:
        return self.nodes / self.moves if self.moves else 0.0

    @property
    def mean_ms(self) -> float:
        return self.ms / self.moves if self.moves else 0.0

    def add_result(self, result: float) -> None:
        """1 win, 0.5 draw, 0 loss."""
        if result == 1:
            self.wins += 1
        elif result == 0:
            self.losses += 1
        elif result == 0.5:
            self.draws += 1
        else:
            raise ValueError(f"a game result is 1, 0.5 or 0, got {result!r}")

    def add_moves(self, moves: int, nodes: int, ms: float) -> None:
        self.moves += moves
        self.nodes += nodes
        self.ms += ms

    def merge(self, other: Tally) -> Tally:
        return Tally(
            self.wins + other.wins,
            self.draws + other.draws,
            self.losses + other.losses,
            self.moves + other.moves,
            self.nodes + other.nodes,
            self.ms + other.ms,
        )

    def to_json(self) -> dict:
        iv = self.interval
        return {
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "games": self.games,
            "score": None if not self.games else self.score,
            "score_95": iv.as_list(),
            "win_rate": None if not self.games else self.win_rate,
            "win_rate_95": self.win_interval.as_list(),
            "moves": self.moves,
            "mean_nodes": self.mean_nodes,
            "mean_ms": self.mean_ms,
        }
