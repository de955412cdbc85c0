"""The regime players against brute force: alphabeta is a plain 3-ply minimax,
expectimax and clairvoyant are plain 3-ply expectations under their opponent
model, all with a leaf value recomputed cell by cell; noisy_greedy's random
moves are exactly the seeds' draws."""

from __future__ import annotations

import random

import numpy as np
import pytest

from connect4 import Geometry, Position
from engine_svc.players import InvalidSpec, bind_opponent, list_players, make_player, parse_spec
from engine_svc.players.counted import WINNING_CELL
from engine_svc.players.ladder import GreedyPlayer
from engine_svc.players.policies import policy_for
from engine_svc.scores import MATE

from .reference import all_lines, grid_after

SIZES = [Geometry(7, 6, 4), Geometry(5, 4, 3), Geometry(6, 5, 4)]


def random_positions(g: Geometry, n: int, seed: int, lo: int = 2, hi: int = 20):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        pos = Position(g)
        for _ in range(rng.randint(lo, min(hi, g.cells - 2))):
            if pos.is_over:
                break
            pos.play(rng.choice(pos.legal_moves()))
        if not pos.is_over:
            out.append(pos)
    return out


def reference_leaf(pos: Position, me: int) -> int:
    """Winning cells (empty cells completing one of a side's lines) x WINNING_CELL,
    plus central stones, each side's minus the other's, by a scan of every line."""
    g = pos.geometry
    grid = grid_after(pos.moves, g)
    cells = {0: set(), 1: set()}
    for line in all_lines(g):
        empty = [(x, y) for x, y in line if grid[x][y] is None]
        if len(empty) == 1:
            owners = {grid[x][y] for x, y in line if grid[x][y] is not None}
            if len(owners) == 1:
                cells[owners.pop()].add(empty[0])
    centre = {(g.width - 1) // 2, g.width // 2}
    stones = {p: sum(grid[c][r] == p for c in centre for r in range(g.height)) for p in (0, 1)}
    score = {p: WINNING_CELL * len(cells[p]) + stones[p] for p in (0, 1)}
    return score[me] - score[1 - me]


def reference_end(pos: Position, me: int) -> int:
    if pos.winner is None:
        return 0
    v = MATE + pos.geometry.cells + 1 - pos.ply
    return v if pos.winner == me else -v


def brute(pos: Position, depth: int, me: int, reply) -> float:
    """Every line of play to ``depth`` plies: max on our moves, ``reply`` (a
    function of the children's values by column) on the opponent's."""
    if pos.is_over:
        return reference_end(pos, me)
    if depth == 0:
        return reference_leaf(pos, me)
    children = {c: brute(pos.played(c), depth - 1, me, reply) for c in pos.legal_moves()}
    if pos.to_move == me:
        return max(children.values())
    return reply(pos, children)


def worst(pos, children):
    return min(children.values())


def greedy_reply(rate):
    def reply(pos, children):
        choice = GreedyPlayer("greedy", pos.geometry)._choose(pos, None, None).column
        return sum((rate / len(children) + (1 - rate if c == choice else 0)) * v for c, v in children.items())
    return reply


def best_column(pos, values):
    best = max(values.values())
    return next(c for c in pos.geometry.center_order() if c in values and values[c] >= best - 1e-9)


def check_against_brute(spec: str, reply, g: Geometry, n: int, seed: int) -> None:
    player = make_player(spec, g)
    for pos in random_positions(g, n, seed):
        me = pos.to_move
        want = {c: brute(pos.played(c), 2, me, reply) for c in pos.legal_moves()}
        got = player.column_values(pos)
        assert got.keys() == want.keys()
        for c in want:
            assert got[c] == pytest.approx(want[c], rel=1e-12, abs=1e-9), (pos.moves, c)
        assert player.choose(pos).column == best_column(pos, want), pos.moves


@pytest.mark.parametrize("g", SIZES, ids=lambda g: g.name)
def test_alphabeta_equals_a_brute_force_3_ply_minimax(g):
    check_against_brute("alphabeta", worst, g, 25, 11)


@pytest.mark.parametrize("g", SIZES, ids=lambda g: g.name)
def test_expectimax_equals_the_brute_force_expectation_under_greedy_with_20_percent_random(g):
    check_against_brute("expectimax", greedy_reply(0.2), g, 20, 12)


def test_clairvoyant_against_greedy_expects_greedys_own_move():
    check_against_brute("clairvoyant:greedy", greedy_reply(0.0), Geometry(), 20, 13)


def test_clairvoyant_against_noisy_greedy_is_expectimax():
    # noisy_greedy is exactly the model expectimax assumes: the two agree column by column
    check_against_brute("clairvoyant:noisy_greedy", greedy_reply(0.2), Geometry(), 10, 14)
    check_against_brute("clairvoyant:noisy_greedy:50", greedy_reply(0.5), Geometry(), 10, 15)


def test_clairvoyant_against_a_deterministic_player_expects_its_move():
    def gated_reply(pos, children):
        return children[make_player("gated").choose(pos).column]
    check_against_brute("clairvoyant:gated", gated_reply, Geometry(), 8, 16)


@pytest.mark.parametrize("spec", ["minimax:3", "easy"])
def test_the_minimax_policy_is_what_the_player_draws_over_seeds(spec):
    g = Geometry()
    policy = policy_for(spec, g)
    for pos in random_positions(g, 6, 17):
        dist = dict(policy.distribution(pos))
        assert sum(dist.values()) == pytest.approx(1.0)
        drawn = {make_player(spec, g, seed=s).choose(pos).column for s in range(150)}
        assert drawn == {c for c, p in dist.items() if p > 0}, pos.moves


def test_noisy_greedy_plays_random_exactly_when_its_seed_says_so():
    pos = Position.parse("4453")
    greedy = make_player("greedy").choose(pos).column
    legal = pos.legal_moves()
    randoms = 0
    for seed in range(1000):
        rng = np.random.default_rng(seed)
        is_random = rng.random() < 0.2
        want = int(legal[rng.integers(len(legal))]) if is_random else greedy
        r = make_player("noisy_greedy", seed=seed).choose(pos)
        assert r.column == want, seed
        assert (r.message == "random move") == is_random
        randoms += is_random
    assert 160 <= randoms <= 240  # 20 % of 1000, within about 3 standard deviations
    assert all(make_player("noisy_greedy:0", seed=s).choose(pos).column == greedy for s in range(50))
    assert sum(make_player("noisy_greedy:100", seed=s).choose(pos).message == "random move" for s in range(50)) == 50


@pytest.mark.parametrize("spec", ["noisy_greedy", "alphabeta", "expectimax", "clairvoyant:greedy",
                                  "clairvoyant:minimax:3", "search", "solver"])
def test_every_new_player_replays_the_same_game_given_its_seed(spec):
    def game(seed):
        pos = Position.parse("44")
        a, b = make_player(spec, seed=seed), make_player("noisy_greedy", seed=seed + 1)
        while not pos.is_over:
            pos.play((a if pos.ply % 2 == 0 else b).choose(pos).column)
        return pos.moves

    assert game(3) == game(3)


@pytest.mark.parametrize("spec,expected", [
    ("noisy_greedy", ("noisy_greedy", None)), ("noisy_greedy:35", ("noisy_greedy", 35)),
    ("alphabeta", ("alphabeta", None)), ("expectimax", ("expectimax", None)), ("search", ("search", None)),
    ("solver", ("solver", None)), ("clairvoyant", ("clairvoyant", None)),
    ("clairvoyant:greedy", ("clairvoyant", "greedy")), ("Clairvoyant:Minimax:4", ("clairvoyant", "minimax:4")),
    ("clairvoyant:noisy_greedy", ("clairvoyant", "noisy_greedy")),
])
def test_new_specs_parse(spec, expected):
    assert parse_spec(spec) == expected


@pytest.mark.parametrize("spec,needle", [
    ("noisy_greedy:101", "0..100"), ("noisy_greedy:x", "whole number"), ("alphabeta:3", "takes no parameter"),
    ("clairvoyant", "needs its opponent"), ("clairvoyant:engine", "cannot know the policy"),
    ("clairvoyant:mcts:100", "cannot know the policy"), ("clairvoyant:clairvoyant:greedy", "cannot know"),
    ("clairvoyant:wizard", "unknown player"), ("clairvoyant:minimax:13", "1..12"),
])
def test_bad_new_specs_are_rejected(spec, needle):
    with pytest.raises(InvalidSpec, match=needle):
        make_player(spec)


def test_a_match_binds_a_bare_clairvoyant_to_its_opponent():
    assert bind_opponent("clairvoyant", "noisy_greedy") == "clairvoyant:noisy_greedy"
    assert bind_opponent(" Clairvoyant ", "greedy") == "clairvoyant:greedy"
    assert bind_opponent("clairvoyant:greedy", "hard") == "clairvoyant:greedy"
    assert bind_opponent("greedy", "hard") == "greedy"


def test_the_new_players_are_listed_after_the_learned_ones():
    families = [p.family for p in list_players()]
    tail = families[families.index("engine") + 2:]
    new = [f for f in tail if f not in ("dqn", "net", "az")]
    assert sorted(new) == sorted(["noisy_greedy", "alphabeta", "expectimax", "clairvoyant", "search", "solver"])
    assert tail[-len(new):] == new


@pytest.mark.parametrize("g", [Geometry(8, 8), Geometry(9, 7, 5)], ids=lambda g: g.name)
def test_the_regime_and_counted_players_play_past_64_bits(g):
    assert g.wide
    for pos in random_positions(g, 3, 21, hi=12):
        assert player_leaf(pos) == reference_leaf(pos, pos.to_move)
    for spec in ("noisy_greedy", "alphabeta", "expectimax", "clairvoyant:greedy", "clairvoyant:minimax:2"):
        player, other = make_player(spec, g, seed=1), make_player("greedy", g, seed=2)
        pos = Position(g)
        while not pos.is_over and pos.ply < 16:
            pos.play((player if pos.ply % 2 == 0 else other).choose(pos).column)
    pos = random_positions(g, 1, 22, hi=10)[0]
    want = {c: brute(pos.played(c), 2, pos.to_move, worst) for c in pos.legal_moves()}
    assert make_player("alphabeta", g).column_values(pos) == pytest.approx(want)
    for spec in ("search", "solver", "clairvoyant:search"):
        assert make_player(spec, g).geometry == g  # they play here too (tests/engine/test_counted_wide.py)


def player_leaf(pos):
    from engine_svc.players.regimes import leaf_for

    return leaf_for(pos, pos.to_move)
