"""``c4 solve``, ``c4 analyze``, ``c4 values`` and ``c4 bench solver``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from c4.main import main
from tests.c4cli import run_c4


def test_solve_arguments(capsys):
    assert main(["solve", "52753311433677442422121", "2252576253462244111563365343671351441"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "52753311433677442422121 8",
        "2252576253462244111563365343671351441 -1",
    ]


def test_solve_weak(capsys):
    assert main(["solve", "-w", "52753311433677442422121", "2252576253462244111563365343671351441"]) == 0
    assert capsys.readouterr().out.split() == ["52753311433677442422121", "1",
                                               "2252576253462244111563365343671351441", "-1"]


def test_analyze_full_column_prints_minus_1000(capsys):
    assert main(["solve", "-a", "4444441526"]) == 0
    fields = capsys.readouterr().out.split()
    assert fields[0] == "4444441526"
    assert len(fields) == 8 and fields[4] == "-1000"
    assert main(["analyze", "4444441526"]) == 0
    assert capsys.readouterr().out.split() == fields


def test_invalid_lines_on_stdin(monkeypatch, capsys):
    import io

    lines = "52753311433677442422121\n44444444\n1212121\n18\nxyz!\n2252576253462244111563365343671351441\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
    assert main(["solve"]) == 0
    out = capsys.readouterr()
    assert out.out.split("\n") == [
        "52753311433677442422121 8", "", "", "", "", "2252576253462244111563365343671351441 -1", "",
    ]
    err = out.err.splitlines()
    assert err[0].startswith('Line 2: Invalid move 7 "44444444"')
    # a winning move ends the game: invalid, as in c4solver
    assert err[1].startswith('Line 3: Invalid move 7 "1212121"')
    assert err[2].startswith('Line 4: Invalid move 2 "18"')
    assert err[3].startswith('Line 5: Invalid move')
    assert len(err) == 4


def test_process_pipe_answers_line_by_line():
    """Each answer is flushed at once: a client can wait for it before writing on."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "c4.main", "solve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, bufsize=1,
    )
    try:
        proc.stdin.write("52753311433677442422121\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "52753311433677442422121 8\n"
        proc.stdin.write("9\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "\n"
        proc.stdin.write("2252576253462244111563365343671351441\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "2252576253462244111563365343671351441 -1\n"
    finally:
        proc.stdin.close()
        assert proc.wait(60) == 0
    assert 'Line 2: Invalid move 1 "9"' in proc.stderr.read()


def test_other_size(capsys):
    assert main(["solve", "--size", "4x4", "--connect", "3", "1", "12"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["1", "12"]


@pytest.mark.parametrize("command", ["solve", "analyze"])
def test_a_size_out_of_range_names_the_limits_and_the_command(capsys, command):
    assert main([command, "--size", "17x6", "44"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"c4 {command}: board 17x6 is out of range: width and height 1..16")


def test_values(capsys):
    assert main(["values", "4x4", "5x4", "6x4"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert [(r.split()[0], r.split()[2]) for r in rows] == [("4x4", "="), ("5x4", "="), ("6x4", "-")]


def test_bench_json(capsys, pons_sets):
    assert main(["bench", "solver", "--set", str(pons_sets / "Test_L2_R1"), "--n", "30", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert set(figures) == {"set", "n", "correct", "mean_us", "mean_nodes", "nodes_per_s", "compile_s"}
    assert figures["set"] == "Test_L2_R1" and figures["n"] == 30 and figures["correct"] == 30
    assert figures["mean_nodes"] > 0


def test_many_lines_at_once_through_a_pipe(pons_sets, read_set):
    """A pipe full of lines is answered in batches, in order, one answer a line."""
    rows = read_set(pons_sets / "Test_L3_R1", 300)
    lines = [m for m, _ in rows]
    lines[5] = "44444444"  # an invalid line in the middle keeps the pairing
    lines[9] = "d1 d2 e1"  # another notation
    proc = subprocess.run([sys.executable, "-m", "c4.main", "solve", "--fresh"], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0
    out = proc.stdout.split("\n")
    assert len(out) == len(lines) + 1 and out[-1] == ""
    for i, ((moves, expected), answer) in enumerate(zip(rows, out, strict=False)):
        if i == 5:
            assert answer == ""
        elif i == 9:
            assert answer.startswith("d1 d2 e1 ")
        else:
            assert answer == f"{moves} {expected}"
    assert proc.stderr.startswith('Line 6: Invalid move 7 "44444444": column 4 is full')


def test_batches_grow_with_fast_lines():
    from c4.commands.solve import batches

    sizes = []
    for _, _result in batches(list(range(10_000)), lambda chunk, i: sizes.append(len(chunk)) or chunk, 0.001):
        pass
    assert sizes[0] == 1 and max(sizes) > 1 and sum(sizes) == 10_000


def test_warm_start_skips_numba_registries():
    """With a warm cache, c4 solve links the cached kernel without numba's
    registry refresh (which imports numba.np.linalg among others)."""
    code = ("import sys\nfrom c4.main import main\nmain(['solve', '52753311433677442422121'])\n"
            "print('numba.np.linalg' in sys.modules)\n")
    for _ in range(2):  # the first run may compile and fill the cache
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300).stdout
    assert out.splitlines() == ["52753311433677442422121 8", "False"]


def test_solve_starts_without_the_other_commands_modules():
    """c4 solve imports its own command module alone (not asyncio, grpc ...
    of the other commands), does not start numba's runtime (its kernels use
    none)."""
    code = ("import sys\nsys.argv = ['c4', 'solve', '52753311433677442422121']\nfrom c4.main import main\nmain()\n"
            "from numba.core.runtime.nrt import rtsys\n"
            "print(sorted(m for m in ('asyncio', 'grpc', 'c4.commands.up') if m in sys.modules), "
            "rtsys._init)\n")
    for _ in range(2):  # the first run may compile and fill the cache
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300).stdout
    assert out.splitlines() == ["52753311433677442422121 8", "[] False"]


@pytest.fixture
def bad_sets(tmp_path):
    (tmp_path / "three-fields").write_text("1234 5 6\n")
    (tmp_path / "not-a-score").write_text("52753311433677442422121 8\n1234 x\n")
    (tmp_path / "empty").write_text("\n")
    return tmp_path


BAD = [
    (["values", "4x4", "--tt-log2", "5"], "--tt-log2: must be in 18..32"),
    (["values", "4x4", "--tt-log2", "40"], "--tt-log2"),
    (["solve", "--tt-log2", "40", "4453"], "--tt-log2"),
    (["analyze", "--tt-log2", "x", "4453"], "--tt-log2"),
    (["bench", "solver", "--set", "Test_L1_R1", "--tt-log2", "99"], "--tt-log2"),
    (["bench", "solver", "--set", "Test_L1_R1", "--n", "-5"], "--n"),
    (["bench", "solver", "--set", "/no/such/set"], "no test set '/no/such/set'"),
    (["bench", "solver", "--set", "{dir}"], "is not a file"),
    (["bench", "solver", "--set", "{dir}/three-fields"], "line 1: not a 'moves score' line"),
    (["bench", "solver", "--set", "{dir}/not-a-score"], "line 2: not a 'moves score' line"),
    (["bench", "solver", "--set", "{dir}/empty"], "has no positions"),
]


@pytest.mark.parametrize("argv,message", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_arguments_are_one_clear_error(argv, message, bad_sets, capsys):
    code, err = run_c4([a.replace("{dir}", str(bad_sets)) for a in argv], capsys)
    assert code == 2 and message in err and "Traceback" not in err, err


def test_bench_against_a_dead_service_fails_at_once(pons_sets, capsys):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, err = run_c4(["bench", "solver", "--set", str(pons_sets / "Test_L3_R1"), "--n", "1",
                        "--service", f"127.0.0.1:{port}"], capsys)
    assert code == 1 and f"cannot reach the solver service at 127.0.0.1:{port}" in err
