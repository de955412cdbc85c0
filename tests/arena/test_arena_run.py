"""A small real arena run: the JSON, the Markdown and the PNG plots agree with each other and with the games."""

import io
import json
import subprocess
import sys
from collections import Counter, defaultdict

import pytest

from arena.match import play_game
from arena.players import PlayerFactory
from arena.report import markdown, summarize
from arena.runner import ArenaConfig, run_arena
from connect4 import Position

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("arena")
    proc = subprocess.run(
        [sys.executable, "-m", "c4.main", "arena", "random", "greedy", "gated", "--games", "6", "--opening-plies", "4",
         "--seed", "5", "--out", str(out)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return out, proc


def test_files_and_progress(run):
    out, proc = run
    for name in ("scores.png", "pairs.png", "elo.png"):
        data = (out / name).read_bytes()
        assert data.startswith(PNG) and len(data) > 5000
    assert "18/18 games" in proc.stderr and "█" in proc.stderr
    assert (out / "report.md").read_text() in proc.stdout


def test_games_are_paired_and_replayable(run):
    out, _ = run
    doc = json.loads((out / "games.json").read_text())
    games = doc["games"]
    assert len(games) == 3 * 6
    openings = doc["openings"]
    assert len(openings) == 3
    seen = Counter()
    for g in games:
        assert g["opening"] == openings[g["opening_index"]]
        assert g["moves"][:4] == g["opening"]
        seen[(g["pair"], g["opening_index"], g["first"])] += 1
        pos = Position.from_moves([c - 1 for c in g["moves"]])  # every game is legal and finished
        assert pos.is_over
        if pos.winner is None:
            assert g["result"] == 0.5
        else:
            # the first mover after a 4-ply opening has the first player's stones
            assert g["result"] == (1.0 if pos.winner == 0 else 0.0)
        plies_first = (len(g["moves"]) - 4 + 1) // 2
        assert g["stats"]["first"]["moves"] == plies_first
        assert g["stats"]["second"]["moves"] == len(g["moves"]) - 4 - plies_first
    assert all(v == 1 for v in seen.values()) and len(seen) == 18


def test_summary_matches_the_games(run):
    out, _ = run
    doc = json.loads((out / "games.json").read_text())
    s = doc["summary"]
    # recount W/D/L by seat from the raw games
    count = defaultdict(lambda: Counter())
    for g in doc["games"]:
        for seat, spec, r in (("first", g["first"], g["result"]), ("second", g["second"], 1 - g["result"])):
            count[(g["pair"], spec, seat)][r] += 1
    for p, row in enumerate(s["pairs"]):
        for spec in (row["a"], row["b"]):
            for seat in ("first", "second"):
                c = count[(p, spec, seat)]
                t = row[spec][seat]
                assert (t["wins"], t["draws"], t["losses"]) == (c[1.0], c[0.5], c[0.0])
                assert t["games"] == 3  # each player first once per opening
        a = row[row["a"]]["total"]
        b = row[row["b"]]["total"]
        assert a["wins"] == b["losses"] and a["draws"] == b["draws"]
        assert row["score_a"] == pytest.approx((a["wins"] + a["draws"] / 2) / 6)
    # players' totals are the sums of their pairs
    for prow in s["players"]:
        spec = prow["player"]
        games = sum(r[spec]["total"]["games"] for r in s["pairs"] if spec in (r["a"], r["b"]))
        assert prow["total"]["games"] == games == 12
    ratings = {r["player"]: r for r in s["elo"]["ratings"]}
    assert s["elo"]["anchor"] == "random" and ratings["random"]["elo"] == 0
    # the Markdown table carries the same figures
    md = (out / "report.md").read_text()
    for row in s["pairs"]:
        a = row[row["a"]]
        assert f"| {row['a']} | {row['b']} | 6 | {100 * row['score_a']:.1f} %" in md
        assert f"{a['first']['wins']}/{a['first']['draws']}/{a['first']['losses']}" in md
    for spec, r in ratings.items():
        assert f"| {spec} | {r['elo']:.0f} |" in md
    # rebuilding the report from the saved JSON gives the same text
    assert markdown(doc, summarize(doc), doc["command"]) == md


def test_greedy_beats_random(run):
    out, _ = run
    s = json.loads((out / "games.json").read_text())["summary"]
    row = next(r for r in s["pairs"] if {r["a"], r["b"]} == {"random", "greedy"})
    assert row[row["b"] if row["a"] == "random" else row["a"]]["total"]["score"] >= 5 / 6


def test_workers_give_the_same_games_as_one_process():
    base = dict(players=["random", "greedy"], games=4, opening_plies=3, seed=9)
    one = run_arena(ArenaConfig(**base, workers=1, engine_books="none"), progress_stream=io.StringIO())
    two = run_arena(ArenaConfig(**base, workers=2, engine_books="none"), progress_stream=io.StringIO())
    def strip(doc):
        return [(g["first"], g["second"], g["moves"], g["result"]) for g in doc["games"]]
    assert strip(one) == strip(two)


def test_perfect_player_in_a_match_from_a_late_opening():
    f = PlayerFactory(engine_books="none")
    start = [int(c) - 1 for c in "165413164125626146635325223312"]  # score +1 for the side to move
    rec = play_game(f.make("perfect"), f.make("random", seed=1), start)
    assert rec.result == 1.0 and rec.reason == "line"


@pytest.mark.parametrize("args,message", [
    (["random"], "at least two"),
    (["random", "greedy", "--games", "3"], "even"),
    (["random", "random"], "once"),
    (["random", "nobody"], "unknown player"),
    (["random", "greedy", "--via-grpc", "a,b,c"], "ENGINE_ADDR,SOLVER_ADDR"),
    (["random", "perfect:lots"], "node budget"),
])
def test_bad_arena_arguments(args, message, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "c4.main", "arena", *args, "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and message in proc.stderr


def test_plots_of_a_sweep_from_saved_games(tmp_path):
    """Every pair swept (100 %, 0 %): intervals touch the ends and the plots still draw."""
    from arena.report import write_all

    raw = run_arena(ArenaConfig(["random", "greedy", "gated"], 2, 2, 3, engine_books="none"),
                    progress_stream=io.StringIO())
    for g in raw["games"]:  # make every game a win of the later-listed player
        later = "gated" if "gated" in (g["first"], g["second"]) else "greedy"
        g["result"] = 1.0 if g["first"] == later else 0.0
    s = write_all(raw, tmp_path)
    assert all(r["score_a"] == 0.0 and r["score_a_95"][0] == 0.0 for r in s["pairs"] if r["a"] == "random")
    for name in ("scores.png", "pairs.png", "elo.png"):
        assert (tmp_path / name).read_bytes().startswith(PNG)


def test_a_player_that_fails_forfeits_its_game_only():
    """A player raising anything (here: an engine player given a position of another board size) loses
    that game by forfeit, with the reason; the other player's moves stand."""
    from connect4 import Geometry

    f = PlayerFactory(engine_books="none")
    other = PlayerFactory(Geometry(6, 5, 4), engine_books="none")  # plays 6x5, is handed 7x6 positions
    rec = play_game(f.make("greedy"), other.make("minimax:2"), [3, 3])
    assert rec.result == 1.0 and rec.reason.startswith("forfeit by second (minimax:2) at ply 4: InvalidPosition")
    assert len(rec.moves) == 3


def test_openings_decided_at_once_are_reported_apart():
    """A hand-made run: opening 0 (4457) is decided at once, opening 1 (4444) is not."""
    stats = {"moves": 1, "nodes": 0, "ms": 0.0, "book_moves": 0, "resigned_at": None}

    def game(opening, first, second, result):
        moves = [[4, 4, 5, 7], [4, 4, 4, 4]][opening]
        return {"pair": 0, "opening_index": opening, "first": first, "second": second, "opening": moves,
                "moves": moves, "result": result, "reason": "line",
                "stats": {"first": dict(stats), "second": dict(stats)}}

    raw = {"config": {"players": ["random", "greedy"], "gauntlet": False, "games_per_pair": 4, "opening_plies": 4,
                      "seed": 1, "board": {"width": 7, "height": 6, "k": 4}},
           "openings": [[4, 4, 5, 7], [4, 4, 4, 4]],
           "games": [game(0, "random", "greedy", 1.0), game(0, "greedy", "random", 1.0),
                     game(1, "random", "greedy", 0.0), game(1, "greedy", "random", 0.5)],
           "run": {"elapsed_s": 1.0, "machine": "test"}}
    s = summarize(raw)
    assert s["decided_openings"] == [0]
    row = s["pairs"][0]
    assert (row["random"]["total"]["wins"], row["random"]["total"]["draws"], row["random"]["total"]["losses"]) == (1, 1, 2)
    # over the undecided opening alone: random lost one and drew one
    u = row["undecided"]
    assert (u["random"]["wins"], u["random"]["draws"], u["random"]["losses"]) == (0, 1, 1)
    assert (u["greedy"]["wins"], u["greedy"]["draws"], u["greedy"]["losses"]) == (1, 1, 0)
    md = markdown(raw, s)
    assert "### Openings decided at once" in md and "1 of 2 openings" in md
    assert "| random | greedy | 2 | 25.0 % (" in md
    # a run without such openings has no such section
    raw["openings"][0] = [4, 4, 4, 4]
    assert "### Openings decided at once" not in markdown(raw, summarize(raw))
