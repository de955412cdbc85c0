"""``c4 solve --size 8x8`` (any board past 64 bits): the same line protocol
on the wide solver (:class:`solver_svc.wide_board.WideBoardSolver`).

A line is answered ``moves score`` (``-a``: the score of each column, -1000
for a full one), an invalid line (off the board, a full column, a move that
wins at once) gets ``Line N: Invalid move M "line": reason`` on stderr and an
empty line on stdout, as on small boards. One more case: with ``--nodes N``
a line the solver cannot prove within N nodes gets ``Line N: not proved
within N nodes "line"`` on stderr and an empty stdout line: never a guess.
Lines are solved one by one (no batch kernel on these boards); the table is
kept across lines unless ``--fresh``.
"""

from __future__ import annotations

import sys

from connect4 import IllegalMove, InvalidPosition, Position, parse_moves
from connect4.geometry import Geometry

INVALID_MOVE = -1000


class WideLines:
    """Protocol lines in, answers out, on one board past 64 bits."""

    def __init__(self, g: Geometry, *, weak: bool = False, analyze: bool = False, fresh: bool = False,
                 tt_log2: int | None = None, nodes: int = 0):
        from solver_svc.wide_board import WideBoardSolver

        self.g = g
        self.weak, self.analyze, self.fresh, self.nodes = weak, analyze, fresh, nodes
        self.solver = WideBoardSolver(g, tt_log2)

    def position(self, text: str) -> Position:
        """The position of a line; ValueError((1-based move, reason)) for an invalid one."""
        g = self.g
        if text.isascii() and text.isdigit():
            if g.width > 9:
                raise ValueError((1, "boards wider than 9 columns need separated moves"))
            cols = [int(ch) - 1 for ch in text]
        else:
            try:
                cols = parse_moves(text, g)
            except IllegalMove as exc:
                raise ValueError(((exc.index or 0) + 1, str(exc))) from None
            except InvalidPosition as exc:
                raise ValueError((1, str(exc))) from None
        pos = Position(g)
        for i, c in enumerate(cols):
            if not 0 <= c < g.width:
                raise ValueError((i + 1, f"column {c + 1} is off the board (1..{g.width})"))
            if not pos.can_play(c):
                raise ValueError((i + 1, f"column {c + 1} is full"))
            if pos.is_winning_move(c) or pos.ply + 1 == g.cells:
                why = "wins: the game would be over" if pos.is_winning_move(c) else "fills the board: the game would be over"
                raise ValueError((i + 1, f"column {c + 1} {why}"))
            pos.play(c)
        return pos

    def answer(self, text: str, number: int) -> tuple[str, str | None]:
        """(stdout line, stderr line or None) of line ``number``."""
        from solver_svc.solver import BudgetExceeded

        text = text.strip()
        try:
            pos = self.position(text)
        except ValueError as exc:
            move, why = exc.args[0]
            return "", f'Line {number}: Invalid move {move} "{text}": {why}'
        if self.fresh:
            self.solver.reset()
        try:
            if self.analyze:
                scores = self.solver.analyze(pos, node_budget=self.nodes, weak=self.weak)
                return f"{text} {' '.join(str(INVALID_MOVE if s is None else s) for s in scores)}", None
            return f"{text} {self.solver.solve(pos, weak=self.weak, node_budget=self.nodes).score}", None
        except BudgetExceeded:
            return "", f'Line {number}: not proved within {self.nodes:,} nodes "{text}"'


def run_wide(args, g: Geometry, lines) -> int:
    """Answer every line of ``lines`` (an iterable of lists of lines) on ``g``; the exit status."""
    solver = WideLines(g, weak=args.weak, analyze=args.analyze, fresh=args.fresh, tt_log2=args.tt_log2,
                       nodes=args.nodes)
    failed, number = 0, 1
    for chunk in lines:
        for text in chunk:
            out, err = solver.answer(text, number)
            if err:
                sys.stderr.write(err + "\n")
                sys.stderr.flush()
                failed += 1
            sys.stdout.write(out + "\n")
            sys.stdout.flush()
            number += 1
    return 1 if failed and args.moves else 0
