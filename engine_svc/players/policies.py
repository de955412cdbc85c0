"""Opponent policies: what a player of the ladder plays, as a distribution.

A :class:`Policy` answers ``distribution(pos)``: every column the player may
play in ``pos`` with its probability (summing to 1). The regime players
(:mod:`.regimes`) search against one: ``expectimax`` against a model of
greedy with 20 % random moves, ``clairvoyant:SPEC`` against the actual policy
of the player SPEC. Only players whose distribution can be computed exactly
have one (:func:`policy_for`): a player that draws its moves from its seed
in a way no one can write down (``mcts:N``), or depends on the clock
(``engine``), has none.
"""

from __future__ import annotations

import numpy as np

from connect4.geometry import Geometry
from connect4.wide import kernel_board

Distribution = list[tuple[int, float]]


class Policy:
    name = ""

    def distribution(self, pos) -> Distribution:  # pragma: no cover - interface
        raise NotImplementedError


class UniformPolicy(Policy):
    """``random``: every legal column alike."""

    name = "random"

    def distribution(self, pos) -> Distribution:
        legal = pos.legal_moves()
        return [(c, 1.0 / len(legal)) for c in legal]


class NoisyGreedyPolicy(Policy):
    """Greedy's column, except with probability ``rate`` a uniformly random
    legal column (which may be greedy's too): ``greedy`` at rate 0."""

    def __init__(self, geometry: Geometry, rate: float, name: str):
        from .ladder import GreedyPlayer

        self.rate = rate
        self.name = name
        self.greedy = GreedyPlayer("greedy", geometry)

    def distribution(self, pos) -> Distribution:
        choice = self.greedy._choose(pos, None, None).column
        legal = pos.legal_moves()
        return [(c, self.rate / len(legal) + (1.0 - self.rate if c == choice else 0.0)) for c in legal]


class MinimaxPolicy(Policy):
    """``minimax:D``, ``easy``, ``medium``, ``hard``: with probability
    ``blunder`` a uniformly random legal column, else one of the best columns
    of the depth-D search, each alike (the player draws ties at random)."""

    def __init__(self, player):
        self.player = player
        self.name = player.spec

    def distribution(self, pos) -> Distribution:
        p = self.player
        legal = pos.legal_moves()
        values = np.full(p.geometry.width, np.iinfo(np.int64).min, dtype=np.int64)
        nodes = np.zeros(2, dtype=np.int64)
        g = pos.geometry
        p.kernels.root_values(kernel_board(pos.current, g), kernel_board(pos.mask, g), p.depth, p.weights, values,
                              nodes)
        best = max(int(values[c]) for c in legal)
        ties = [c for c in legal if values[c] == best]
        return [(c, p.blunder / len(legal) + ((1.0 - p.blunder) / len(ties) if c in ties else 0.0)) for c in legal]


class DeterministicPolicy(Policy):
    """A player whose move depends on the position only: its column, for sure."""

    def __init__(self, player):
        self.player = player
        self.name = player.spec

    def distribution(self, pos) -> Distribution:
        return [(self.player._choose(pos, None, None).column, 1.0)]


def policy_for(spec: str, geometry: Geometry) -> Policy:
    """The policy of the ladder player ``spec`` (a canonical spec the ladder
    accepts); ValueError naming the players that have one for any other."""
    from . import make_player

    name = spec.partition(":")[0]
    if name == "random":
        return UniformPolicy()
    if name in ("greedy", "noisy_greedy"):
        player = make_player(spec, geometry)
        return NoisyGreedyPolicy(geometry, getattr(player, "rate", 0.0), spec)
    if name in ("easy", "medium", "hard", "minimax"):
        return MinimaxPolicy(make_player(spec, geometry))
    if name in DETERMINISTIC:
        return DeterministicPolicy(make_player(spec, geometry))
    raise ValueError(f"clairvoyant cannot know the policy of {spec!r}: it knows "
                     f"{', '.join(KNOWN_POLICIES)}")


DETERMINISTIC = ("gated", "search", "solver", "alphabeta", "expectimax")
KNOWN_POLICIES = ("random", "greedy", "noisy_greedy[:P]", "easy", "medium", "hard", "minimax:D", *DETERMINISTIC)
