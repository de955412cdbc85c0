"""``c4 solve``, ``c4 analyze`` and ``c4 values`` on boards past 64 bits (the wide solver):
near-end 8x8 lines against brute force, invalid lines as on 7x6, and a node budget that
leaves a line unproved (reported, never guessed)."""

from __future__ import annotations

import random

from c4.main import main
from tests.c4cli import run_c4
from connect4 import Geometry, Position
from solver_svc.wide_solver import WideSolver
from tests.solver_svc.test_wide_service import column_value
from tests.solver_svc.test_wide_solver import brute_force, quiet_position

G8 = Geometry(8, 8)


def _digits(pos: Position) -> str:
    return "".join(str(c + 1) for c in pos.moves)


def test_solve_and_analyze_near_the_end_of_8x8_against_brute_force(capsys):
    rng = random.Random(88)
    positions = [quiet_position(G8, G8.cells - 8 - i % 2, rng) for i in range(4)]
    lines = [_digits(p) for p in positions]
    assert main(["solve", "--size", "8x8", *lines]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"{line} {brute_force(p.copy())}" for line, p in zip(lines, positions, strict=True)]
    assert main(["analyze", "--size", "8x8", lines[0]]) == 0
    want = [column_value(positions[0], c) if positions[0].can_play(c) else -1000 for c in range(8)]
    assert capsys.readouterr().out.split() == [lines[0], *map(str, want)]
    assert main(["solve", "-w", "--size", "8x8", lines[1]]) == 0
    exact = brute_force(positions[1].copy())
    assert capsys.readouterr().out.split() == [lines[1], str((exact > 0) - (exact < 0))]


def test_invalid_and_unproved_lines_say_so_and_the_run_goes_on(capsys):
    assert main(["solve", "--size", "8x8", "--nodes", "20000", "40", "555555555", "1212121", "", "4455"]) == 1
    cap = capsys.readouterr()
    assert cap.out.splitlines() == ["", "", "", "", "4455 29"]  # d1 e1, then c1 or f1 makes two threats
    assert cap.err.splitlines() == [
        'Line 1: Invalid move 2 "40": column 0 is off the board (1..8)',
        'Line 2: Invalid move 9 "555555555": column 5 is full',
        'Line 3: Invalid move 7 "1212121": column 1 wins: the game would be over',
        'Line 4: not proved within 20,000 nodes ""',
    ]


def test_values_of_large_boards_with_short_lines(capsys):
    assert main(["values", "13x4", "--connect", "3", "--strong"]) == 0
    rows = [r.split() for r in capsys.readouterr().out.splitlines()[1:]]
    assert len(rows) == 1
    g = Geometry(13, 4, 3)
    score, _ = WideSolver(g, 16).solve(Position(g))
    assert rows[0][:4] == [g.name.split("k")[0], "3", "+" if score > 0 else "-" if score < 0 else "=", str(score)]


def test_values_past_64_bits_stop_at_their_node_limit_and_say_so(capsys, monkeypatch):
    from c4.commands import values

    assert main(["values", "8x8", "--nodes", "5000"]) == 1
    rows = [r.split() for r in capsys.readouterr().out.splitlines()[1:]]
    assert rows[0][:3] == ["8x8", "4", "?"] and " ".join(rows[0][-5:]) == "not proved within 5,000 nodes"
    assert 0 < int(rows[0][3].replace(",", "")) <= 5001  # the positions searched, the one it stopped at included
    monkeypatch.setattr(values, "WIDE_NODES", 3000)  # the default limit past 64 bits, none up to 64
    assert main(["values", "9x7", "4x4"]) == 1
    rows = [r.split() for r in capsys.readouterr().out.splitlines()[1:]]
    assert rows[0][:3] == ["9x7", "4", "?"] and rows[0][-2:] == ["3,000", "nodes"]
    assert rows[1][:3] == ["4x4", "4", "="] and len(rows[1]) == 5  # proved, no note


def test_values_node_limit_on_small_boards_and_bad_limits(capsys):
    assert main(["values", "4x4", "--nodes", "0"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split()[2] == "="
    assert main(["values", "6x5", "--nodes", "10"]) == 1
    assert "not proved within 10 nodes" in capsys.readouterr().out
    code, err = run_c4(["values", "8x8", "--nodes", "-1"], capsys)
    assert code == 2 and "--nodes" in err and "Traceback" not in err, err
