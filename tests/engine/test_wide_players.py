"""The ladder on boards past 64 bits. Oracle: the multi-word players run on any
board, so on 64-bit boards they must equal the single-word ones move for move
(minimax values, mcts visit counts for one seed, the evaluation, greedy's line
score, the engine's fixed-depth score); then every ladder player plays whole
games on 8x8, 9x7 and 16x16."""

from __future__ import annotations

import random

import numpy as np
import pytest

from connect4 import Geometry, Position
from connect4.wide import to_words
from engine_svc.evaluation import eval_kernels
from engine_svc.mcts import mcts_kernels
from engine_svc.minimax import BLOCKER, CASUAL, minimax_kernels, weights_array
from engine_svc.players import InvalidSpec, make_player
from engine_svc.players.ladder import own_line_score
from engine_svc.wide_evaluation import wide_eval_kernels, wide_own_line_score


NARROW = [Geometry(7, 6), Geometry(6, 5, 3)]


def _positions(g: Geometry, n: int, seed: int):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        pos = Position(g)
        for _ in range(rng.randrange(2, g.cells // 2)):
            if pos.is_over:
                break
            pos.play(rng.choice(pos.legal_moves()))
        if not pos.is_over:
            out.append(pos)
    return out


@pytest.mark.parametrize("g", NARROW, ids=lambda g: g.name)
def test_the_wide_players_equal_the_single_word_ones_on_64_bit_boards(g):
    narrow_mm, wide_mm = minimax_kernels(g), minimax_kernels(g, column_words=True)
    narrow_mc, wide_mc = mcts_kernels(g), mcts_kernels(g, column_words=True)
    narrow_ev, wide_ev = eval_kernels(g), wide_eval_kernels(g)
    for pos in _positions(g, 12, seed=g.cells):
        cur, mask = pos.current, pos.mask
        for weights in (CASUAL, BLOCKER):
            w = weights_array(weights)
            a = np.full(g.width, -1, dtype=np.int64)
            b = a.copy()
            na, nb = np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64)
            narrow_mm.root_values(np.uint64(cur), np.uint64(mask), 4, w, a, na)
            wide_mm.root_values(to_words(cur, g), to_words(mask, g), 4, w, b, nb)
            assert a.tolist() == b.tolist() and na[0] == nb[0], pos.moves
        va, vb = np.zeros(g.width, dtype=np.int64), np.zeros(g.width, dtype=np.int64)
        stop = np.zeros(1, dtype=np.uint8)
        narrow_mc.search(np.uint64(cur), np.uint64(mask), pos.ply, 200, 7, 1.5, va, stop)
        wide_mc.search(to_words(cur, g), to_words(mask, g), pos.ply, 200, 7, 1.5, vb, stop)
        assert va.tolist() == vb.tolist(), pos.moves
        first, second = pos.stones(0), pos.stones(1)
        assert tuple(int(x) for x in narrow_ev.static_eval(np.uint64(first), np.uint64(second))) == \
            tuple(int(x) for x in wide_ev.static_eval(to_words(first, g), to_words(second, g)))
        assert own_line_score(first, second, g) == wide_own_line_score(first, second, g)


LADDER = ["random", "easy", "greedy", "medium", "gated", "minimax:3", "hard", "mcts:200", "engine:50"]


@pytest.mark.parametrize("g", [Geometry(8, 8), Geometry(9, 7), Geometry(16, 16)], ids=lambda g: g.name)
def test_every_ladder_player_plays_whole_games_on_large_boards(g):
    for spec in LADDER:
        player = make_player(spec, geometry=g, seed=3)
        other = make_player("greedy", geometry=g, seed=4)
        pos = Position(g)
        while not pos.is_over and pos.ply < 40:
            mover = player if pos.ply % 2 == 0 else other
            r = mover.choose(pos)
            assert pos.can_play(r.column), (spec, pos.moves, r)
            pos.play(r.column)
        assert pos.ply >= 7 or pos.winner is not None, spec
    # a player that has won takes the win, on the widest board too
    last = g.width - 1
    three = Position.from_moves([0, last, 0, last, 0, last], g)
    for spec in ("greedy", "minimax:2", "engine:50", "gated"):
        assert make_player(spec, geometry=g, seed=0).choose(three).column == 0, spec


def test_the_learned_players_say_they_play_7x6_only():
    with pytest.raises(InvalidSpec, match="7x6 only, not 8x8"):
        make_player("net", geometry=Geometry(8, 8), seed=0)
