"""The regime players: three 3-ply searches that differ only in what they
assume of the opponent, and the noisy greedy player they are measured against.

* ``alphabeta``: the opponent plays its worst reply for us (minimax, with
  alpha-beta pruning);
* ``expectimax``: the opponent is greedy with 20 % random moves (the
  expectation over that model at the opponent's ply);
* ``clairvoyant:SPEC``: the opponent's actual policy, the player SPEC's
  distribution of moves (:mod:`.policies`), a benchmark no real player can
  match, since a real player does not know whom it plays. In a match or the
  arena a bare ``clairvoyant`` is bound to its opponent
  (:func:`bind_opponent`); over the engine service the spec names it;
* ``noisy_greedy``: greedy, except 20 % of its moves (``noisy_greedy:P``: P %)
  are a uniformly random legal column, drawn from the seed.

The three searches look 3 plies ahead (our move, the reply, our next move)
and score what they reach from our side: a win whose last stone is stone
``n`` scores ``MATE + CELLS + 1 - n`` (sooner is better; a loss the
negative), a full board 0, any other position the leaf value of the
``search`` player (:func:`engine_svc.players.counted`: winning cells and
central stones). The best column wins, centre first on ties (values within
1e-9 count as equal, so a sum's rounding never decides); none draws at random.
"""

from __future__ import annotations

import numpy as np

from ..result import SearchResult
from ..scores import MATE
from .counted import WINNING_CELL
from .ladder import GreedyPlayer, Player
from .policies import NoisyGreedyPolicy, Policy

PLIES = 3
EXPECTIMAX_RATE = 0.20
TIE = 1e-9


def leaf_for(pos, me: int) -> int:
    """The leaf value of ``pos`` (not over) from player ``me``'s side: the
    ``search`` player's (:func:`.counted` ``leaf_value``), on Python integers
    so it runs on every board, past 64 bits too."""
    g = pos.geometry
    centre = _centre_mask(g)
    score = 0
    for player, sign in ((me, 1), (1 - me, -1)):
        cells = pos.winning_cells(player)  # empty cells only
        score += sign * (WINNING_CELL * cells.bit_count() + (pos.stones(player) & centre).bit_count())
    return score


def _centre_mask(g) -> int:
    mask = 0
    for c in {(g.width - 1) // 2, g.width // 2}:  # one central column, or both middle ones on even widths
        mask |= g.column_mask(c)
    return mask


def end_value(pos, me: int) -> int:
    """The value of a finished game from ``me``'s side."""
    if pos.winner is None:
        return 0
    v = MATE + pos.geometry.cells + 1 - pos.ply
    return v if pos.winner == me else -v


class ThreePlyPlayer(Player):
    """A 3-ply search; ``model`` None assumes the worst reply, else the
    expectation over the model's distribution."""

    def __init__(self, spec, geometry, seed=0, model: Policy | None = None, family: str = "alphabeta"):
        super().__init__(spec, geometry, seed)
        self.model = model
        self.family = family
        self.nodes = 0  # positions the last move looked at (the model's own choices not counted)

    def column_values(self, pos) -> dict[int, float]:
        """The value of every legal column from the side to move's view."""
        me = pos.to_move
        self.nodes = 0
        values: dict[int, float] = {}
        for c in pos.legal_moves():
            child = pos.played(c)
            values[c] = self._value(child, PLIES - 1, me, -np.inf, np.inf)
        return values

    def _value(self, pos, depth: int, me: int, alpha: float, beta: float) -> float:
        self.nodes += 1
        if pos.is_over:
            return end_value(pos, me)
        if depth == 0:
            return leaf_for(pos, me)
        if pos.to_move == me:
            best = -np.inf
            for c in _centre_first(pos):
                best = max(best, self._value(pos.played(c), depth - 1, me, alpha, beta))
                if self.model is None:
                    alpha = max(alpha, best)
                    if alpha >= beta:
                        break
            return best
        if self.model is not None:
            return sum(p * self._value(pos.played(c), depth - 1, me, -np.inf, np.inf)
                       for c, p in self.model.distribution(pos) if p > 0)
        worst = np.inf
        for c in _centre_first(pos):
            worst = min(worst, self._value(pos.played(c), depth - 1, me, alpha, beta))
            beta = min(beta, worst)
            if alpha >= beta:
                break
        return worst

    def _choose(self, pos, budget_ms, on_progress, cancel=None):
        values = self.column_values(pos)
        best = max(values.values())
        col = next(c for c in _centre_first(pos) if values[c] >= best - TIE)
        score = int(round(best))
        return SearchResult(column=col, score=score, depth=PLIES, nodes=self.nodes,
                            message=f"3 plies against {self.model.name if self.model else 'the worst reply'}")


def _centre_first(pos) -> list[int]:
    return [c for c in pos.geometry.center_order() if pos.can_play(c)]


class NoisyGreedyPlayer(Player):
    """Greedy, except with probability ``rate`` a uniformly random legal column (seeded)."""

    family = "noisy_greedy"

    def __init__(self, spec, geometry, seed=0, rate: float = EXPECTIMAX_RATE):
        super().__init__(spec, geometry, seed)
        self.rate = rate
        self.greedy = GreedyPlayer("greedy", geometry, seed)

    def _choose(self, pos, budget_ms, on_progress, cancel=None):
        legal = pos.legal_moves()
        if self.rate and self.rng.random() < self.rate:
            return SearchResult(column=int(legal[self.rng.integers(len(legal))]), message="random move")
        return self.greedy._choose(pos, None, None)


def expectimax_model(geometry) -> Policy:
    return NoisyGreedyPolicy(geometry, EXPECTIMAX_RATE, f"greedy with {EXPECTIMAX_RATE:.0%} random moves")


def bind_opponent(spec: str, opponent: str) -> str:
    """A bare ``clairvoyant`` playing ``opponent`` becomes ``clairvoyant:OPPONENT``
    (a match knows whom it plays); any other spec is returned unchanged."""
    if spec.strip().lower() == "clairvoyant":
        return f"clairvoyant:{opponent.strip()}"
    return spec
