"""``c4 solve`` / ``c4 analyze``: Pascal Pons' c4solver line protocol.

One position a line (from the arguments, else stdin), 1-based column digits;
the answer is the line followed by its score (``-a``: the score of each
column, -1000 for a full one). Like c4solver, a line is invalid at the first
move that is off the board, into a full column, or that wins at once; the
message goes to stderr (``Line N: Invalid move M "line"``) and stdout gets an
empty line, so a reader that pairs questions and answers stays in step.
"""

from __future__ import annotations

import sys

from connect4 import Geometry, IllegalMove, InvalidPosition, Position, parse_moves
from connect4.errors import Connect4Error

INVALID_MOVE = -1000  # c4solver's score of a column that cannot be played


def register(sub) -> None:
    for name, analyze in (("solve", False), ("analyze", True)):
        p = sub.add_parser(
            name,
            help="solve positions exactly (Pons' c4solver protocol)" if not analyze else "score every column (c4 solve -a)",
            description=__doc__,
        )
        p.add_argument("moves", nargs="*", help="positions as 1-based column digits; none: read stdin lines")
        p.add_argument("-w", "--weak", action="store_true", help="win/draw/loss only (-1, 0, 1)")
        p.add_argument("-a", "--analyze", action="store_true", default=analyze, help="score of every column")
        p.add_argument("--size", default="7x6", help="board WIDTHxHEIGHT (default 7x6)")
        p.add_argument("--connect", type=int, default=4, metavar="K", help="line length that wins (default 4)")
        p.add_argument("--tt-log2", type=int, default=None, help="table of 2**N entries (default 23)")
        p.set_defaults(run=run)


class InvalidLine(Exception):
    def __init__(self, move: int, reason: str):
        super().__init__(reason)
        self.move = move  # 1-based number of the offending move
        self.reason = reason


def read_position(line: str, g: Geometry) -> Position:
    """A position from a protocol line; InvalidLine names the first bad move."""
    text = line.strip()
    if text.isdigit() or not text:
        tokens = [int(ch) for ch in text] if g.width <= 9 else None
        if tokens is None:
            raise InvalidLine(1, f"boards wider than 9 columns need separated moves")
    else:
        try:
            cols = parse_moves(text, g)
        except IllegalMove as exc:
            raise InvalidLine((exc.index or 0) + 1, str(exc)) from None
        except InvalidPosition as exc:
            raise InvalidLine(1, str(exc)) from None
        tokens = [c + 1 for c in cols]
    pos = Position(g)
    for i, col in enumerate(tokens):
        c = col - 1
        if not 0 <= c < g.width:
            raise InvalidLine(i + 1, f"column {col} is off the board (1..{g.width})")
        if not pos.can_play(c):
            raise InvalidLine(i + 1, f"column {col} is full")
        if pos.is_winning_move(c):
            raise InvalidLine(i + 1, f"column {col} wins: the game would be over")
        pos.play(c)
    return pos


def answer(solver, pos: Position, weak: bool, analyze: bool) -> str:
    g = pos.geometry
    if analyze:
        if pos.is_over:  # a full board: nothing can be played
            return " ".join([str(INVALID_MOVE)] * g.width)
        scores = solver.analyze(pos, weak=weak)
        return " ".join(str(INVALID_MOVE if s is None else s) for s in scores)
    if pos.is_over:
        return "0"  # a full board without a line is a draw
    return str(solver.solve(pos, weak=weak).score)


def run(args) -> int:
    from solver_svc.solver import Solver

    try:
        g = Geometry.parse(args.size, args.connect)
    except Connect4Error as exc:
        print(f"c4 solve: {exc}", file=sys.stderr)
        return 2
    solver = Solver(g, tt_log2=args.tt_log2)
    lines = args.moves if args.moves else sys.stdin
    failed = 0
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        try:
            pos = read_position(line, g)
        except InvalidLine as exc:
            print(f'Line {number}: Invalid move {exc.move} "{line.strip()}": {exc.reason}', file=sys.stderr, flush=True)
            print(flush=True)
            failed += 1
            continue
        print(f"{line.strip()} {answer(solver, pos, args.weak, args.analyze)}", flush=True)
    return 1 if failed and args.moves else 0
