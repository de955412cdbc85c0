"""versus and audit from late positions, checked against the exact solver directly."""

import io
import json
import subprocess
import sys

import pytest

from arena.audit import report, run_audit, worst_moves
from arena.oracle import Oracle
from arena.players import PlayerFactory
from arena.versus import play_versus
from connect4 import Position
from connect4.notation import LETTERS
from connect4.scores import end_ply
from solver_svc.solver import Solver

# Pons' test set L2_R1 (score 4: the second player, to move, wins) and a 30-ply position
LATE = "5554224333234511764415115"
MID30 = "165413164125626146635325223312"  # a random 30-ply position, score +1


@pytest.fixture(scope="module")
def factory():
    return PlayerFactory(engine_books="none")


@pytest.fixture(scope="module")
def oracle(factory):
    return Oracle(solver=factory.solver())


def sign(x):
    return (x > 0) - (x < 0)


def test_end_ply_from_pons_scores():
    # an immediate win from ply p is worth (43 - p) // 2 and ends at ply p + 1
    for p in range(0, 41):
        assert end_ply((43 - p) // 2, p, Position().geometry) == p + 1
    assert end_ply(1, 0, Position().geometry) == 41  # the empty board: first wins with its last stone
    assert end_ply(0, 10, Position().geometry) == 42


def test_perfect_against_perfect_holds_the_value_to_the_predicted_ply(factory, oracle):
    start = Position.parse(LATE)
    score = Solver().solve(start).score
    assert score == 4  # Pons' file says so
    out = io.StringIO()
    res = play_versus(factory.make("perfect"), oracle, solver_color=0, start=start, out=out)
    assert res.error is None and not res.mistakes
    assert res.winner == 1  # the second player, to move, wins
    # both sides perfect: the game ends exactly where the score says
    assert res.final_ply == end_ply(score, start.ply, start.geometry)
    assert res.summary == f"theoretical win held to ply {res.final_ply}"
    text = out.getvalue()
    assert text.count("\n") >= res.final_ply - start.ply
    assert f"moves: {''.join(str(c + 1) for c in res.moves)}" in text


def test_random_loses_the_win_and_the_verdict_names_a_real_mistake(factory, oracle):
    start = Position.parse(LATE)
    solver = Solver()
    found = False
    for seed in range(1, 15):
        res = play_versus(factory.make("random", seed=seed), oracle, solver_color=0, start=start)
        assert res.error is None
        if not res.mistakes:
            continue
        found = True
        m = res.mistakes[0]
        assert res.summary.startswith(m.text() + "; the game was ")
        assert res.summary.startswith(f"lost the {m.lost} at ply {m.ply} ({LETTERS[m.played]} instead of {LETTERS[m.best]})")
        before = Position.from_moves(res.moves[: m.ply - 1])
        scores = solver.analyze(before)
        assert sign(max(s for s in scores if s is not None)) > sign(scores[m.played])
        assert scores[m.best] == max(s for s in scores if s is not None)
        # the solver's own moves never change the value class
        break
    assert found, "random never lost the win in 14 games from a won position"


def test_versus_solver_moves_never_lose_value(factory, oracle):
    start = Position.parse(MID30)
    res = play_versus(factory.make("greedy"), oracle, solver_color=1, start=start)
    solver = Solver()
    pos = Position.parse(MID30)
    for col in res.moves[start.ply:]:
        if pos.to_move == 1:  # the perfect player's move: it is a best column
            scores = solver.analyze(pos)
            assert scores[col] == max(s for s in scores if s is not None)
        pos.play(col)
    assert pos.is_over


def test_versus_budget_too_small_stops_with_a_clear_message(factory):
    tight = Oracle(node_budget=1000, solver=factory.solver())
    out = io.StringIO()
    res = play_versus(factory.make("greedy"), tight, solver_color=0, start=Position.parse("44"), out=out)
    assert res.error and "no proof within 1,000 nodes" in res.error
    assert "stopped at ply 3" in out.getvalue()


def test_audit_of_the_perfect_player_has_no_regret(factory, oracle):
    res = run_audit("perfect", 3, 26, seed=5, oracle=oracle, factory=factory)
    s = res.summary()
    assert s["moves_audited"] > 0 and s["moves_unproved"] == 0
    assert s["agree_share"] == 1.0 and s["regret_total"] == 0
    assert worst_moves(res) == []


def test_audit_of_random_matches_the_solver_move_by_move(factory, oracle):
    res = run_audit("random", 4, 26, seed=3, oracle=oracle, factory=factory, opponent="greedy")
    s = res.summary()
    assert s["moves_audited"] > 0
    assert s["regret_total"] == sum(m.regret for m in res.moves)
    assert s["agree"] < s["moves_audited"]  # random does not always find a best column
    solver = Solver()
    for m in res.moves[:12]:
        pos = Position.from_moves(m.moves)
        scores = solver.analyze(pos)
        assert scores == m.scores
        best = max(x for x in scores if x is not None)
        assert m.regret == sign(best) - sign(scores[m.played])
        assert m.agrees == (scores[m.played] == best)
    text = report(res)
    worst = worst_moves(res)
    if worst:
        assert f"regret {worst[0].regret}" in text and "╰" in text  # the board is shown
    assert len(res.results) == 4


def test_c4_versus_and_audit_commands(tmp_path):
    out = subprocess.run([sys.executable, "-m", "c4.main", "versus", "minimax:4", "--solver-seat", "second",
                          "--from", LATE, "--json", str(tmp_path / "v.json")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    data = json.loads((tmp_path / "v.json").read_text())
    assert data["summary"] in out.stdout and "moves: " in out.stdout
    assert data["player_seat"] == "first"
    bad = subprocess.run([sys.executable, "-m", "c4.main", "versus", "nobody", "--solver-seat", "first"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "unknown player" in bad.stderr
    bad = subprocess.run([sys.executable, "-m", "c4.main", "versus", "greedy", "--solver-seat", "first",
                          "--from", "1111111"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "full" in bad.stderr
    out = subprocess.run([sys.executable, "-m", "c4.main", "audit", "greedy", "--games", "2", "--opening-plies", "28",
                          "--json", str(tmp_path / "a.json")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    data = json.loads((tmp_path / "a.json").read_text())
    assert f"moves audited: {data['summary']['moves_audited']}" in out.stdout


def test_draw_held_and_loss_from_the_start_summaries(factory, oracle):
    drawn = Position.parse("274552224131661")  # Pons' L2_R2: score 0
    res = play_versus(factory.make("perfect"), oracle, solver_color=1, start=drawn)
    assert res.initial_score == 0 and res.winner is None and res.final_ply == 42
    assert res.summary == "theoretical draw held to ply 42"
    # the side to move in LATE wins: playing the other side, even perfect defence loses, as late as possible
    late = Position.parse(LATE)
    res = play_versus(factory.make("perfect"), oracle, solver_color=late.to_move, start=late)
    assert res.winner == late.to_move and not res.mistakes
    assert res.summary == f"theoretical loss from the start: lost at ply {res.final_ply} (best defence lasts to ply {res.final_ply})"


def test_c4_versus_you_with_piped_moves():
    """A person against the perfect player: bad input gets a message, the verdict judges the person's move."""
    out = subprocess.run([sys.executable, "-m", "c4.main", "versus", "you", "--solver-seat", "first", "--from", LATE],
                         input="z\nc\n", capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "column 'z' is not on this board" in out.stdout
    # c hands the first player a win at once (the solver says f keeps the win)
    assert "lost the win at ply 26 (c instead of f); the game was lost at ply 27" in out.stdout
    solver = Solver()
    scores = solver.analyze(Position.parse(LATE))
    assert scores[2] < 0 < scores[5]


def test_c4_versus_from_the_empty_board_answers_from_the_shipped_books(capsys):
    """The issue's own command, `c4 versus PLAYER --solver-seat first`, from the
    empty board: the shipped books answer the early plies, so a small node
    budget suffices; without books the same budget cannot prove the first move."""
    from c4.main import main

    argv = ["versus", "greedy", "--solver-seat", "first", "--solver-nodes", "2000000"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "  1. d  perfect" in out and "first wins at ply 41" in out
    assert "moves: 4" in out and "stopped" not in out
    assert main([*argv, "--books", "none"]) == 1
    out = capsys.readouterr().out
    assert "stopped at ply 1: no proof within 2,000,000 nodes" in out


def test_c4_audit_near_the_empty_board_answers_from_the_shipped_books(capsys):
    from c4.main import main

    argv = ["audit", "greedy", "--games", "1", "--opening-plies", "0", "--solver-nodes", "2000000", "--worst", "0"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "moves audited: 13\n" in out, out  # greedy's self-play game 4444443333526, every move proved
    assert main([*argv, "--books", "none"]) == 0
    out = capsys.readouterr().out
    assert "unproved, left out" in out, out
