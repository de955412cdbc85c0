"""`c4 match`, `c4 arena` and `c4 audit` with a player that refuses the board
(a learned player past 7x6): one clear line on stderr, exit 2, no traceback."""

from __future__ import annotations

import pytest

from tests.c4cli import run_c4

REFUSED = [
    ["match", "net", "random", "--size", "8x8", "--games", "2", "--books", "none", "--quiet"],
    ["match", "random", "az", "--size", "9x7", "--games", "2", "--books", "none", "--quiet"],
    ["arena", "dqn", "random", "--size", "8x8", "--games", "2", "--out", "{tmp}/arena"],
    ["audit", "net", "--size", "8x8", "--games", "1"],
]


@pytest.mark.parametrize("argv", REFUSED, ids=[" ".join(a[:3]) for a in REFUSED])
def test_a_player_that_refuses_the_board_is_one_clear_line(argv, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, err = run_c4(argv, capsys)
    size = argv[argv.index("--size") + 1]
    assert code == 2, err
    assert err.strip().count("\n") == 0 and "Traceback" not in err, err
    assert err.startswith(f"c4 {argv[0]}: player ") and f"play 7x6 only, not {size}" in err, err


def test_search_and_solver_are_not_refused_past_64_bits(capsys):
    code, err = run_c4(["match", "search", "random", "--size", "8x8", "--games", "2", "--opening-plies", "0",
                        "--books", "none", "--seed", "1", "--json", "--quiet"], capsys)
    assert code == 0 and err == "", err
