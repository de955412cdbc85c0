"""The player ladder: specs, legality, tactics and reproducibility."""

import threading

import pytest

from connect4 import Geometry, InvalidPosition, Position
from engine_svc.match import play_game, play_match
from engine_svc.players import InvalidSpec, list_players, make_player, parse_spec
from engine_svc.players.ladder import blocks_threat, no_loss_in_two, not_under_threat, takes_win

SPECS = ["random", "greedy", "gated", "easy", "medium", "hard", "minimax:1", "minimax:4",
         "mcts:1", "mcts:300", "engine", "engine:150"]


@pytest.mark.parametrize("spec,expected", [
    ("random", ("random", None)), ("greedy", ("greedy", None)), ("gated", ("gated", None)),
    ("easy", ("easy", None)), ("medium", ("medium", None)), ("hard", ("hard", None)),
    ("minimax:5", ("minimax", 5)), ("minimax:12", ("minimax", 12)), ("mcts:1000", ("mcts", 1000)),
    ("engine", ("engine", 2000)), ("engine:1000", ("engine", 1000)), (" Engine:50 ", ("engine", 50)),
])
def test_specs_parse(spec, expected):
    assert parse_spec(spec) == expected


@pytest.mark.parametrize("spec,needle", [
    ("", "empty"), ("wizard", "unknown player"), ("minimax", "give a depth"), ("minimax:0", "1..12"),
    ("minimax:x", "whole number"), ("minimax:13", "1..12"), ("mcts", "simulations"), ("mcts:0", "1..1000000"),
    ("engine:0", "1..600000"), ("engine:-5", "1..600000"), ("greedy:3", "takes no parameter"),
    ("perfect", "solver service"), (None, "must be a string"),
])
def test_bad_specs_are_rejected(spec, needle):
    with pytest.raises(InvalidSpec) as err:
        make_player(spec)
    assert needle in str(err.value)
    assert isinstance(err.value, ValueError)


def test_listed_players_are_makeable():
    infos = list_players()
    assert infos[0].spec == "random"
    for info in infos:
        assert make_player(info.spec).spec == parse_spec(info.spec)[0] + (
            "" if parse_spec(info.spec)[1] is None else f":{parse_spec(info.spec)[1]}")
        assert info.takes_budget == (info.family == "engine")


def test_players_are_listed_in_ladder_order():
    # The order docs/results/ladder.md measures; the web page's opponent list shows it as is.
    families = [info.family for info in list_players()]
    assert families[:10] == ["random", "easy", "greedy", "medium", "gated", "minimax", "hard", "mcts", "engine",
                             "engine"]
    assert [info.spec for info in list_players()][8:10] == ["engine:1000", "engine"]
    # then the learned players, whose weights ship in books/models/ (docs/learned.md)
    assert families[10:13] == ["dqn", "net", "az"]
    # then the counted and regime players (tests/engine/test_regime_players.py checks their order)


@pytest.mark.parametrize("spec", SPECS)
def test_every_player_plays_legal_moves_and_takes_wins(spec):
    p = make_player(spec, seed=5)
    pos = Position.parse("4453")
    r = p.choose(pos, budget_ms=100)
    assert pos.can_play(r.column) and r.player == p.spec and r.pv[0] == r.column
    win = Position.parse("171712")  # F a1 a2 a3: a4 wins
    if spec not in ("random", "mcts:1", "easy", "medium"):  # those may miss it by design
        assert p.choose(win, budget_ms=100).column == 0
    with pytest.raises(InvalidPosition):
        p.choose(Position.parse("1212121"))


@pytest.mark.parametrize("spec", ["greedy", "gated", "hard", "minimax:2", "minimax:5", "engine:150"])
def test_blocks(spec):
    pos = Position.parse("17273")  # F a1 b1 c1: S must play d1
    assert make_player(spec).choose(pos, budget_ms=100).column == 3


def test_other_geometry():
    g = Geometry(5, 4, 3)
    for spec in ("random", "greedy", "gated", "minimax:4", "mcts:100", "engine:100"):
        pos = Position.from_moves([2, 2], g)
        assert pos.can_play(make_player(spec, geometry=g).choose(pos, budget_ms=100).column)


@pytest.mark.parametrize("spec", ["random", "greedy", "gated", "easy", "medium", "hard", "minimax:3", "mcts:200"])
def test_reproducible_given_a_seed(spec):
    def game(seed):
        return play_game(make_player(spec, seed=seed), make_player("easy", seed=seed + 1), [3, 3], True).moves

    assert game(11) == game(11)
    if spec in ("random", "easy", "medium", "mcts:200"):
        assert any(game(11) != game(s) for s in (12, 13, 14))  # the seed matters


def test_gated_checks():
    pos = Position.parse("17273")  # F a1 b1 c1, S g1 g2; S to move must block d1
    assert blocks_threat(pos, 3) and not blocks_threat(pos, 0)
    assert all(takes_win(pos, c) and not_under_threat(pos, c) for c in range(7))  # no win, nothing above
    pos = Position.parse("171712")  # F a1 a2 a3: F to move wins at a4
    assert takes_win(pos, 0) and not takes_win(pos, 3)
    # F c1 a2 b2 c2, S a1 b1 g1; S to move: F's winning cell d2 sits over the empty d1.
    pos = Position.parse("3112273")
    assert pos.to_move == 1 and pos.winning_cells(0) == pos.geometry.cell_bit(3, 1)
    assert not not_under_threat(pos, 3) and not_under_threat(pos, 4)
    assert not no_loss_in_two(pos, 3)  # S d1, F d2 wins
    assert no_loss_in_two(pos, 4)
    assert make_player("gated").choose(pos).column != 3
    # Greedy's c here lets the opponent make two threats at once; b, d and f pass
    # every check, and the small search picks among them.
    pos = Position.parse("133375")
    assert make_player("greedy").choose(pos).column == 2 and not no_loss_in_two(pos, 2)
    r = make_player("gated").choose(pos)
    assert r.column in (1, 3, 5) and r.nodes > 0 and "searched" in r.message


def test_matches_are_paired():
    m = play_match("minimax:2", "random", games=6, opening_plies=4, seed=2)
    assert len(m.games) == 6
    assert [g.a_first for g in m.games] == [True, False] * 3
    assert m.games[0].opening == m.games[1].opening
    assert m.wins_a + m.wins_b + m.draws == 6
    assert m.wins_a >= 5  # minimax:2 against random


@pytest.mark.parametrize("spec", ["minimax:12", "hard", "mcts:1000000"])
def test_a_cancel_stops_minimax_and_mcts(spec):
    from engine_svc.players import Cancel, Stopped

    pos = Position.parse("4")
    cancel = Cancel()
    cancel.set()  # set before the search: it stops at its first look
    with pytest.raises(Stopped, match="stopped after"):
        make_player(spec, seed=1).choose(pos, cancel=cancel)
    unset = Cancel()
    assert pos.can_play(make_player(spec.replace("1000000", "300"), seed=1).choose(pos, cancel=unset).column)


def test_cancel_raises_every_flag_at_once_and_lets_go_after_the_search():
    import numpy as np

    from engine_svc.stopping import Cancel, stop_on

    cancel = Cancel()
    a, b = np.zeros(1, dtype=np.uint8), np.zeros(3, dtype=np.int64)
    with stop_on(cancel, a), stop_on(cancel, b, 2):
        assert a[0] == 0 and b[2] == 0
        cancel.set()  # no watcher thread: the flags are up when set() returns
        assert a[0] == 1 and b[2] == 1 and b[0] == 0
    after = np.zeros(1, dtype=np.uint8)
    a[0] = 0
    cancel.set()
    assert a[0] == 0  # the finished search's array is no longer touched
    with stop_on(cancel, after):
        assert after[0] == 1  # already cancelled: raised on entry
    with pytest.raises(TypeError, match="Cancel"), stop_on(threading.Event(), after):
        pass
