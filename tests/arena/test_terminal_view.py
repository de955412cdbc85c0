"""The terminal view of c4 play on exact positions: last move, winning line,
coordinates, a gate override (plain and ANSI) and the winning-cells panel;
and the guarded person at the terminal."""

import io
import random

import pytest

from arena.board import panel, render
from arena.play import HUMAN, Quit, Seat, gate_lines, play_terminal
from arena.players import PlayerFactory
from connect4 import Geometry, Position
from connect4.gate import guard

from .test_play import _pty_session, run_play

# F c1 a2 b2 c2, S a1 b1 g1: second to move; first's winning cell d2 sits over the empty d1.
TRAP = "3112273"


def test_plain_board_with_an_override():
    pos = Position.parse(TRAP + "5")  # the gate played e instead of d
    assert render(pos, override=(3, 4)) == "\n".join([
        "   a b c d e f g",
        "  ╭───────────────╮",
        "6 │ · · · · · · · │ 6",
        "5 │ · · · · · · · │ 5",
        "4 │ · · · · · · · │ 4",
        "3 │ · · · · · · · │ 3",
        "2 │ ● ● ● · · · · │ 2",
        "1 │ ○ ○ ● ×[○]· ○ │ 1",
        "  ╰───────────────╯",
        "   a b c d e f g",
        "         ✗ ✓",
    ])


def test_coloured_board_with_an_override():
    text = render(Position.parse(TRAP + "5"), colour=True, override=(3, 4))
    lines = text.split("\n")
    amber_d = "\x1b[38;5;214m\x1b[5m\x1b[1md\x1b[0m"
    green_e = "\x1b[32m\x1b[1me\x1b[0m"
    assert lines[0] == lines[-1] == f"   a b c {amber_d} {green_e} f g"
    dim = "\x1b[2m·\x1b[0m"
    red, yellow = "\x1b[31m●\x1b[0m", "\x1b[33m●\x1b[0m"
    rejected = "\x1b[38;5;214m\x1b[5m\x1b[1m×\x1b[0m"
    played = "\x1b[33m\x1b[42m\x1b[1m●\x1b[0m"
    assert lines[7] == f"1 │ {yellow} {yellow} {red} {rejected} {played} {dim} {yellow} │ 1"
    assert lines[6] == f"2 │ {red} {red} {red} {dim} {dim} {dim} {dim} │ 2"
    assert "✗" not in text and "✓" not in text


def test_board_without_an_override_is_unchanged():
    pos = Position.parse(TRAP + "5")
    assert "×" not in render(pos) and "✓" not in render(pos)
    assert render(pos).split("\n")[7] == "1 │ ○ ○ ● ·[○]· ○ │ 1"


def test_winning_line_and_coordinates_on_another_size():
    won = Position.parse("1 2 1 2 1 2 1", Geometry(5, 4, 4))
    assert render(won) == "\n".join([
        "   a b c d e",
        "  ╭───────────╮",
        "4 │[◆]· · · · │ 4",
        "3 │ ◆ ○ · · · │ 3",
        "2 │ ◆ ○ · · · │ 2",
        "1 │ ◆ ○ · · · │ 1",
        "  ╰───────────╯",
        "   a b c d e",
    ])


def test_panel_counts_winning_cells():
    names = ["● greedy", "○ you"]
    assert panel(Position(), names) == "winning cells: ● greedy 0   ○ you 0"
    assert panel(Position.parse(TRAP), names) == "winning cells: ● greedy 1   ○ you 0"
    # F a1 b1 c1 (S a2 b2): first wins at d1 only; S has none yet
    assert panel(Position.parse("11223"), names) == "winning cells: ● greedy 1   ○ you 0"
    # F d1 d2 d3 with e1 e2 e3 of S: each has one
    assert panel(Position.parse("454545"), names) == "winning cells: ● greedy 1   ○ you 1"


def test_gate_lines_say_what_failed_and_why():
    v = guard(Position.parse(TRAP), 3)
    assert gate_lines(v) == [
        f"  gate: d rejected, the gate plays {'abcdefg'[v.played]} instead",
        "    ✗ not_under_threat: d lands directly under the opponent's winning cell d2",
        "    ✗ no_loss_in_two: after d, the opponent wins at once with d",
        f"    ✓ {'abcdefg'[v.played]} passes 4 of 4 checks",
    ]
    coloured = gate_lines(v, colour=True)
    assert coloured[1] == "\x1b[38;5;214m    ✗ not_under_threat: d lands directly under the opponent's winning " \
                          "cell d2\x1b[0m"
    assert gate_lines(guard(Position(), 3)) == ["  gate: d passes the four checks"]


def test_guarded_person_at_the_terminal_is_overridden():
    out = io.StringIO()
    seats = [Seat(HUMAN, None), Seat(HUMAN, None, guarded=True)]
    with pytest.raises(Quit):
        play_terminal(seats, Position.parse(TRAP), io.StringIO("d\nquit\n"), out)
    text = out.getvalue()
    played = "abcdefg"[guard(Position.parse(TRAP), 3).played]
    assert played == "c"  # the most central column passing all four checks
    assert "gate: d rejected, the gate plays " + played in text
    assert "✗ not_under_threat: d lands directly under the opponent's winning cell d2" in text
    assert f"○ you plays {played}" in text and "○ you plays d" not in text
    assert "\n   a b c d e f g\n       ✓ ✗\n" in text  # the marker line under the board
    assert "winning cells: ● you 1   ○ you 0" in text


def test_unguarded_person_plays_the_trap_and_loses():
    out = io.StringIO()
    pos = play_terminal([Seat(HUMAN, None), Seat(HUMAN, None)], Position.parse(TRAP), io.StringIO("d\nd\n"), out)
    assert pos.winner == 0 and "gate" not in out.getvalue()
    assert "● you wins at ply 9: a2 b2 c2 d2" in out.getvalue()


def test_guarded_games_never_hand_the_opponent_a_win():
    """A guarded person typing random columns against random: after each of its
    moves the opponent has no win at once, unless every column gave it one."""
    g = Geometry(7, 6)
    factory = PlayerFactory(g)
    overrides = 0
    for seed in range(12):
        rng = random.Random(seed)
        typed = "\n".join(rng.choice("abcdefg") for _ in range(200)) + "\n"
        seats = [Seat(HUMAN, None, guarded=True), Seat("random", factory.make("random", seed=seed))]
        out = io.StringIO()
        try:
            final = play_terminal(seats, Position(g), io.StringIO(typed), out)
        except Quit:
            continue
        overrides += out.getvalue().count("rejected, the gate plays")
        pos = Position(g)
        for i, col in enumerate(final.moves):
            if i % 2 == 0:
                def gives(c, p=pos):
                    q = p.played(c)
                    return not q.is_over and q.can_win_next()
                if any(not gives(c) for c in pos.legal_moves()):
                    assert not gives(col), (final.moves, i)
            pos.play(col)
    factory.close()
    assert overrides > 0


def test_c4_play_guarded_piped():
    out = run_play(["greedy", "you", "--from", TRAP, "--guarded"], "d\nquit\n")
    assert out.returncode == 1, out.stderr
    assert "✗ not_under_threat: d lands directly under the opponent's winning cell d2" in out.stdout
    assert "\x1b[" not in out.stdout


def test_c4_play_guarded_needs_a_person():
    out = run_play(["greedy", "random", "--guarded"], "")
    assert out.returncode == 2 and "--guarded guards a person's moves: one PLAYER must be 'you'" in out.stderr


def test_pty_guarded_override_flashes_amber_and_green():
    text = _pty_session({}, ["d", "quit"], args=("you", "you", "--guarded", "--from", TRAP))
    assert "\x1b[38;5;214m\x1b[5m\x1b[1md\x1b[0m" in text  # the rejected d, amber and blinking
    assert "\x1b[32m\x1b[1mc\x1b[0m" in text  # the played c, green
    assert "not_under_threat: d lands directly under the opponent's winning cell d2" in text


def test_pty_guarded_with_no_color_is_plain():
    text = _pty_session({"NO_COLOR": "1"}, ["d", "quit"], args=("you", "you", "--guarded", "--from", TRAP))
    assert "\x1b[3" not in text and "\x1b[5m" not in text
    assert "✗" in text and "×" in text and "game abandoned" in text
