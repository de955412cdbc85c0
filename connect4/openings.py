"""Random playable openings, the start of every match between players.

An opening is a list of ``plies`` random legal moves (0-based columns) from
the empty board. Openings never end the game, never leave the side to move an
immediate win (that game would be decided by the dice, not by the players)
and are distinct positions (up to transposition and mirror image) as long as
enough exist. ``arena`` and ``c4 match`` draw theirs here, so one seed gives
both the same openings.
"""

from __future__ import annotations

import random

from .geometry import STANDARD, Geometry
from .position import Position


def random_openings(count: int, plies: int, seed: int, geometry: Geometry = STANDARD) -> list[list[int]]:
    """``count`` openings of ``plies`` random moves each (0-based columns), reproducible from ``seed``."""
    if count < 0 or plies < 0:
        raise ValueError("count and plies must be >= 0")
    if plies >= geometry.cells:
        raise ValueError(f"an opening of {plies} plies fills a {geometry.name} board")
    rng = random.Random(seed)
    openings: list[list[int]] = []
    seen: set[int] = set()
    attempts = 0
    while len(openings) < count:
        attempts += 1
        moves = _one(rng, plies, geometry)
        if moves is None:
            if attempts > 1000 * (count + 1):
                raise ValueError(f"cannot draw {count} playable openings of {plies} plies")
            continue
        # Distinct positions (transpositions and mirror images count as one)
        # while plenty remain; a tiny opening space (0 or 1 ply) repeats.
        key = Position.from_moves(moves, geometry).canonical_key()
        if key in seen and attempts < 50 * (count + 1):
            continue
        seen.add(key)
        openings.append(moves)
    return openings


def _one(rng: random.Random, plies: int, g: Geometry) -> list[int] | None:
    pos = Position(g)
    for _ in range(plies):
        legal = pos.legal_moves()
        if not legal:
            return None
        pos.play(rng.choice(legal))
        if pos.is_over:
            return None
    if pos.can_win_next():
        return None
    return list(pos.moves)


def decided_at_once(pos: Position) -> bool:
    """Whether the game is decided by force within the next three plies: the
    side to move can win with its next-but-one stone whatever the reply (an
    open three, say), or cannot stop the opponent winning with its next one.

    Such an opening decides its game by itself for whoever is to move after
    it, so over a pair of games two players who see three plies ahead take
    one each, whatever their strength."""
    if pos.is_over:
        return True
    if pos.can_win_next():
        return True
    children = [pos.played(m) for m in pos.legal_moves()]
    if all(child.can_win_next() for child in children):
        return True  # every move leaves the opponent a win
    for child in children:
        if child.is_over or child.can_win_next():
            continue  # a full board, or the opponent wins first
        if all(_wins_next(child.played(r)) for r in child.legal_moves()):
            return True
    return False


def _wins_next(pos: Position) -> bool:
    return not pos.is_over and pos.can_win_next()
