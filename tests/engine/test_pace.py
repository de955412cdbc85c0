"""The depth of the next iteration of a timed search (engine_svc.pace)."""

import pytest

from engine_svc.pace import MAX_GROWTH, MAX_JUMP, MIN_GROWTH, IterationPace


def paced(iterations):
    """A pace fed (depth, nodes of that iteration, its end in ms) in order."""
    pace, total = IterationPace(), 0
    for depth, nodes, end_ms in iterations:
        total += nodes
        pace.finished(depth, total, end_ms)
    return pace


def test_one_ply_at_a_time_until_three_iterations_are_known():
    assert paced([(1, 10, 1.0)]).next_depth(40, 300.0, 1000.0) == 2
    assert paced([(1, 10, 1.0), (2, 30, 250.0)]).next_depth(40, 250.0, 1000.0) == 3


def test_growth_is_measured_over_two_plies_and_clamped():
    assert paced([(5, 100, 10.0), (6, 300, 20.0), (7, 400, 30.0)]).growth() == pytest.approx(2.0)
    assert paced([(5, 100, 10.0), (6, 100, 20.0), (7, 100, 30.0)]).growth() == MIN_GROWTH
    assert paced([(5, 1, 10.0), (6, 100, 20.0), (7, 10_000, 30.0)]).growth() == MAX_GROWTH
    # After a jump the growth is per ply over the depths actually searched.
    assert paced([(5, 100, 10.0), (6, 150, 20.0), (9, 1600, 90.0)]).growth() == pytest.approx(2.0)


def test_next_ply_while_another_iteration_can_still_start():
    # Growth 2, last iteration 40 ms: the next ends near 160 ms, under a third of 1000 ms.
    pace = paced([(8, 100, 40.0), (9, 200, 80.0), (10, 400, 120.0)])
    assert pace.next_depth(40, 120.0, 1000.0) == 11


def test_the_last_iteration_goes_as_deep_as_the_budget_allows():
    # Growth 2, last iteration 100 ms ending at 300 ms: the next would end past 333 ms,
    # so this is the last start; depth 10 + s ends near 300 + 1.25 * 100 * 2**s ms.
    pace = paced([(8, 100, 150.0), (9, 200, 200.0), (10, 400, 300.0)])
    assert pace.next_depth(40, 300.0, 1000.0) == 12      # 2 plies: 800 ms; 3 would be 1300
    assert pace.next_depth(11, 300.0, 1000.0) == 11      # never past the end of the game
    # The same tree ending at 700 ms of 2000: 3 plies end near 1700 ms, 4 near 2700.
    late = paced([(8, 100, 500.0), (9, 200, 600.0), (10, 400, 700.0)])
    assert late.next_depth(40, 700.0, 2000.0) == 13


def test_the_last_iteration_is_one_ply_deeper_even_when_it_will_not_fit():
    pace = paced([(8, 100, 10.0), (9, 400, 20.0), (10, 1600, 300.0)])  # growth 4, 280 ms
    assert pace.next_depth(40, 300.0, 1000.0) == 11      # predicted to end near 1700 ms


def test_a_jump_is_capped():
    pace = paced([(8, 100, 250.0), (9, 130, 270.0), (10, 169, 300.0)])  # growth 1.3, 30 ms
    assert pace.next_depth(40, 300.0, 1000.0) == 10 + MAX_JUMP   # 11 plies would fit
