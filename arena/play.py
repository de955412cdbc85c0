"""A game in the terminal: any two of ``you`` (a person typing) and player specs.

A person types a column as a letter (``d``), a 1-based number (``4``) or a
cell (``d3``: column d, and the stone must land on row 3). ``?`` or ``help``
shows this, ``quit``, ``exit`` or ``:q`` ends the game. No command is a
single letter: every letter is a column on a board wide enough (``h`` on 8
columns, ``q`` on 17). Bad input gets a message saying what was wrong and a
new prompt; the game is never lost to a typo. After each engine move
its search figures are shown (depth, score, nodes, time, principal
variation, book and proof flags). Under every board a panel counts each
player's winning cells.

A guarded person (``c4 play --guarded``) has each move checked by the gate
(:mod:`connect4.gate`): a move failing a check is replaced by the gate's
choice, and the override is shown on the board and in words, each failed
check with its reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from connect4 import Position
from connect4.gate import CHECKS, Guarded, cell_name, guard
from connect4.notation import LETTERS, format_moves

from .board import AMBER, GREEN, RESET, disc, panel, render
from .players import ArenaPlayer, MoveInfo, PlayerError
from .protocols import Player

HUMAN = "you"
# Never a single letter: on a wide board every letter is a column.
QUIT = {"quit", "exit", ":q"}
HELP = {"help", "?"}
COMMANDS_HINT = "? for help, quit to stop"


class Quit(Exception):
    pass


def parse_human_move(text: str, pos: Position) -> int:
    """A person's move -> 0-based column, or ValueError with a message to show them."""
    g = pos.geometry
    last = LETTERS[g.width - 1]
    usage = f"type a column letter a–{last}, a number 1–{g.width}, or a cell like d{pos.height(min(3, g.width - 1)) + 1}"
    t = text.strip().lower()
    if not t:
        raise ValueError(f"no move given: {usage}")
    m = re.fullmatch(r"([a-z])(\d+)?", t)
    if m:
        col = LETTERS.index(m.group(1))
        if col >= g.width:
            raise ValueError(f"column {m.group(1)!r} is not on this board: columns are a–{last} ({COMMANDS_HINT})")
        row = m.group(2)
    elif t.isdigit():
        col = int(t) - 1
        if not 0 <= col < g.width:
            raise ValueError(f"column {t} is off the board: columns are 1–{g.width}")
        row = None
    else:
        raise ValueError(f"{text.strip()!r} is not a move: {usage} ({COMMANDS_HINT})")
    if pos.height(col) >= g.height:
        raise ValueError(f"column {LETTERS[col]} is full: choose another")
    if row is not None:
        r = int(row)
        landing = pos.height(col) + 1
        if r != landing:
            raise ValueError(f"a stone in column {LETTERS[col]} lands on row {landing}, not {r}")
    return col


@dataclass
class Seat:
    name: str  # "you" or a spec
    player: Player | None  # None for a person
    guarded: bool = False  # a person whose moves the gate checks


def play_terminal(seats: list[Seat], pos: Position, inp, out, colour: bool = False) -> Position:
    """Run the game; returns the final position. Raises Quit when the person quits or input ends."""

    def say(text: str = "") -> None:
        out.write(text + "\n")
        out.flush()

    g = pos.geometry
    names = [f"{disc(0, colour)} {seats[0].name}", f"{disc(1, colour)} {seats[1].name}"]
    say(f"{names[0]} (first) vs {names[1]} (second) on {g.width}x{g.height}, connect {g.k}")
    say(render(pos, colour=colour))
    say(panel(pos, names))
    while not pos.is_over:
        seat = seats[pos.to_move]
        label = names[pos.to_move]
        override = None
        if seat.player is None:
            col = _ask(pos, label, inp, out, say)
            if seat.guarded:
                verdict = guard(pos, col)
                for line in gate_lines(verdict, colour):
                    say(line)
                col = verdict.played
                override = (verdict.proposed, verdict.played) if verdict.overridden else None
            pos.play(col)
            say(f"{label} plays {LETTERS[col]}")
        else:
            try:
                info = seat.player.choose(pos)
                pos.check_move(info.column)
            except (PlayerError, ValueError) as exc:
                say(f"{label} could not move: {exc}")
                raise Quit(str(exc)) from None
            pos.play(info.column)
            say(f"{label} plays {LETTERS[info.column]}  ({info.figures()})")
        say(render(pos, colour=colour, override=override))
        say(panel(pos, names))
    if pos.winner is None:
        say(f"draw: the board is full after {pos.ply} plies")
    else:
        line = " ".join(cell_name(c, r) for c, r in pos.winning_line_cells())
        say(f"{names[pos.winner]} wins at ply {pos.ply}: {line}")
    say(f"moves: {format_moves(pos.moves, g)}")
    return pos


def gate_lines(verdict: Guarded, colour: bool = False) -> list[str]:
    """The gate's verdict in words: what it played and each failed check's reason."""
    def paint(text: str, code: str) -> str:
        return f"{code}{text}{RESET}" if colour else text

    proposed, played = LETTERS[verdict.proposed], LETTERS[verdict.played]
    if not verdict.failed:
        return [f"  gate: {proposed} passes the four checks"]
    if verdict.overridden:
        head = f"  gate: {paint(proposed, AMBER)} rejected, the gate plays {paint(played, GREEN)} instead"
    else:
        head = f"  gate: {proposed} stands: no column passes more checks"
    lines = [head] + [paint(f"    ✗ {ch.name}: {ch.reason}", AMBER) for ch in verdict.failed]
    if verdict.overridden:
        n = sum(map(bool, verdict.played_checks))
        lines.append(paint(f"    ✓ {played} passes {n} of {len(CHECKS)} checks", GREEN))
    return lines


def _ask(pos: Position, label: str, inp, out, say) -> int:
    while True:
        out.write(f"{label}, your move (ply {pos.ply + 1}): ")
        out.flush()
        line = inp.readline()
        if not line:
            say("")
            raise Quit("input ended")
        text = line.strip()
        if not _isatty(inp):
            say(text)  # piped input is not echoed by a terminal: show it so the transcript reads
        if text.lower() in QUIT:
            raise Quit("quit")
        if text.lower() in HELP:
            say(f"moves: a column letter a–{LETTERS[pos.geometry.width - 1]}, a number 1–{pos.geometry.width}, "
                "or a cell like d3 (the stone must land there); quit, exit or :q ends the game")
            continue
        try:
            return parse_human_move(text, pos)
        except ValueError as exc:
            say(f"  {exc}")


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class HumanPlayer(ArenaPlayer):
    """A person at the terminal as an arena player (``c4 versus you ...``): shows the board, asks for a move."""

    spec = HUMAN

    def __init__(self, inp, out, colour: bool = False):
        self.inp, self.out, self.colour = inp, out, colour

    def choose(self, pos: Position) -> MoveInfo:
        def say(text: str = "") -> None:
            self.out.write(text + "\n")
            self.out.flush()

        say(render(pos, colour=self.colour))
        try:
            col = _ask(pos, f"{disc(pos.to_move, self.colour)} {HUMAN}", self.inp, self.out, say)
        except Quit as exc:
            raise PlayerError(f"you stopped ({exc})") from None
        return MoveInfo(col)
