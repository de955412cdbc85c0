"""The batch kernel as standalone machine code (solver_svc.solver.native) and
``c4 solve``'s fast start on it: the same answers and nodes as the numba
Solver, and a process that imports neither numba nor numpy."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from connect4 import STANDARD, Geometry
from solver_svc.solver import Solver
from solver_svc.solver.native import NativeSolver, NativeUnavailable, board, export, file_for, is_current

B76 = board(7, 6, 4)
BAD_LINES = ["", "9", "1111111", "4444444", "12x", "4455443322"]  # empty board aside: see below


@pytest.fixture(scope="module")
def native_dir(tmp_path_factory):
    where = tmp_path_factory.mktemp("native")
    assert export(STANDARD, where) == file_for(B76, where)
    return where


def _lines(read_set, pons_sets, n=60):
    return [m for name in ("Test_L3_R1", "Test_L2_R1") for m, _ in read_set(pons_sets / name, n)]


def test_native_batches_equal_the_numba_solver(native_dir, read_set, pons_sets):
    lines = _lines(read_set, pons_sets) + BAD_LINES[1:]
    native, numba = NativeSolver(B76, tt_log2=20, where=native_dir), Solver(STANDARD, tt_log2=20)
    for weak in (False, True):
        a, b = native.solve_many(lines, weak=weak), numba.solve_many(lines, weak=weak)
        assert a.scores == b.scores.tolist() and a.nodes == b.nodes.tolist() and a.errors == b.errors.tolist()
        a, b = native.analyze_many(lines[:20], weak=weak), numba.analyze_many(lines[:20], weak=weak)
        assert a.scores == b.scores.tolist() and a.nodes == b.nodes.tolist()
    # 0-based move lists, and a table kept across lines (fresh=False) as c4 solve keeps it
    cols = [[int(c) - 1 for c in m] for m in lines[:30]]
    a, b = native.solve_many(cols, fresh=False), numba.solve_many(cols, fresh=False)
    assert a.scores == b.scores.tolist() and a.nodes == b.nodes.tolist()


def test_another_build_or_a_bad_file_is_not_used(native_dir, tmp_path):
    assert is_current(B76, native_dir)
    with pytest.raises(NativeUnavailable, match="no machine code for 6x5k4"):
        NativeSolver(board(6, 5, 4), where=native_dir)
    path = file_for(B76, tmp_path)
    head, _, code = file_for(B76, native_dir).read_bytes().partition(b"\n")
    header = json.loads(head)
    path.write_bytes(json.dumps({**header, "stamp": "0" * 64}).encode() + b"\n" + code)
    assert not is_current(B76, tmp_path)
    with pytest.raises(NativeUnavailable, match="another build"):
        NativeSolver(B76, where=tmp_path)
    path.write_bytes(b"garbage\n\0\0")
    with pytest.raises(NativeUnavailable, match="not a machine-code file"):
        NativeSolver(B76, where=tmp_path)


def test_another_board_and_line_length(tmp_path):
    for g in (Geometry.parse("4x4", 3),):
        export(g, tmp_path)
        lines = ["", "1", "12", "2233", "3", "1111"]
        native = NativeSolver(board(g.width, g.height, g.k), tt_log2=18, where=tmp_path)
        a, b = native.analyze_many(lines), Solver(g, 18).analyze_many(lines)
        assert a.scores == b.scores.tolist() and a.errors == b.errors.tolist()


FAST = ("import sys\nfrom c4.main import main\ncode = main(sys.argv[1:])\n"
        "print(sorted(m for m in ('numba', 'numpy', 'llvmlite') if m in sys.modules), code)\n")


def _c4_solve(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", FAST, "solve", *args], input=stdin, capture_output=True,
                          text=True, timeout=600)


def test_c4_solve_starts_without_numba_and_answers_as_the_numba_path(read_set, pons_sets):
    lines = _lines(read_set, pons_sets, 30) + [x for x in BAD_LINES[1:] if x.isdigit()]
    stdin = "".join(m + "\n" for m in lines)
    slow = _c4_solve("--no-native", stdin=stdin)  # numba; does not write the machine code
    assert slow.stdout.splitlines()[-1] == "['llvmlite', 'numba', 'numpy'] 0"
    _c4_solve("52753311433677442422121")  # writes the machine code when this build has none yet
    assert is_current(B76)
    fast = _c4_solve(stdin=stdin)
    assert fast.stdout.splitlines()[-1] == "['llvmlite'] 0", fast.stderr
    assert fast.stdout.splitlines()[:-1] == slow.stdout.splitlines()[:-1] and fast.stderr == slow.stderr
    assert 'Invalid move 1 "9": column 9 is off the board (1..7)' in fast.stderr
    for flags in (["-a"], ["-w"], ["--fresh", "-a", "-w"]):
        args = [*flags, "52753311433677442422121", "2252576253462244111563365343671351441"]
        fast, slow = _c4_solve(*args), _c4_solve("--no-native", *args)
        assert fast.stdout.splitlines()[:-1] == slow.stdout.splitlines()[:-1]
        assert fast.stdout.splitlines()[-1] == "['llvmlite'] 0"
    # another notation needs connect4's parser (which imports numba): the same answers still
    fast, slow = _c4_solve("ebgeccaadccfggddbdbbaba", "12x"), _c4_solve("--no-native", "ebgeccaadccfggddbdbbaba", "12x")
    assert fast.stdout.splitlines() == slow.stdout.splitlines() and fast.stderr == slow.stderr
    assert fast.stdout.startswith("ebgeccaadccfggddbdbbaba 8\n")
    assert "column 'x' is not on this 7-wide board" in fast.stderr


def test_bench_solve_start(capsys):
    from c4.main import main

    assert main(["bench", "solve-start", "--n", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 2 and out["start"] == "native"
    assert 0 < out["first_s"]["min"] <= out["first_s"]["median"] <= out["wall_s"]["median"]
    assert out["cpu_s"]["min"] > 0
    assert main(["bench", "solve-start", "--line", "12x"]) == 2
    assert "--line must be 1-based column digits" in capsys.readouterr().err
