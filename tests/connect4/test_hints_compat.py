"""Hints as Connect4-rs computes them (its src/hints.rs), checked against a
brute-force reference that plays every column on a plain grid and scans the
whole board for lines: ``losing_moves`` are the columns after which the
opponent has an immediate win, whether or not a winning move exists."""

from __future__ import annotations

import random

from connect4 import Geometry, Position, hints
from tests.connect4.reference import grid_after, has_line

SIZES = [(7, 6, 4), (5, 4, 3), (8, 7, 5), (6, 5, 4), (4, 4, 3)]


def _landing(grid, col: int, g: Geometry) -> int | None:
    return grid[col].index(None) if None in grid[col] else None


def _wins_by_dropping(grid, col: int, player: int, g: Geometry) -> bool:
    row = _landing(grid, col, g)
    if row is None:
        return False
    grid[col][row] = player
    won = has_line(grid, player, g)
    grid[col][row] = None
    return won


def reference_hints(moves: list[int], g: Geometry) -> dict:
    """1-based columns, Connect4-rs's definitions, by playing and scanning."""
    grid = grid_after(moves, g)
    me = len(moves) & 1
    them = 1 - me
    cols = range(g.width)
    win = [c for c in cols if _wins_by_dropping(grid, c, me, g)]
    block = [c for c in cols if _wins_by_dropping(grid, c, them, g)]
    losing = []
    for c in cols:
        row = _landing(grid, c, g)
        if row is None:
            continue
        grid[c][row] = me
        if not has_line(grid, me, g) and any(_wins_by_dropping(grid, d, them, g) for d in cols):
            losing.append(c)
        grid[c][row] = None
    return {"winning_moves": [c + 1 for c in win], "must_block": [c + 1 for c in block],
            "losing_moves": [c + 1 for c in losing]}


def ours(pos: Position) -> dict:
    h = hints(pos)
    return {"winning_moves": [c + 1 for c in h.winning_moves], "must_block": [c + 1 for c in h.must_block],
            "losing_moves": [c + 1 for c in h.losing_moves]}


def test_losing_moves_are_listed_next_to_a_winning_move():
    # Red to move wins in column 6 and must otherwise block 1 or 2: every other
    # column (5 is full) hands yellow a win. Connect4-rs answers [1, 2, 3, 4, 7].
    pos = Position.parse("5254473431555753461272")
    assert ours(pos) == {"winning_moves": [6], "must_block": [1, 2], "losing_moves": [1, 2, 3, 4, 7]}
    assert hints(pos).next_row == [2, 3, 3, 4, None, 1, 3]  # 0-based rows inside the library


def test_connect4_rs_unit_case():
    # src/hints.rs losing_move_on_top_of_threat: red on 2, 3, 4 of the bottom row
    # with 1 and 5 open; yellow must block at 1 or 5, anything else loses.
    h = ours(Position.parse("22334"))
    assert h["must_block"] == [1, 5] and h["winning_moves"] == []
    assert h["losing_moves"] == [1, 2, 3, 4, 5, 6, 7]  # two threats: even a block loses


def test_a_winning_move_under_a_threat_is_not_losing():
    # Red on 1, 2, 3 of the bottom row, yellow on 1, 2, 3 of the row above: red
    # (to move) wins in 4, right under yellow's winning cell. Winning ends the
    # game, so 4 is not a losing move; nothing else hands yellow a win.
    h = ours(Position.parse("112233"))
    assert h == {"winning_moves": [4], "must_block": [], "losing_moves": []}


def random_positions(count: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        w, hgt, k = rng.choice(SIZES)
        g = Geometry(w, hgt, k)
        pos = Position(g)
        for _ in range(rng.randrange(0, w * hgt)):
            legal = pos.legal_moves()
            if not legal:
                break
            col = rng.choice(legal)
            if pos.played(col).is_over:
                break  # keep positions where the game goes on
            pos.play(col)
        yield g, pos


def test_hints_agree_with_brute_force_on_random_positions():
    seen = {"win_and_losing": 0, "block_and_losing": 0, "losing": 0}
    for g, pos in random_positions(600, seed=2024):
        want = reference_hints(pos.moves, g)
        assert ours(pos) == want, f"{g.width}x{g.height} k={g.k} moves {[c + 1 for c in pos.moves]}"
        seen["losing"] += bool(want["losing_moves"])
        seen["win_and_losing"] += bool(want["winning_moves"] and want["losing_moves"])
        seen["block_and_losing"] += bool(set(want["must_block"]) & set(want["losing_moves"]))
    # the sample reaches the cases that matter, not only quiet positions
    assert all(n >= 10 for n in seen.values()), seen
