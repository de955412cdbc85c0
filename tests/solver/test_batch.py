"""solve_many / analyze_many (one numba call for many positions), test(),
preload(), the table epochs."""

from __future__ import annotations

import numpy as np
import pytest

from connect4 import STANDARD, Geometry, Position
from solver_svc.solver import (FULL_COLUMN, NO_SCORE, OFF_BOARD, OK, WINS, BudgetExceeded, Solver)
from solver_svc.solver.layout import MAIN_PAIRS, SMALL_PAIRS, bucket_bits
from solver_svc.solver.table import EPOCH, EPOCH_MAX, GROW_AT, OTHER, SMALL_LOG2, layout, table_kernels


def test_solve_many_matches_solve_with_a_fresh_table(pons_sets, read_set):
    rows = read_set(pons_sets / "Test_L2_R1", 60) + read_set(pons_sets / "Test_L1_R1", 20)
    solver = _no_small_table(Solver(STANDARD, tt_log2=20))  # solve() has none: the same table, the same search
    batch = solver.solve_many([m for m, _ in rows])
    assert batch.scores.tolist() == [e for _, e in rows]
    assert batch.ok.all() and len(batch) == len(rows)
    for (moves, _), nodes in zip(rows, batch.nodes.tolist(), strict=False):
        solver.reset()
        assert solver.solve(Position.parse(moves)).nodes == nodes  # the same search, node for node


def test_solve_many_inputs_and_weak(solver, pons_sets, read_set):
    rows = read_set(pons_sets / "Test_L3_R1", 30)
    positions = [Position.parse(m) for m, _ in rows]
    as_lists = [p.moves for p in positions]
    strong = solver.solve_many(positions)
    assert strong.scores.tolist() == [e for _, e in rows]
    assert solver.solve_many(as_lists).scores.tolist() == strong.scores.tolist()
    weak = solver.solve_many([m for m, _ in rows], weak=True)
    assert weak.scores.tolist() == [(e > 0) - (e < 0) for _, e in rows]


def test_solve_many_without_fresh_keeps_the_table(solver, pons_sets, read_set):
    rows = read_set(pons_sets / "Test_L2_R2", 5)
    moves = [m for m, _ in rows]
    solver.reset()
    first = solver.solve_many(moves, fresh=False)
    again = solver.solve_many(moves, fresh=False)
    assert first.scores.tolist() == again.scores.tolist() == [e for _, e in rows]
    assert again.nodes.sum() < first.nodes.sum()


def test_solve_many_checks_every_move(solver):
    lines = ["52753311433677442422121", "44444444", "1212121", "18", "40", "4x", "4" + chr(0x20ac)]
    batch = solver.solve_many(lines)
    codes = [tuple(e) for e in batch.errors.tolist()]
    assert codes == [(OK, 0), (FULL_COLUMN, 7), (WINS, 7)] + [(OFF_BOARD, 2)] * 4
    assert batch.scores[0] == 8


def test_full_board_is_a_draw():
    g = Geometry(2, 3, 3)
    s = Solver(g, tt_log2=18)
    moves = [0, 1, 1, 0, 0, 1]  # no three in a row on 2x3
    assert s.solve_many([moves]).scores.tolist() == [0]
    assert s.analyze_many([moves]).scores.tolist() == [[NO_SCORE, NO_SCORE]]
    full = Position.from_moves(moves, g)
    assert s.test(full, -1) and not s.test(full, 0)


def test_analyze_many_matches_analyze(solver, pons_sets, read_set):
    rows = read_set(pons_sets / "Test_L2_R1", 8) + [("4444441526", None)]
    batch = solver.analyze_many([m for m, _ in rows])
    assert batch.scores.shape == (len(rows), 7)
    for (moves, _), row in zip(rows, batch.scores.tolist(), strict=False):
        solver.reset()
        assert [None if s == NO_SCORE else s for s in row] == solver.analyze(Position.parse(moves))
    weak = solver.analyze_many([rows[0][0]], weak=True).scores[0].tolist()
    assert weak == [NO_SCORE if s == NO_SCORE else (s > 0) - (s < 0) for s in batch.scores[0].tolist()]


def test_solve_many_budget_and_stop():
    s = Solver(STANDARD, tt_log2=18)
    easy = "52753311433677442422121"
    with pytest.raises(BudgetExceeded) as info:
        s.solve_many([easy, "4453", easy], node_budget=5000)
    assert info.value.index == 1 and len(info.value.batch) == 1
    assert info.value.batch.scores.tolist() == [8]
    assert 0 < info.value.nodes <= 5001
    stop = np.ones(1, dtype=np.uint8)
    with pytest.raises(BudgetExceeded) as info:
        s.solve_many([easy, easy], stop=stop)
    assert info.value.index == 0 and info.value.reason == "stop flag"
    assert s.solve_many([easy]).scores.tolist() == [8]  # nothing unproved was stored


def test_null_window_test_agrees_with_solve(solver, pons_sets, read_set):
    for moves, expected in read_set(pons_sets / "Test_L2_R1", 25)[::5] + [("112233", 18)]:
        pos = Position.parse(moves)
        for bound in (expected - 2, expected - 1, expected, expected + 1):
            solver.reset()
            assert solver.test(pos, bound) == (expected > bound), (moves, bound)
        solver.reset()
        assert solver.test(pos, -99) and not solver.test(pos, 99)


def test_test_budget(solver):
    with pytest.raises(BudgetExceeded):
        solver.test(Position.parse("4453"), 0, node_budget=1000)
    assert solver.last_nodes == 1001


def test_preload_is_believed_and_forgotten_on_reset(solver):
    pos = Position.parse("52753311433677442422121")
    solver.reset()
    assert solver.preload({pos.key(): -5}) == 1
    assert solver.solve(pos).score == -5  # a false score is believed: proof the search reads it
    solver.reset()
    assert solver.preload({pos.mirror_key(): 3}) == 1  # either orientation
    assert solver.solve(pos).score == 3
    solver.reset()
    assert solver.solve(pos).score == 8
    with pytest.raises(ValueError):
        solver.preload({pos.key(): 40})


def test_epoch_wrap_clears_the_table():
    s = Solver(STANDARD, tt_log2=18)
    pos = Position.parse("52753311433677442422121")
    base = s.solve(pos).nodes
    s.table.state[EPOCH_MAX] = 3  # wrap after two resets
    for _ in range(7):
        s.reset()
        assert 1 <= s.table.state[EPOCH] <= 3
        r = s.solve(pos)
        assert (r.score, r.nodes) == (8, base)
        assert (s.table.words != 0).sum() > 0
    s.table.state[EPOCH] = 3
    s.reset()  # the wrap: memory zeroed
    assert s.table.state[EPOCH] == 1 and not s.table.words.any()


@pytest.mark.parametrize("pairs", [True, False])
@pytest.mark.parametrize("size", [(7, 6), (8, 7), (16, 3), (4, 15), (4, 4), (3, 2)])
def test_layout_fits_a_word(size, pairs):
    g = Geometry(*size, k=min(4, max(size)))
    for log2 in (18, 23, 32):
        log2_used, payload, tag, epoch = layout(g, log2, pairs)
        assert log2_used >= log2 and epoch >= 1
        assert payload + tag + epoch <= 64
        assert tag + bucket_bits(log2_used, pairs) >= g.width * g.h1  # bucket + tag give the whole key


def test_prefault_keeps_entries(solver):
    pos = Position.parse("52753311433677442422121")
    solver.reset()
    first = solver.solve(pos).nodes
    solver.prefault()
    assert solver.solve(pos).nodes < first  # the entries are still there


def _no_small_table(s: Solver) -> Solver:
    s.table.small = np.zeros(1, dtype=np.uint64)  # run_batch takes a one-word table for none
    return s


@pytest.mark.parametrize("grow", [0, 37, 1000, 1 << 18, 1 << 40])
def test_fresh_searches_begin_in_the_small_table(grow, pons_sets, read_set):
    # grow: the nodes a search may spend in the small table before it moves to the main one
    # (0: at once, 1 << 40: never); every score exact whichever table the search ends in
    rows = read_set(pons_sets / "Test_L2_R2", 25) + read_set(pons_sets / "Test_L1_R1", 25)
    s = Solver(STANDARD, tt_log2=20)
    assert s.table.has_small and s.table.small.shape == (1 << SMALL_LOG2,)
    s.table.state[GROW_AT] = grow
    batch = s.solve_many([m for m, _ in rows])
    assert batch.scores.tolist() == [e for _, e in rows] and batch.ok.all()
    analyzed = s.analyze_many([m for m, _ in rows[:6]])
    for (moves, _), row in zip(rows[:6], analyzed.scores.tolist(), strict=True):
        want = _no_small_table(Solver(STANDARD, tt_log2=20)).analyze(Position.parse(moves))
        assert [None if v == NO_SCORE else v for v in row] == want
    if grow == 0:  # moved before its first node: the main table's search plus the one node that stopped
        plain = _no_small_table(Solver(STANDARD, tt_log2=20)).solve_many([m for m, _ in rows])
        assert (batch.nodes == plain.nodes + 1).all()
    # the main table's layout is back in place after every position, whichever table it ended in
    fresh = Solver(STANDARD, tt_log2=20)
    assert (s.table.state[EPOCH + 1:EPOCH_MAX + 1] == fresh.table.state[EPOCH + 1:EPOCH_MAX + 1]).all()


def _entries(words: np.ndarray, st: np.ndarray, payload: int, pairs: bool) -> set[tuple[int, int]]:
    """(h, payload) of every entry of the current epoch, decoded in Python from a layout's slots
    (``pairs``: two words a bucket)."""
    shift, epoch_bits, epoch = int(st[1]), int(st[3]), int(st[0])
    out = set()
    for slot in np.flatnonzero(words).tolist():
        w = int(words[slot])
        hi = w >> payload
        if hi & ((1 << epoch_bits) - 1) == epoch:
            out.add((((slot >> pairs) << shift) | (hi >> epoch_bits), w & ((1 << payload) - 1)))
    return out


def test_the_move_to_the_main_table_keeps_every_entry(pons_sets, read_set):
    s = Solver(STANDARD, tt_log2=20)
    s.table.state[GROW_AT] = 1 << 40  # never moves: the entries stay in the small table
    moves = read_set(pons_sets / "Test_L2_R2", 1)[0][0]
    s.solve_many([moves])
    st, pay = s.table.state, s.table.payload_bits
    small = _entries(s.table.small, st[OTHER:OTHER + 5], s.table.small_payload_bits, SMALL_PAIRS)
    assert len(small) > 1000 and not _entries(s.table.words, st[EPOCH:EPOCH + 5], pay, MAIN_PAIRS)  # fresh
    k = table_kernels(STANDARD, MAIN_PAIRS)
    k.swap_layout(s.table.ws)  # the small table's layout in use, as when a search moves
    k.migrate(s.table.small, s.table.words, s.table.ws)
    k.swap_layout(s.table.ws)
    # no two small entries meet in one main bucket (its number's bits include the small slot's): all kept
    assert _entries(s.table.words, st[EPOCH:EPOCH + 5], pay, MAIN_PAIRS) == small


def test_a_bucket_keeps_the_entry_of_most_work():
    # four positions that share one bucket of the main table (their hi words differ, the bucket is 0);
    # the first word keeps the most work, the second the latest of the rest; a word of an old epoch yields
    s = Solver(STANDARD, tt_log2=18)
    k, ws, tt = table_kernels(STANDARD, MAIN_PAIRS), s.table.ws, s.table.words
    epoch = int(ws[EPOCH])
    hi = [(t << int(ws[EPOCH + 3])) | epoch for t in (1, 2, 3, 4)]  # tags 1..4, this epoch

    def stored(i):
        return k.read(tt, 0, hi[i], False)

    def put(i, lower, work):
        k.store(tt, 0, hi[i], lower, 31, -1, False, work, tt[0], ws)

    put(0, 1, 10)
    put(1, 2, 5)
    assert stored(0)[0] == 1 and stored(1)[0] == 2
    put(2, 3, 7)  # less work than the first word's: takes the second
    assert stored(0)[0] == 1 and stored(2)[0] == 3 and stored(1)[0] == -32
    put(3, 4, 12)  # more work: the first word, whose entry moves down
    assert stored(3)[0] == 4 and stored(0)[0] == 1 and stored(2)[0] == -32
    put(0, 5, 1)  # a position already in the bucket is updated in place, whatever its work
    assert stored(0)[0] == 5 and stored(3)[0] == 4
    ws[EPOCH] += 1  # a new epoch: both words are old
    hi = [h + 1 for h in hi]
    put(1, 6, 0)
    assert k.read(tt, 0, hi[0], False)[0] == -32  # (the demoted old word is of no epoch now)
    assert stored(1)[0] == 6 and stored(3)[0] == -32
