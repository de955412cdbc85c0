"""`c4 bench engine --size`: the figures on a large board's own positions, and
a size off the limits refused with them (through the real entry point)."""

import json

import pytest

from c4.main import main
from tests.c4cli import run_c4


@pytest.mark.parametrize("size", ["8x8", "16x16"])
def test_c4_bench_engine_on_a_large_board(size, capsys):
    assert main(["bench", "engine", "--size", size, "--positions", "2", "--depth", "4", "--tt-mb", "8",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["size"] == size and out["positions"] == 2 and out["nodes"] > 0 and out["nodes_per_s"] > 0
    assert out["depth_1000ms"] >= 1 and "depth_500ms" not in out


@pytest.mark.parametrize("argv,message", [
    (["bench", "engine", "--size", "17x6"], "board 17x6 is out of range: width and height 1..16"),
    (["bench", "engine", "--size", "8x8", "--connect", "9"], "line length 9 does not fit on a 8x8 board"),
    (["bench", "engine", "--size", "big"], "board size 'big' must look like 7x6"),
])
def test_a_bad_size_is_one_clear_error(argv, message, capsys):
    code, err = run_c4(argv, capsys)
    assert code == 2 and message in err and "Traceback" not in err, err
