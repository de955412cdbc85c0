"""Terminal boards: Unicode discs, column letters, row numbers, optional colour.

Colour is used only when asked for; :func:`use_colour` decides it the usual
way (the stream is a terminal and ``NO_COLOR`` is not set). Without colour
the first player's discs are ``●`` and the second's ``○`` so the board still
reads in a log file or on a monochrome terminal.

A gate override (a guarded person's proposal replaced) is drawn on the board:
with colour the rejected column's letters and its landing cell flash amber
(blink) and the chosen column's letters and stone are green; without colour the
rejected landing cell shows ``×`` and a line under the letters marks the two
columns (``✗`` rejected, ``✓`` played). :func:`panel` counts each player's
winning cells (empty cells that would complete a line).
"""

from __future__ import annotations

import os

from connect4.notation import LETTERS

RESET = "\x1b[0m"
BOLD = "\x1b[1m"
DIM = "\x1b[2m"
FG = {0: "\x1b[31m", 1: "\x1b[33m"}  # red first, yellow second
REVERSE = "\x1b[7m"
BLINK = "\x1b[5m"
AMBER = "\x1b[38;5;214m"  # 256-colour orange: the rejected column of a gate override
GREEN = "\x1b[32m"  # the column the gate played instead
GREEN_BG = "\x1b[42m"
REJECTED = "×"

DISC = {0: "●", 1: "○"}
EMPTY = "·"
NAMES = {0: "first (●)", 1: "second (○)"}


def use_colour(stream) -> bool:
    """Colour when the stream is a terminal and NO_COLOR (https://no-color.org) is unset."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def disc(player: int, colour: bool) -> str:
    if colour:
        return f"{FG[player]}●{RESET}"
    return DISC[player]


def render(pos, colour: bool = False, mark_last: bool = True, override: tuple[int, int] | None = None) -> str:
    """The board, top row first, with letters above and below and row numbers both sides.

    The last move is marked (reverse video with colour, brackets without);
    the cells of a completed line are bold (colour) or shown as ``◆``/``◇``.
    ``override``: (rejected, played) 0-based columns of a gate override, drawn
    as the module says; the rejected column's landing cell is the one empty
    cell it would have filled.
    """
    g = pos.geometry
    wide = len(str(g.height))
    last = None
    if mark_last and pos.moves:
        col = pos.moves[-1]
        last = (col, pos.height(col) - 1)
    winning = set(pos.winning_line_cells()) if pos.winner is not None else set()
    rejected = (override[0], pos.height(override[0])) if override else None
    letters = " " * (wide + 2) + " ".join(_letter(c, override, colour) for c in range(g.width))
    top = " " * (wide + 1) + "╭" + "─" * (2 * g.width + 1) + "╮"
    bottom = " " * (wide + 1) + "╰" + "─" * (2 * g.width + 1) + "╯"
    lines = [letters, top]
    for row in range(g.height - 1, -1, -1):
        cells = []
        for col in range(g.width):
            who = pos.cell(col, row)
            if (col, row) == rejected:
                cells.append(f"{AMBER}{BLINK}{BOLD}{REJECTED}{RESET}" if colour else REJECTED)
                continue
            if colour and override and (col, row) == last and who is not None:
                cells.append(f"{FG[who]}{GREEN_BG}{BOLD}●{RESET}")  # the gate's stone, on green
                continue
            cells.append(_cell(who, (col, row) == last, (col, row) in winning, colour))
        body = _join(cells, [(col, row) == last for col in range(g.width)], colour)
        lines.append(f"{row + 1:>{wide}} │{body}│ {row + 1}")
    lines.append(bottom)
    lines.append(letters)
    if override and not colour:
        marks = [" "] * g.width
        marks[override[0]], marks[override[1]] = "✗", "✓"
        lines.append(" " * (wide + 2) + " ".join(marks).rstrip())
    return "\n".join(lines)


def _letter(col: int, override: tuple[int, int] | None, colour: bool) -> str:
    if not (colour and override):
        return LETTERS[col]
    if col == override[0]:
        return f"{AMBER}{BLINK}{BOLD}{LETTERS[col]}{RESET}"
    if col == override[1]:
        return f"{GREEN}{BOLD}{LETTERS[col]}{RESET}"
    return LETTERS[col]


def panel(pos, names: list[str]) -> str:
    """Each player's number of winning cells: empty cells that would complete one of its lines."""
    counts = [bin(pos.winning_cells(p)).count("1") for p in (0, 1)]
    return "winning cells: " + "   ".join(f"{names[p]} {counts[p]}" for p in (0, 1))


def _cell(who, is_last: bool, is_winning: bool, colour: bool) -> str:
    if who is None:
        return f"{DIM}{EMPTY}{RESET}" if colour else EMPTY
    if colour:
        style = FG[who] + (BOLD if is_winning else "") + (REVERSE if is_last else "")
        return f"{style}●{RESET}"
    if is_winning:
        return "◆" if who == 0 else "◇"
    return DISC[who]


def _join(cells: list[str], last: list[bool], colour: bool) -> str:
    """Cells separated by spaces; without colour the last move sits in brackets."""
    out = []
    for i, cell in enumerate(cells):
        left = "[" if (not colour and last[i]) else ("]" if (not colour and i > 0 and last[i - 1]) else " ")
        out.append(left + cell)
    tail = "]" if (not colour and last and last[-1]) else " "
    return "".join(out) + tail
