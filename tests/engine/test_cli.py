"""`c4 match` and `c4 bench engine` through the real command line entry point."""

import json

import pytest

from c4.main import main
from tests.c4cli import run_c4


def test_c4_match_json(capsys):
    assert main(["match", "minimax:2", "random", "--games", "4", "--opening-plies", "2", "--seed", "1",
                 "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 4 and out["wins_a"] + out["wins_b"] + out["draws"] == 4
    assert out["a"] == "minimax:2" and out["opening_plies"] == 2
    from arena.stats import wilson

    low, high = wilson(out["wins_a"], 4).as_list()
    assert out["win_rate_a_95"] == [round(low, 4), round(high, 4)] and low <= out["win_rate_a"] <= high
    assert out["score_a"] == (out["wins_a"] + out["draws"] / 2) / 4


def test_c4_match_text_gives_the_wilson_interval(capsys):
    assert main(["match", "greedy", "random", "--games", "2", "--opening-plies", "0", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "greedy vs random: 2 wins, 0 losses, 0 draws in 2 games (100.0% wins for greedy, 95% Wilson 34.2-100.0)" in out


def test_c4_match_rejects_a_bad_spec(capsys):
    assert main(["match", "minimax:0", "random"]) == 2
    assert "1..12" in capsys.readouterr().err


def test_c4_bench_engine_json(capsys):
    assert main(["bench", "engine", "--positions", "3", "--depth", "6", "--tt-mb", "8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["positions"] == 3 and out["nodes"] > 0 and out["nodes_per_s"] > 0
    assert out["depth_500ms"] >= 1 and out["depth_2000ms"] >= out["depth_500ms"] - 1


BAD = [
    (["match", "random", "greedy", "--games", "3"], "--games: must be even"),
    (["match", "random", "greedy", "--games", "-4"], "--games"),
    (["match", "random", "greedy", "--opening-plies", "60"], "--opening-plies"),
    (["match", "random", "greedy", "--tt-mb", "0"], "--tt-mb: must be more than 0 and at most 65536, got 0"),
    (["match", "random", "greedy", "--budget-ms", "-5"], "--budget-ms"),
    (["match", "random", "greedy", "--budget-ms", "inf"], "--budget-ms"),
    (["match", "random", "greedy", "--books", "/no/such/book.txt"], "--books"),
    (["bench", "engine", "--positions", "500"], "--positions: must be in 1..100"),
    (["bench", "engine", "--positions", "0"], "--positions"),
    (["bench", "engine", "--tt-mb", "0"], "--tt-mb"),
    (["bench", "engine", "--depth", "0"], "--depth"),
]


@pytest.mark.parametrize("argv,message", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_arguments_are_one_clear_error(argv, message, capsys):
    code, err = run_c4(argv, capsys)
    assert code == 2 and message in err and "Traceback" not in err, err
