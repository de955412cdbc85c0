"""One position on several threads (``Solver.solve(threads=N)``): null windows at once over one table."""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest

from connect4 import STANDARD, Geometry, Position
from solver_svc.solver import BudgetExceeded, Solver
from solver_svc.solver.parallel import next_windows, pons_probe

HARD = "4453"  # ply 4: tens of millions of nodes, never finished here


@pytest.fixture(scope="module")
def shared() -> Solver:
    return Solver(STANDARD, tt_log2=20)


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


@pytest.mark.parametrize("name,n", [("Test_L3_R1", 12), ("Test_L2_R1", 12), ("Test_L1_R1", 8),
                                    ("Test_L2_R2", 6), ("Test_L1_R2", 2)])
@pytest.mark.parametrize("threads", [2, 3])
def test_scores_of_pons_sets_on_several_threads(shared, pons_sets, read_set, name, n, threads):
    for moves, expected in read_set(pons_sets / name, n):
        pos = Position.parse(moves)
        shared.reset()
        r = shared.solve(pos, threads=threads)
        assert r.score == expected, moves
        assert r.nodes > 0 and shared.last_nodes == r.nodes
        shared.reset()
        assert shared.solve(pos, threads=threads, weak=True).score == _sign(expected), moves


@pytest.mark.parametrize("size,k,min_ply", [("4x4", 4, 0), ("5x4", 4, 6), ("4x3", 3, 0), ("6x5", 5, 18)])
def test_small_boards_agree_with_brute_force(brute_score, size, k, min_ply):
    g = Geometry.parse(size, k)
    rng = random.Random(f"parallel {size}k{k}")
    solver = Solver(g, tt_log2=18)
    memo: dict = {}
    checked = 0
    while checked < 15:
        pos = Position(g)
        for _ in range(rng.randint(min_ply, g.cells - 2)):
            pos.play(rng.choice(pos.legal_moves()))
            if pos.is_over:
                break
        if pos.is_over:
            continue
        want = brute_score(pos, memo)
        solver.reset()
        assert solver.solve(pos, threads=2).score == want, repr(pos)
        assert solver.solve(pos, threads=3, weak=True).score == _sign(want), repr(pos)
        checked += 1


def test_the_windows_are_pons_probe_then_its_neighbours_inside_the_interval():
    assert pons_probe(-21, 21) == -10  # the empty board: Pons' driver asks "more than -10?" first
    assert next_windows(-21, 21, set(), 2) == [-10, -9]
    assert next_windows(-21, 21, {-10}, 2) == [-9, -11]
    assert next_windows(-1, 3, set(), 2) == [1, 2]
    assert next_windows(-1, 1, set(), 3) == [0, -1]  # a weak solve has two windows at most
    assert next_windows(3, 4, {3}, 2) == []
    assert next_windows(0, 5, set(), 0) == []
    for lo in range(-6, 6):
        for hi in range(lo + 1, 7):
            got = next_windows(lo, hi, set(), hi - lo)
            assert sorted(got) == list(range(lo, hi)), (lo, hi)
            assert got[0] == pons_probe(lo, hi)


def test_an_immediate_win_needs_no_thread(shared):
    r = shared.solve(Position.parse("112233"), threads=2)
    assert (r.score, r.nodes) == ((42 + 1 - 6) // 2, 0)


def test_the_budget_covers_all_windows_and_the_table_stays_usable(shared):
    shared.reset()
    with pytest.raises(BudgetExceeded) as info:
        shared.solve(Position.parse(HARD), threads=2, node_budget=200_000)
    assert info.value.nodes > 200_000 and info.value.reason == "node budget"
    assert shared.last_nodes == info.value.nodes
    moves = "52753311433677442422121"
    assert shared.solve(Position.parse(moves), threads=2).score == 8


def test_the_stop_flag_ends_every_thread(shared):
    stop = np.zeros(1, dtype=np.uint8)
    timer = threading.Timer(0.3, lambda: stop.__setitem__(0, 1))
    timer.start()
    shared.reset()
    try:
        with pytest.raises(BudgetExceeded) as info:
            shared.solve(Position.parse(HARD), threads=2, stop=stop)
    finally:
        timer.cancel()
    assert info.value.reason == "stop flag" and info.value.nodes > 0
    assert not [t for t in threading.enumerate() if t.name.startswith("c4-solve-window")]


@pytest.mark.parametrize("threads", [0, -2, 1.5])
def test_a_bad_thread_count_is_refused(shared, threads):
    with pytest.raises(ValueError, match="threads must be a whole number"):
        shared.solve(Position.parse("4453"), threads=threads)


def test_the_benchmark_prints_each_thread_count_side_by_side(capsys):
    import json

    from c4.main import main

    easy, harder = "52753311433677442422121", "274552224131661"  # Test_L2_R1 and Test_L2_R2 lines: 8 and 0
    assert main(["bench", "threads", "--moves", easy, "--moves", harder, "--threads", "1,2", "--rounds", "2",
                 "--json", "--tt-log2", "20"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = {(r["moves"], r["threads"]): r for r in out["positions"]}
    assert set(rows) == {(m, n) for m in (easy, harder) for n in (1, 2)}
    assert all(r["scores_agree"] and r["nodes"] > 0 and r["wall_s"] > 0 for r in rows.values())
    assert (rows[(easy, 2)]["score"], rows[(harder, 2)]["score"], rows[(harder, 1)]["speedup"]) == (8, 0, 1.0)


@pytest.mark.parametrize("argv,message", [
    (["--moves", "1111111"], "--moves: move 7 (1): column 1 is full"),
    (["--moves", "44x"], "--moves:"),
    (["--threads", "0"], "--threads: must be in 1..64"),
    (["--threads", "1,x"], "--threads"),
])
def test_the_benchmark_refuses_bad_input_with_one_line(capsys, argv, message):
    from tests.c4cli import run_c4

    code, err = run_c4(["bench", "threads", *argv], capsys)
    assert code == 2 and message in err


def test_an_idle_thread_helps_from_the_other_end_of_the_search():
    from solver_svc.solver.parallel import help_jobs

    start = Position()
    jobs = help_jobs(start, 0)
    positions = [(c, m, ply, b) for c, m, ply, b in jobs]
    # "more than 0" through d: every reply to 4, the far end first (g, then f ...; a mirror image once)
    after_d = [Position.parse(m) for m in ("47", "46", "45", "44")]
    assert positions[:4] == [(p.current, p.mask, 2, 0) for p in after_d]
    # "at most 0": every first move's score at least 0, the far end first
    assert positions[4:] == [(p.current, p.mask, 1, -1) for p in map(Position.parse, ("7", "6", "5", "4"))]
    pos = Position.parse("4444")
    for bound in (-3, 0, 2):
        for cur, mask, ply, b in help_jobs(pos, bound):
            p = next(q for q in (*(pos.played(c) for c in pos.legal_moves()),
                                 *(pos.played(c).played(r) for c in pos.legal_moves() for r in range(7)
                                   if pos.played(c).can_play(r)))
                     if (q.current, q.mask) == (cur, mask))
            assert not p.is_over and not p.can_win_next() and ply == p.ply
            assert b == (bound if p.ply == pos.ply + 2 else -bound - 1)
