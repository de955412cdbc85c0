"""Maximum-likelihood Elo ratings from pairwise match scores.

The model is Elo's logistic curve: a player rated ``d`` points above its
opponent expects the score ``1 / (1 + 10^(-d/400))``. Draws count half a win
and half a loss (the score likelihood), so a pair (i, j) with n games in which
i scored s points contributes

    s * ln E_ij + (n - s) * ln(1 - E_ij)

to the log-likelihood. The ratings that maximise it are found by Newton's
method in natural units (``beta = r * ln 10 / 400``) with one player, the
anchor, held at 0. Intervals come from the observed information (the inverse
of the negative Hessian at the optimum): ``r_i +- 1.96 * se_i``, each
relative to the anchor.

A clean sweep (or any split of the players into a group that won every game
against the rest) pushes the maximum to infinity. ``prior_draws`` adds that
many virtual draws to every pair that played, which keeps every rating
finite and barely moves ratings backed by real results; with the default of
one draw a 100-0 sweep reads as about +920 Elo instead of infinity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .stats import Z95

ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per natural-log unit of odds


@dataclass(frozen=True)
class PairResult:
    """``a`` scored ``points`` (W + D/2) in ``games`` games against ``b``."""

    a: str
    b: str
    games: int
    points: float


@dataclass(frozen=True)
class Rating:
    player: str
    elo: float
    se: float  # standard error in Elo points, 0 for the anchor

    @property
    def low(self) -> float:
        return self.elo - Z95 * self.se

    @property
    def high(self) -> float:
        return self.elo + Z95 * self.se

    def to_json(self) -> dict:
        return {"player": self.player, "elo": self.elo, "se": self.se, "elo_95": [self.low, self.high]}


class EloError(ValueError):
    """Ratings that the data cannot determine (no games, disconnected players)."""


def difference_se(cov: np.ndarray, i: int, j: int) -> float:
    """Standard error (Elo) of rating i minus rating j from the fit's covariance."""
    return math.sqrt(max(cov[i, i] + cov[j, j] - 2 * cov[i, j], 0.0))


def fit_elo_cov(
    players: list[str],
    results: list[PairResult],
    anchor: str | None = None,
    prior_draws: float = 1.0,
    max_iter: int = 200,
) -> tuple[list[Rating], np.ndarray]:
    """The ratings and their covariance matrix in Elo^2 (the anchor's row and column are 0).

    A difference between two ratings is much better known than either rating
    against a far-away anchor: use :func:`difference_se` for it."""
    if not players:
        return [], np.zeros((0, 0))
    anchor = players[0] if anchor is None else anchor
    if anchor not in players:
        raise EloError(f"anchor {anchor!r} is not one of the players")
    if len(set(players)) != len(players):
        raise EloError("players must be distinct")
    index = {p: i for i, p in enumerate(players)}
    m = len(players)
    n = np.zeros((m, m))  # games between i and j (symmetric)
    s = np.zeros((m, m))  # points i scored against j
    for r in results:
        if r.a not in index or r.b not in index:
            raise EloError(f"result {r.a} vs {r.b} names an unknown player")
        if r.a == r.b:
            raise EloError(f"{r.a} cannot play itself in a rating fit")
        if not 0 <= r.points <= r.games:
            raise EloError(f"{r.a} vs {r.b}: {r.points} points in {r.games} games")
        i, j = index[r.a], index[r.b]
        n[i, j] += r.games
        n[j, i] += r.games
        s[i, j] += r.points
        s[j, i] += r.games - r.points
    played = n > 0
    n = n + prior_draws * played
    s = s + 0.5 * prior_draws * played
    _check_connected(players, played, index[anchor])

    free = [i for i in range(m) if i != index[anchor]]
    beta = np.zeros(m)
    if free:
        for _ in range(max_iter):
            grad, info = _gradient_information(beta, n, s)
            g, h = grad[free], info[np.ix_(free, free)]
            step = np.linalg.solve(h, g)
            # Damped Newton: the log-likelihood is concave, so halving a step
            # that overshoots always finds an ascent.
            base = _loglik(beta, n, s)
            t = 1.0
            while t > 1e-6:
                trial = beta.copy()
                trial[free] += t * step
                if _loglik(trial, n, s) >= base - 1e-12:
                    break
                t /= 2
            beta = trial
            if np.max(np.abs(t * step)) < 1e-10:
                break
        _, info = _gradient_information(beta, n, s)
        cov = np.linalg.inv(info[np.ix_(free, free)])
    full = np.zeros((m, m))
    if free:
        full[np.ix_(free, free)] = cov * ELO_PER_NAT**2
    se = np.sqrt(np.clip(np.diag(full), 0.0, None))
    ratings = [Rating(p, float(beta[i] * ELO_PER_NAT), float(se[i])) for i, p in enumerate(players)]
    return ratings, full


def _expected(beta: np.ndarray) -> np.ndarray:
    """E[i, j] = expected score of i against j."""
    diff = beta[:, None] - beta[None, :]
    return 1.0 / (1.0 + np.exp(-diff))


def _loglik(beta, n, s) -> float:
    e = np.clip(_expected(beta), 1e-300, 1.0)
    f = np.clip(1.0 - _expected(beta), 1e-300, 1.0)
    return float(np.sum(s * np.log(e) + (n - s) * np.log(f)) / 2)


def _gradient_information(beta, n, s):
    """Gradient of the log-likelihood and the observed information matrix."""
    e = _expected(beta)
    grad = np.sum(s - n * e, axis=1)
    w = n * e * (1.0 - e)
    info = -w
    np.fill_diagonal(info, np.sum(w, axis=1) - np.diag(w))
    return grad, info


def _check_connected(players, played, anchor_index) -> None:
    seen = {anchor_index}
    todo = [anchor_index]
    while todo:
        i = todo.pop()
        for j in np.nonzero(played[i])[0]:
            if j not in seen:
                seen.add(int(j))
                todo.append(int(j))
    missing = [players[i] for i in range(len(players)) if i not in seen]
    if missing:
        raise EloError(f"no chain of games links {', '.join(missing)} to {players[anchor_index]}")
