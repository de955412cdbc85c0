"""Wilson intervals and the Elo fit against values computed by hand."""

import math

import pytest

from arena.elo import ELO_PER_NAT, EloError, PairResult, fit_elo_cov
from arena.stats import Tally, elo_difference, wilson


def fit_elo(players, results, anchor=None, prior_draws=1.0):
    """The fitted ratings alone (the report also uses the covariance)."""
    return fit_elo_cov(players, results, anchor, prior_draws)[0]


def expected_score(diff: float) -> float:
    """Expected score of a player rated ``diff`` Elo above its opponent: elo_difference's inverse."""
    return 1.0 / (1.0 + 10.0 ** (-diff / 400.0))


# -- Wilson ---------------------------------------------------------------------
def test_wilson_8_of_10_by_hand():
    # p = 0.8, z^2 = 3.8415, denom = 1.38415, centre = (0.8 + 0.19208)/1.38415 = 0.71674,
    # half = 1.96/1.38415 * sqrt(0.016 + 0.0096040) = 0.22658
    iv = wilson(8, 10)
    assert iv.low == pytest.approx(0.49016, abs=1e-4)
    assert iv.high == pytest.approx(0.94332, abs=1e-4)


def test_wilson_zero_and_all_successes():
    # 0 of 10: low 0, high = z^2/(n+z^2) = 3.8415/13.8415 = 0.27753
    iv = wilson(0, 10)
    assert iv.low == 0.0
    assert iv.high == pytest.approx(0.27753, abs=1e-4)
    iv = wilson(10, 10)
    assert iv.low == pytest.approx(1 - 0.27753, abs=1e-4)
    assert iv.high == 1.0
    for n in range(1, 200):  # a sweep's interval ends exactly at 1 (a plot's error bar must not go negative)
        assert wilson(n, n).high == 1.0 and wilson(0, n).low == 0.0


def test_wilson_half_point_counts_and_symmetry():
    # 79 % of 200: centre (0.79 + 0.0096)/1.0192 = 0.78453, half = 1.96/1.0192*sqrt(0.00082950+0.0000240) = 0.05618
    iv = wilson(158, 200)
    assert iv.low == pytest.approx(0.72836, abs=1e-4)
    assert iv.high == pytest.approx(0.84072, abs=1e-4)
    a, b = wilson(7.5, 20), wilson(12.5, 20)
    assert a.low == pytest.approx(1 - b.high) and a.high == pytest.approx(1 - b.low)


def test_wilson_no_games_and_bad_input():
    assert wilson(0, 0).as_list() == [0.0, 1.0]
    with pytest.raises(ValueError):
        wilson(11, 10)


def test_tally_score_and_wdl():
    t = Tally()
    for r in (1, 1, 0.5, 0, 1):
        t.add_result(r)
    assert (t.wins, t.draws, t.losses) == (3, 1, 1)
    assert t.score == pytest.approx(3.5 / 5)
    with pytest.raises(ValueError):
        t.add_result(0.25)


# -- Elo ------------------------------------------------------------------------
def test_elo_difference_by_hand():
    assert elo_difference(0.75) == pytest.approx(400 * math.log10(3))  # 190.85
    assert elo_difference(0.5) == 0
    assert elo_difference(1.0) == math.inf
    assert expected_score(elo_difference(0.64)) == pytest.approx(0.64)


def test_two_players_mle_and_standard_error_by_hand():
    # 15 of 20: r = 400 log10(3) = 190.849; information n p (1-p) = 20 * 0.75 * 0.25 = 3.75 (per nat^2)
    r = fit_elo(["random", "a"], [PairResult("a", "random", 20, 15)], anchor="random", prior_draws=0)
    assert r[0].elo == 0 and r[0].se == 0
    assert r[1].elo == pytest.approx(190.849, abs=1e-3)
    assert r[1].se == pytest.approx(ELO_PER_NAT / math.sqrt(3.75), abs=1e-6)  # 89.71
    assert r[1].se == pytest.approx(89.707, abs=1e-2)
    assert r[1].low == pytest.approx(190.849 - 1.96 * 89.707, abs=0.1)


def test_chain_without_cycle_fits_each_pair_exactly():
    # no a-c games: each pair's score is matched exactly, 75 % twice = 2 * 190.85
    res = [PairResult("b", "a", 20, 15), PairResult("c", "b", 20, 15)]
    r = {x.player: x.elo for x in fit_elo(["a", "b", "c"], res, anchor="a", prior_draws=0)}
    assert r["b"] == pytest.approx(190.849, abs=1e-3)
    assert r["c"] == pytest.approx(381.697, abs=1e-3)


def test_consistent_scores_recover_the_true_ratings():
    true = {"random": 0.0, "x": 100.0, "y": 300.0, "z": 350.0}
    names = list(true)
    res = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            res.append(PairResult(a, b, 40, 40 * expected_score(true[a] - true[b])))
    fitted = {r.player: r.elo for r in fit_elo(names, res, anchor="random", prior_draws=0)}
    for p in names:
        assert fitted[p] == pytest.approx(true[p], abs=1e-6)


def test_anchor_is_zero_and_ratings_shift_with_it():
    res = [PairResult("b", "a", 20, 15), PairResult("c", "b", 10, 5)]
    by_a = {r.player: r.elo for r in fit_elo(["a", "b", "c"], res, anchor="a", prior_draws=0)}
    by_b = {r.player: r.elo for r in fit_elo(["a", "b", "c"], res, anchor="b", prior_draws=0)}
    assert by_b["b"] == 0 and by_b["a"] == pytest.approx(-by_a["b"])
    assert by_a["c"] == pytest.approx(by_a["b"])  # 50 % against b


def test_sweep_is_finite_with_the_prior_draw():
    # 100-0 plus one virtual draw: 100.5 of 101 -> 400 log10(201) = 921.3
    r = fit_elo(["random", "a"], [PairResult("a", "random", 100, 100)], anchor="random", prior_draws=1)
    assert r[1].elo == pytest.approx(400 * math.log10(100.5 / 0.5), abs=1e-3)
    assert math.isfinite(r[1].se)


def test_disconnected_players_and_bad_input_are_errors():
    with pytest.raises(EloError, match="links c"):
        fit_elo(["a", "b", "c"], [PairResult("a", "b", 10, 5)], anchor="a")
    with pytest.raises(EloError):
        fit_elo(["a", "b"], [PairResult("a", "x", 10, 5)])
    with pytest.raises(EloError):
        fit_elo(["a", "b"], [PairResult("a", "b", 10, 11)])


def test_difference_se_two_players_against_an_anchor_by_hand():
    # a and b each play only the anchor, 20 games at 50 %: information 20 * 0.25 = 5 per nat^2 each,
    # independent, so se(a - b) = sqrt(2 / 5) nats
    from arena.elo import difference_se, fit_elo_cov

    res = [PairResult("a", "x", 20, 10), PairResult("b", "x", 20, 10)]
    ratings, cov = fit_elo_cov(["x", "a", "b"], res, anchor="x", prior_draws=0)
    assert [r.elo for r in ratings] == pytest.approx([0, 0, 0], abs=1e-9)
    assert difference_se(cov, 1, 2) == pytest.approx(ELO_PER_NAT * math.sqrt(2 / 5))
    assert difference_se(cov, 1, 0) == pytest.approx(ratings[1].se)


def test_no_players_fit_to_no_ratings_and_an_empty_covariance():
    """The fit's (ratings, covariance) pair even when there is nothing to fit
    (it returned a bare [] before, which unpacks into nothing)."""
    from arena.elo import fit_elo_cov

    ratings, cov = fit_elo_cov([], [])
    assert ratings == [] and cov.shape == (0, 0)
    assert fit_elo([], []) == []


def test_a_game_without_a_result_says_so_instead_of_failing_on_none():
    from arena.match import GameRecord

    game = GameRecord("greedy", "random", [3])
    with pytest.raises(ValueError, match="greedy against random has no result"):
        game.result_of("random")
    game.result = 1.0
    assert (game.result_of("greedy"), game.result_of("random")) == (1.0, 0.0)
    with pytest.raises(KeyError):
        game.result_of("nobody")
