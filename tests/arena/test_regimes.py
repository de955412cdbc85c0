"""``c4 regimes``: every row recounted from its games, the same dice for every
agent, the JSON and Markdown forms, and bad input refused before any game."""

import json

import pytest

from arena.regimes import RegimeConfig, markdown, run_regimes, summary_json
from arena.stats import wilson
from connect4 import Position

from ..c4cli import run_c4


@pytest.fixture(scope="module")
def table():
    cfg = RegimeConfig(["alphabeta", "expectimax", "clairvoyant"], ["greedy", "noisy_greedy"], openings=3,
                       opening_plies=2, seed=4, within=25)
    return run_regimes(cfg)


def test_every_row_is_recounted_from_its_games(table):
    assert [(r["agent"], r["opponent"]) for r in table["rows"]] == [
        (a, o) for a in ("alphabeta", "expectimax", "clairvoyant") for o in ("greedy", "noisy_greedy")]
    for r in table["rows"]:
        games = r["games_played"]
        assert r["games"] == len(games) == 6 and sum(g["agent_first"] for g in games) == 3
        assert (r["wins"], r["draws"], r["losses"]) == (sum(g["result"] == 1 for g in games),
                                                       sum(g["result"] == 0.5 for g in games),
                                                       sum(g["result"] == 0 for g in games))
        fast = 0
        for g in games:  # replay: the game's length and who won, from the moves alone
            pos = Position.from_moves([c - 1 for c in g["moves"]])
            assert pos.is_over and pos.ply == g["plies"]
            agent_colour = (len(table["openings"][g["opening"]]) + (0 if g["agent_first"] else 1)) % 2
            won = pos.winner == agent_colour
            assert won == (g["result"] == 1)
            fast += won and pos.ply <= 25
        assert r["wins_within"] == fast and r["win_within_95"] == wilson(fast, 6).as_list()
        assert r["mean_plies"] == pytest.approx(sum(g["plies"] for g in games) / 6)


def test_every_agent_meets_the_same_dice(table):
    rows = {(r["agent"], r["opponent"]): r for r in table["rows"]}
    # expectimax's model is noisy_greedy's policy, and clairvoyant knows it: the same choices, the same dice
    assert [g["moves"] for g in rows["expectimax", "noisy_greedy"]["games_played"]] == \
        [g["moves"] for g in rows["clairvoyant", "noisy_greedy"]["games_played"]]
    assert run_regimes(RegimeConfig(["expectimax"], ["noisy_greedy"], 3, 2, 4))["rows"][0]["games_played"] == \
        rows["expectimax", "noisy_greedy"]["games_played"]


def test_markdown_and_json_forms(table):
    text = markdown(table, "c4 regimes")
    assert "| agent | regime | opponent | games | W/D/L | wins by ply 25 (95 %) | mean plies |" in text
    assert "| clairvoyant | the opponent's actual policy | greedy | 6 |" in text
    js = json.loads(json.dumps(summary_json(table)))
    assert all("games_played" not in r for r in js["rows"]) and js["config"]["within"] == 25


def test_the_command_prints_json_and_writes_its_files(tmp_path, capsys):
    code, err = run_c4(["regimes", "--agents", "alphabeta", "--opponents", "greedy", "--openings", "1",
                        "--json", "--quiet", "--out", str(tmp_path / "out")], capsys)
    assert code == 0, err
    out = json.loads((tmp_path / "out" / "regimes.json").read_text())
    assert out["rows"][0]["games"] == 2
    assert (tmp_path / "out" / "regimes.md").read_text().startswith("```")


@pytest.mark.parametrize("argv,needle", [
    (["--agents", "wizard"], "unknown player"),
    (["--agents", "clairvoyant", "--opponents", "engine:100"], "cannot know the policy"),
    (["--opening-plies", "42"], "0..41"),
    (["--agents", " , "], "at least one"),
    (["--size", "7by6"], "must look like 7x6"),
    (["--size", "0x6"], "board 0x6 is out of range: width and height 1..16, line length 2..max(width, height)"),
    (["--connect", "1"], "line length 1 does not fit on a 7x6 board: width and height 1..16"),
])
def test_bad_input_is_refused_before_any_game(argv, needle, capsys):
    code, err = run_c4(["regimes", "--quiet", *argv], capsys)
    assert code == 2 and needle in err, err
