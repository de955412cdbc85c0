"""c4 play with piped input and a real pseudo-terminal; every bad input gets a clear message."""

import io
import os
import pty
import select
import subprocess
import sys
import time

import pytest

from arena.board import render, use_colour
from arena.play import HUMAN, Quit, Seat, parse_human_move, play_terminal
from connect4 import Geometry, Position

C4 = [sys.executable, "-m", "c4.main"]


def run_play(args, stdin: str, env=None, timeout=180):
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    e.update(env or {})
    return subprocess.run(C4 + ["play", *args], input=stdin, capture_output=True, text=True, timeout=timeout, env=e)


# -- parsing ------------------------------------------------------------------------
def test_parse_letters_numbers_and_cells():
    pos = Position.parse("44")
    assert parse_human_move("d", pos) == 3
    assert parse_human_move("4", pos) == 3
    assert parse_human_move(" D3 ", pos) == 3
    assert parse_human_move("a1", pos) == 0


@pytest.mark.parametrize("text,message", [
    ("", "no move given"),
    ("z", "column 'z' is not on this board: columns are a–g"),
    ("0", "column 0 is off the board: columns are 1–7"),
    ("8", "column 8 is off the board"),
    ("d1", "a stone in column d lands on row 3, not 1"),
    ("hello", "'hello' is not a move"),
    ("d-1", "'d-1' is not a move"),
])
def test_bad_moves_say_what_is_wrong(text, message):
    with pytest.raises(ValueError) as err:
        parse_human_move(text, Position.parse("44"))
    assert message in str(err.value)


def test_full_column_is_refused():
    with pytest.raises(ValueError, match="column a is full"):
        parse_human_move("a", Position.parse("111111"))


def test_small_board_letters():
    pos = Position(Geometry(5, 4, 3))
    with pytest.raises(ValueError, match="columns are a–e"):
        parse_human_move("f", pos)


# -- the game loop in-process ------------------------------------------------------------
def test_two_people_game_to_a_win_with_bad_input_in_between():
    moves = "d\ne\nbanana\nd\ne\nd9\nd\ne\nd\n"
    out = io.StringIO()
    pos = play_terminal([Seat(HUMAN, None), Seat(HUMAN, None)], Position(), io.StringIO(moves), out)
    assert pos.winner == 0 and pos.ply == 7
    text = out.getvalue()
    assert "'banana' is not a move" in text
    assert "a stone in column d lands on row 3, not 9" in text
    assert "● you wins at ply 7" in text
    assert "moves: 4545454" in text


def test_h_and_q_are_columns_on_wide_boards_and_commands_are_words():
    """On 8 columns h is a move, not help; q is the 17th column's letter, never quit."""
    wide = Geometry(8, 7)
    out = io.StringIO()
    with pytest.raises(Quit, match="quit"):
        play_terminal([Seat(HUMAN, None), Seat(HUMAN, None)], Position(wide), io.StringIO("h\nq\n?\nhelp\n:q\n"), out)
    text = out.getvalue()
    assert "● you plays h" in text
    assert "column 'q' is not on this board: columns are a–h (? for help, quit to stop)" in text
    assert text.count("quit, exit or :q ends the game") == 2
    assert parse_human_move("p", Position(Geometry(16, 2, 3))) == 15
    for word in ("quit", "exit", "QUIT"):
        with pytest.raises(Quit):
            play_terminal([Seat(HUMAN, None), Seat(HUMAN, None)], Position(), io.StringIO(word + "\n"), io.StringIO())


def test_input_ending_abandons_the_game():
    with pytest.raises(Quit):
        play_terminal([Seat(HUMAN, None), Seat(HUMAN, None)], Position(), io.StringIO("d\n"), io.StringIO())


# -- the command with piped stdin -------------------------------------------------------------
def test_c4_play_piped_against_an_engine_player_with_bad_moves():
    # a column filled by the human alone: a, a, a... greedy blocks or wins; bad input is interleaved
    stdin = "x\n9\n\nd1\n" + "d\n" * 3 + "c\nc\nc\ne\ne\nb\nb\nf\nf\ng\ng\na\na\n" * 2 + "quit\n"
    out = run_play(["you", "greedy", "--seed", "3"], stdin)
    assert out.returncode in (0, 1), out.stderr
    text = out.stdout
    assert "column 'x' is not on this board: columns are a–g" in text
    assert "column 9 is off the board: columns are 1–7" in text
    assert "no move given" in text
    assert "a stone in column d lands on row 1, not 1" not in text
    assert "○ greedy plays" in text
    assert "\x1b[" not in text  # a pipe gets no colour
    assert "   a b c d e f g" in text and "6 │" in text
    if out.returncode == 0:
        assert "wins at ply" in text or "draw" in text
    else:
        assert "game abandoned" in text


def test_c4_play_engine_figures_and_other_sizes():
    out = run_play(["minimax:4", "medium", "--size", "5x4", "--connect", "3"], "")
    assert out.returncode == 0, out.stderr
    assert "on 5x4, connect 3" in out.stdout
    assert "depth 4" in out.stdout and "nodes" in out.stdout and " ms" in out.stdout
    assert "   a b c d e" in out.stdout and "4 │" in out.stdout and "5 │" not in out.stdout


@pytest.mark.parametrize("args,message", [
    (["you", "nobody"], "unknown player"),
    (["you", "minimax:99"], "depth 99"),
    (["you", "random", "--size", "17x9"], "width and height 1..16"),
    (["you", "random", "--connect", "9"], "line length 9"),
    (["you", "random", "--from", "1111111"], "full"),
])
def test_c4_play_bad_arguments(args, message):
    out = run_play(args, "")
    assert out.returncode == 2
    assert message in out.stderr


# -- a real pseudo-terminal: colours, and NO_COLOR turns them off -------------------------------
def _pty_session(env_extra: dict, keys: list[str], timeout=120, args=("you", "you")) -> str:
    pid, fd = pty.fork()
    if pid == 0:  # the child: c4 play on the terminal
        env = dict(os.environ)
        env.pop("NO_COLOR", None)
        env["TERM"] = "xterm-256color"
        env.update(env_extra)
        os.execvpe(C4[0], C4 + ["play", *args], env)
    chunks = []
    deadline = time.monotonic() + timeout
    pending = list(keys)

    def read_some(wait: float) -> bytes:
        r, _, _ = select.select([fd], [], [], wait)
        if not r:
            return b""
        try:
            return os.read(fd, 65536)
        except OSError:
            return b""

    try:
        while time.monotonic() < deadline:
            data = read_some(0.5)
            if data:
                chunks.append(data)
            text = b"".join(chunks).decode("utf-8", "replace")
            if pending and text.rstrip().endswith(":"):
                os.write(fd, (pending.pop(0) + "\n").encode())
                chunks.append(b"\x00")  # a marker so the same prompt is not answered twice
            elif not pending and ("wins at ply" in text or "game abandoned" in text):
                break
            _, status = os.waitpid(pid, os.WNOHANG)
            if _:
                chunks.append(read_some(0.2))
                break
    finally:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(fd)
    return b"".join(chunks).decode("utf-8", "replace")


def test_pty_game_has_colours_and_takes_moves():
    text = _pty_session({}, ["d", "z", "e", "d", "e", "d", "e", "d"])
    assert "\x1b[31m" in text and "\x1b[33m" in text  # red and yellow discs
    assert "column 'z' is not on this board" in text
    assert "wins at ply 7" in text


def test_pty_with_no_color_has_plain_discs():
    text = _pty_session({"NO_COLOR": "1"}, ["d", "quit"])
    assert "\x1b[3" not in text
    assert "●" in text and "game abandoned" in text


def test_use_colour_rules(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert use_colour(Tty()) and not use_colour(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_colour(Tty())


def test_board_marks_last_move_and_winning_line():
    won = Position.parse("4545454")
    text = render(won)
    assert text.count("◆") == 4 and "[◆]" in text
    coloured = render(won, colour=True)
    assert "\x1b[1m" in coloured and "\x1b[7m" in coloured
