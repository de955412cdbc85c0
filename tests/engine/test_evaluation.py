"""The incremental evaluation equals plain full scans after every move of random playouts."""

import random

import numpy as np
import pytest

from connect4 import STANDARD, Geometry, Position
from engine_svc.evaluation import eval_kernels, evaluate, line_tables

from .reference import grid_after, line_score, threat_term, threats

GEOMETRIES = [Geometry(7, 6, 4), Geometry(6, 5, 4), Geometry(8, 7, 5), Geometry(5, 4, 3)]


@pytest.mark.parametrize("g", GEOMETRIES, ids=lambda g: g.name)
def test_incremental_line_score_matches_full_scan(g):
    ek = eval_kernels(g)
    rng = random.Random(7)
    for _ in range(12):
        pos = Position(g)
        # int64 states at an offset, as the search keeps them
        lst = np.zeros(line_tables(g).n_lines + 3, dtype=np.int64)[3:]
        score = int(ek.init_lines(lst, 0, np.uint64(0), np.uint64(0)))
        assert score == 0
        history = []
        heights = [0] * g.width
        while not pos.is_over:
            col = rng.choice(pos.legal_moves())
            cell = col * g.h1 + heights[col]
            side = pos.to_move
            delta = int(ek.play_lines(lst, 0, cell, side))
            history.append((cell, side, delta))
            heights[col] += 1
            score += delta
            pos.play(col)
            assert score == line_score(grid_after(pos.moves, g), g), pos
        fresh = np.zeros_like(lst)  # the full-scan init agrees with the incremental states
        assert int(ek.init_lines(fresh, 0, np.uint64(pos.stones(0)), np.uint64(pos.stones(1)))) == score
        assert (fresh == lst).all()
        for cell, side, delta in reversed(history):  # undo restores every line state
            ek.undo_lines(lst, 0, cell, side)
            score -= delta
        assert score == 0 and not lst.any()


@pytest.mark.parametrize("g", GEOMETRIES, ids=lambda g: g.name)
def test_threat_term_matches_full_scan(g):
    ek = eval_kernels(g)
    rng = random.Random(11)
    seen_nonzero = 0
    for _ in range(15):
        pos = Position(g)
        while not pos.is_over:
            pos.play(rng.choice(pos.legal_moves()))
            grid = grid_after(pos.moves, g)
            first, second = np.uint64(pos.stones(0)), np.uint64(pos.stones(1))
            mask = np.uint64(pos.mask)
            wf, ws = ek.winning_cells(first, mask), ek.winning_cells(second, mask)
            def cells(bb):
                return {(c, r) for c in range(g.width) for r in range(g.height) if int(bb) & g.cell_bit(c, r)}
            assert cells(wf) == threats(grid, 0, g)
            assert cells(ws) == threats(grid, 1, g)
            term = int(ek.threat_term(np.uint64(wf), np.uint64(ws)))
            assert term == threat_term(grid, g), pos
            seen_nonzero += term != 0
    assert seen_nonzero > 10  # the playouts did exercise the term


def _term(moves, g=STANDARD):
    pos = Position.from_moves(moves, g)
    return evaluate(pos).threat_score


def test_parity_weights():
    # F a1 b1 c1 under S a2 b2: F threatens d1, row 1 (odd, F's parity): +24.
    assert _term([0, 0, 1, 1, 2]) == 24
    # S a1 b1 c1 (F a2 b2 c2 above, F g1 first): S threatens d1, row 1 (odd, not S's
    # parity): -6; F's d2 sits above it in the same column and does not count.
    assert _term([6, 0, 0, 1, 1, 2, 2]) == -6
    # F d1 first, then S a1 b1 c1 under F a2 b2 c2: F's d2 is the column's lowest
    # threat, on an even row (off F's parity): +6.
    assert _term([3, 0, 0, 1, 1, 2, 2]) == 6
    # F a1 b1 c1 f1 under S a2 b2 c2, S d1: S's d2, even row (S's parity): -24.
    assert _term([0, 0, 1, 1, 2, 2, 5, 3]) == -24


def test_shared_threat_goes_to_parity_owner():
    g = Geometry(7, 6, 4)
    grid = [[None] * 6 for _ in range(7)]
    for c in range(3):
        grid[c][0] = 1  # S a1 b1 c1
        grid[c][1] = 0  # F a2 b2 c2
    grid[3][0] = 1      # S d1: column d starts at d2
    for c in range(4, 7):
        grid[c][0] = 0  # F e1 f1 g1
        grid[c][1] = 1  # S e2 f2 g2
    # d2 completes F's a2..c2 and S's e2..g2: shared, row 2 is even -> S, weight 24.
    assert threat_term(grid, g) == -24
    ek = eval_kernels(g)
    first = sum(g.cell_bit(c, r) for c in range(7) for r in range(6) if grid[c][r] == 0)
    second = sum(g.cell_bit(c, r) for c in range(7) for r in range(6) if grid[c][r] == 1)
    mask = np.uint64(first | second)
    wf = ek.winning_cells(np.uint64(first), mask)
    ws = ek.winning_cells(np.uint64(second), mask)
    assert int(ek.threat_term(wf, ws)) == -24
