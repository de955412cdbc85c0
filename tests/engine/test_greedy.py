"""greedy, checked against a plain cell-by-cell reference of its definition:
wins now, else blocks, else never plays under the opponent's winning cell,
else the best line score (its own lines) after the move, centre first."""

import random

import pytest

from connect4 import Geometry, Position
from engine_svc.players import make_player
from engine_svc.players.ladder import own_line_score

from .reference import grid_after, line_score, own_line_score as reference_own_line_score, threats

GEOMETRIES = [Geometry(7, 6, 4), Geometry(6, 5, 4), Geometry(5, 4, 3)]


def random_positions(g: Geometry, count: int, seed: int):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = Position(g)
        for _ in range(rng.randrange(g.cells - 1)):
            pos.play(rng.choice(pos.legal_moves()))
            if pos.is_over:
                break
        if not pos.is_over:
            out.append(pos)
    return out


def reference_greedy(pos: Position, two_sided: bool = False) -> int:
    g = pos.geometry
    grid = grid_after(pos.moves, g)
    me, them = pos.to_move, 1 - pos.to_move
    landing = {c: (c, grid[c].index(None)) for c in pos.legal_moves()}
    order = [c for c in g.center_order() if c in landing]
    mine, theirs = threats(grid, me, g), threats(grid, them, g)
    for targets in (mine, theirs):
        hits = [c for c in order if landing[c] in targets]
        if hits:
            return hits[0]
    safe = [c for c in order if (c, landing[c][1] + 1) not in theirs] or order

    def score(c):
        x, y = landing[c]
        grid[x][y] = me
        s = line_score(grid, g) * (1 if me == 0 else -1) if two_sided else reference_own_line_score(grid, me, g)
        grid[x][y] = None
        return s

    scores = {c: score(c) for c in safe}
    best = max(scores.values())
    return next(c for c in safe if scores[c] == best)


@pytest.mark.parametrize("g", GEOMETRIES, ids=lambda g: g.name)
def test_own_line_score_matches_a_full_scan(g):
    for pos in random_positions(g, 60, seed=3):
        grid = grid_after(pos.moves, g)
        first, second = pos.stones(0), pos.stones(1)
        assert own_line_score(first, second, g) == reference_own_line_score(grid, 0, g)
        assert own_line_score(second, first, g) == reference_own_line_score(grid, 1, g)
        # the two halves make the engine's signed line-count score
        assert own_line_score(first, second, g) - own_line_score(second, first, g) == line_score(grid, g)


@pytest.mark.parametrize("g", GEOMETRIES, ids=lambda g: g.name)
def test_greedy_follows_its_definition(g):
    greedy = make_player("greedy", geometry=g)
    differ = 0
    for pos in random_positions(g, 150, seed=11):
        assert greedy.choose(pos).column == reference_greedy(pos), pos.moves
        differ += reference_greedy(pos) != reference_greedy(pos, two_sided=True)
    assert differ  # the sample tells its own line score from the two-sided one


def test_greedy_scores_its_own_lines_not_the_opponents():
    # S to move after 5542444: d builds S's own lines most (own score 23, two-sided 2);
    # e spoils more of F's lines (own 20, two-sided 4). Greedy builds: d.
    pos = Position.parse("5542444")
    assert reference_greedy(pos) == 3 and reference_greedy(pos, two_sided=True) == 4
    assert make_player("greedy").choose(pos).column == 3
