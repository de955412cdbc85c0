"""``c4 audit`` and the perfect player on a board past 64 bits: the moves audited are scored exactly (the
scores equal the wide solver's own, fresh, and near the end brute force's), the
positions it cannot prove within the node budget are counted, left out and said."""

from __future__ import annotations

import json

from c4.main import main
from connect4 import Geometry, Position
from solver_svc.wide_board import WideBoardSolver
from tests.solver_svc.test_wide_service import column_value

G8 = Geometry(8, 8)


def test_audit_on_8x8_scores_every_audited_move_exactly(capsys, tmp_path):
    out = tmp_path / "audit.json"
    assert main(["audit", "greedy", "--size", "8x8", "--games", "2", "--opening-plies", "44", "--worst", "1",
                 "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "random 44-ply openings, seed 1, board 8x8" in text
    assert "solver budget: 2,000,000 nodes per position on 8x8" in text
    data = json.loads(out.read_text())
    moves = data["moves"]
    assert data["summary"]["size"] == "8x8" and data["summary"]["moves_audited"] == len(moves) >= 8
    teacher = WideBoardSolver(G8, 16)
    for m in moves[-4:]:  # the last ones: brute force is quick there
        pos = Position.from_moves([c - 1 for c in m["position"]], G8)
        want = [column_value(pos, c) if pos.can_play(c) else None for c in range(8)]
        assert m["scores"] == want, m
    for m in moves[:3]:
        pos = Position.from_moves([c - 1 for c in m["position"]], G8)
        teacher.reset()
        assert m["scores"] == teacher.analyze(pos), m


def test_unproved_positions_are_counted_and_left_out(capsys):
    assert main(["audit", "greedy", "--size", "8x8", "--games", "2", "--opening-plies", "24", "--worst", "0",
                 "--solver-nodes", "20000"]) == 0
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if x.startswith("moves audited") or x.startswith("no move could"))
    assert "unproved" in line, text
    assert "solver budget: 20,000 nodes per position on 8x8" in text


def test_bad_large_board_arguments_are_refused(capsys):
    assert main(["audit", "greedy", "--size", "8x8", "--opening-plies", "64"]) == 2
    assert "--opening-plies 64 must be below the 64 cells of a 8x8 board" in capsys.readouterr().err
    assert main(["audit", "greedy", "--size", "8x8", "--books", "books"]) == 2
    assert "--books are 7x6 books: use --books none on another board" in capsys.readouterr().err
    assert main(["audit", "greedy", "--size", "17x8"]) == 2
    assert "width and height 1..16" in capsys.readouterr().err


def test_the_perfect_player_on_8x8_plays_a_best_column_or_says_it_has_no_proof():
    import random

    import pytest

    from arena.players import PlayerError, PlayerFactory
    from tests.solver_svc.test_wide_solver import quiet_position

    factory = PlayerFactory(G8, books=None, engine_books="none")
    perfect = factory.make("perfect")
    rng = random.Random(64)
    for _ in range(3):
        pos = quiet_position(G8, G8.cells - 8, rng)
        info = perfect.choose(pos)
        values = {c: column_value(pos, c) for c in range(8) if pos.can_play(c)}
        assert info.proven and info.score == values[info.column] == max(values.values()), pos.moves
    with pytest.raises(PlayerError, match="perfect: no proof within 20,000 nodes at ply 2"):
        factory.make("perfect:20000").choose(Position.from_moves([3, 4], G8))
