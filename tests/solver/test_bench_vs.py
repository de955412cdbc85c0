"""``c4 bench solver --vs CMD``: side by side with another line-protocol solver.

The other solver in the good case is a real one: this project's own
``c4 solve --fresh`` in a second process. The bad cases run a small program
that speaks the protocol and then misbehaves at a chosen line (the input
under test, not a stand-in for a solver).
"""

from __future__ import annotations

import json
import shlex
import sys

import pytest

from c4.main import main
from tests.c4cli import run_c4

MISBEHAVE = r'''
import sys, time
mode, at = sys.argv[1], int(sys.argv[2])
seen, previous = 0, "?"
for line in sys.stdin:
    moves = line.strip()
    if moves in ("121212", "52753311433677442422121"):  # calibration and warm-up lines: right
        print(moves, 18 if moves == "121212" else 8, flush=True)
        continue
    seen += 1
    if seen == at:
        if mode == "exit":
            print("giving up", file=sys.stderr, flush=True)
            sys.exit(3)
        if mode == "sleep":
            time.sleep(60)
        answer = {"garbage": moves + " many", "step": previous + " 0", "empty": "", "noscore": moves}[mode]
        print(answer, flush=True)
    else:
        print(moves, 0, 123, 45, flush=True)
    previous = moves
'''


def test_side_by_side_with_a_second_c4_solve(pons_sets, capsys):
    other = shlex.join([sys.executable, "-m", "c4.main", "solve", "--fresh"])
    # positions of a millisecond or more: its net CPU stands well above the noise of its fixed cost per line
    # (with the small table first, Test_L1_R1's 0.2 ms a line was too short for that at load 10)
    argv = ["bench", "solver", "--set", str(pons_sets / "Test_L2_R2"), "--set", str(pons_sets / "Test_L1_R2"),
            "--n", "8", "--rounds", "2", "--vs", other, "--json"]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["vs"] == other and result["rounds"] == 2 and not result["weak"]
    assert [s["set"] for s in result["sets"]] == ["Test_L2_R2", "Test_L1_R2"]
    for s in result["sets"]:
        assert s["n"] == s["ours_correct"] == s["other_correct"] == 8
        assert s["ours_nodes"] > 0 and s["ours_cpu_us"] > 0 and s["ratio"] > 0
        assert s["other_nodes"] is None and s["other_timer_us"] is None  # c4 solve prints neither
        assert s["other_timer_floor_us"] is None
        assert s["basis"] == "cpu" and s["ratio_min"] <= s["ratio"] <= s["ratio_max"]
        # the per-solve part: inside the solver calls, so within our whole-line CPU; no timer, no per-solve ratio
        assert 0 < s["ours_solve_cpu_us"] <= s["ours_cpu_us"]
        assert s["solve_ratio"] is None and s["solve_ratio_min"] is None


def test_side_by_side_table(pons_sets, capsys, tmp_path):
    script = tmp_path / "other.py"
    script.write_text(MISBEHAVE)
    other = shlex.join([sys.executable, str(script), "garbage", "1000"])  # never misbehaves: scores 0
    code = main(["bench", "solver", "--set", str(pons_sets / "Test_L3_R1"), "--n", "5", "--rounds", "1",
                 "--vs", other])
    out, err = capsys.readouterr()
    assert code == 1  # the other got lines wrong
    lines = out.splitlines()
    assert lines[1].split()[:4] == ["set", "n", "ok", "ours"]
    row = lines[2].split()
    assert row[:3] == ["Test_L3_R1", "5", "5"] and row[3] != "5"
    assert row[-2] == "123.0" and row[7] == "45.0"  # the nodes and the time it printed
    assert "solve/timer" in lines[1]
    ours_solve, solve_ratio = float(row[12].replace(",", "")), float(row[13])
    assert ours_solve > 0 and solve_ratio == pytest.approx(ours_solve / 45, abs=0.006)  # per solve: over its timer
    assert "wrong: other: line 1" in err


def _script(tmp_path, mode: str, at: int) -> str:
    script = tmp_path / "other.py"
    script.write_text(MISBEHAVE)
    return shlex.join([sys.executable, str(script), mode, str(at)])


BAD_OTHERS = [
    ("garbage", "Test_L3_R1 line 2 ({m2}): garbage answer '{m2} many' ('many' is not a number)"),
    ("step", "Test_L3_R1 line 2 ({m2}): out of step, the other solver answered '{m1} 0'"),
    ("empty", "Test_L3_R1 line 2 ({m2}): the other solver answered an empty line"),
    ("noscore", "Test_L3_R1 line 2 ({m2}): garbage answer '{m2}' (no score)"),
    ("exit", "Test_L3_R1 line 2 ({m2}): the other solver closed its output (exit status 3) instead of answering; "
             "its stderr: giving up"),
]


@pytest.mark.parametrize("mode,message", BAD_OTHERS, ids=[m for m, _ in BAD_OTHERS])
def test_a_misbehaving_other_stops_with_the_line_named(mode, message, tmp_path, pons_sets, read_set, capsys):
    rows = read_set(pons_sets / "Test_L3_R1", 3)
    code, err = run_c4(["bench", "solver", "--set", str(pons_sets / "Test_L3_R1"), "--n", "3", "--rounds", "1",
                        "--vs", _script(tmp_path, mode, 2)], capsys)
    assert code == 1
    assert message.format(m1=rows[0][0], m2=rows[1][0]) in err, err
    assert "Traceback" not in err


def test_a_silent_other_times_out(tmp_path, pons_sets, read_set, capsys):
    rows = read_set(pons_sets / "Test_L3_R1", 1)
    code, err = run_c4(["bench", "solver", "--set", str(pons_sets / "Test_L3_R1"), "--n", "1", "--rounds", "1",
                        "--vs-timeout", "1", "--vs", _script(tmp_path, "sleep", 1)], capsys)
    assert code == 1 and f"Test_L3_R1 line 1 ({rows[0][0]}): no answer within 1 s" in err, err


def test_a_wrong_calibration_answer_stops(pons_sets, capsys):
    # sed appends a score of 0 to every line: the calibration line's score is 18
    code, err = run_c4(["bench", "solver", "--set", str(pons_sets / "Test_L3_R1"), "--n", "1",
                        "--vs", "sed -u 's/$/ 0/'"], capsys)
    assert code == 1 and "calibration line 1 (121212): the other solver scored 0, the score is 18" in err, err


@pytest.mark.parametrize("command,message", [
    ("", "--vs: the command is empty"),
    ("'unbalanced", "--vs: cannot parse the command"),
])
def test_bad_vs_commands_are_refused(command, message, pons_sets, capsys):
    code, err = run_c4(["bench", "solver", "--set", str(pons_sets / "Test_L3_R1"), "--n", "1", "--vs", command],
                       capsys)
    assert code == 2 and message in err, err


def test_a_command_that_cannot_start(pons_sets, capsys):
    code, err = run_c4(["bench", "solver", "--set", str(pons_sets / "Test_L3_R1"), "--n", "1",
                        "--vs", "/no/such/c4solver -w"], capsys)
    assert code == 1 and "cannot start '/no/such/c4solver'" in err, err


def test_all_names_the_six_sets():
    from c4.bench.solver import ALL_SETS, load_sets

    assert [p.name for p, _ in load_sets(["all"], 1)] == list(ALL_SETS)
