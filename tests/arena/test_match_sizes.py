"""`c4 match --size/--connect`: a match on a board past 64 bits through the real
command line entry point, and a size off the limits refused naming them."""

from __future__ import annotations

import json

from c4.main import main


def test_c4_match_on_a_9x7_board(capsys):
    assert main(["match", "greedy", "random", "--games", "4", "--size", "9x7", "--seed", "2", "--json",
                 "--quiet"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["size"] == "9x7" and summary["games"] == 4
    assert summary["wins_a"] + summary["wins_b"] + summary["draws"] == 4


def test_c4_match_on_16x16_with_line_5(capsys):
    assert main(["match", "greedy", "random", "--games", "2", "--size", "16x16", "--connect", "5", "--json",
                 "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["size"] == "16x16k5"


def test_c4_match_refuses_a_size_off_the_limits(capsys):
    assert main(["match", "greedy", "random", "--size", "17x7"]) == 2
    assert capsys.readouterr().err.strip() == ("c4 match: board 17x7 is out of range: width and height 1..16, "
                                               "line length 2..max(width, height)")
    assert main(["match", "greedy", "random", "--size", "8x8", "--connect", "9"]) == 2
    assert "line length 9 does not fit on a 8x8 board" in capsys.readouterr().err
    assert main(["match", "greedy", "random", "--size", "8x8", "--books", "default"]) == 2
    assert "--books are 7x6 books" in capsys.readouterr().err
