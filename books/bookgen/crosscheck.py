"""Before a book is written: a sample of its entries solved again by another solver.

``c4 bookgen opening|corrective --check-solver CMD`` runs ``CMD`` (any
solver speaking Pascal Pons' line protocol in analysis mode, e.g. his
``c4solver`` or ``c4 solve``; ``-a`` is added when missing) on a sample of the
entries about to be written. Every entry is ``(position, best column,
score)`` from the built-in solver; the other solver's column scores must give
the same score for the position (their maximum) and for the entry's column.
The first disagreement, or a failure of the other solver (it cannot start,
dies, answers garbage, says nothing within the timeout), raises
:class:`CrossCheckFailed` naming the position, and the caller writes nothing.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from typing import NamedTuple

from connect4 import Position
from connect4.notation import format_moves
from solver_svc.external import ExternalFailed, ExternalProcess, ExternalTimeout, command_line

DEFAULT_SAMPLE = 100
DEFAULT_TIMEOUT_S = 3600.0


class CrossCheckFailed(RuntimeError):
    """The other solver disagreed with the book (or could not answer): nothing may be written."""


class Entry(NamedTuple):
    position: Position
    column: int  # 0-based, the built-in solver's best move
    score: int  # the position's exact score from the built-in solver


def sample(entries: Sequence[Entry], n: int, seed: int = 0) -> list[Entry]:
    """``n`` entries chosen at random (all of them when ``n`` is 0 or at
    least their number), in a fixed order: the same book gives the same sample."""
    ordered = sorted(entries, key=lambda e: e.position.key())
    if n <= 0 or n >= len(ordered):
        return ordered
    return random.Random(seed).sample(ordered, n)


def _moves(pos: Position) -> str:
    return format_moves(pos.moves, pos.geometry) or "(the empty board)"


def cross_check(entries: Sequence[Entry], command: str, *, n: int = DEFAULT_SAMPLE,
                timeout_s: float = DEFAULT_TIMEOUT_S, seed: int = 0) -> int:
    """Solve a sample of ``entries`` with ``command``; the number checked.
    Raises :class:`CrossCheckFailed` at the first disagreement or failure."""
    try:
        argv = command_line(command)
    except ValueError as exc:
        raise CrossCheckFailed(f"--check-solver: {exc}") from None
    other = ExternalProcess(argv, "check-solver")
    checked = 0
    try:
        for e in sample(entries, n, seed):
            where = f"position {_moves(e.position)} (key {e.position.key():x})"
            try:
                theirs = other.analyze(e.position, timeout_s)
            except (ExternalFailed, ExternalTimeout) as exc:
                raise CrossCheckFailed(f"the other solver ({command}) failed at {where}: {exc}") from None
            best = max(s for s in theirs if s is not None)
            at_column = theirs[e.column] if 0 <= e.column < len(theirs) else None
            if best != e.score or at_column != e.score:
                shown = " ".join("x" if s is None else str(s) for s in theirs)
                raise CrossCheckFailed(
                    f"the other solver disagrees at {where}: built-in score {e.score} (best column "
                    f"{e.column + 1}), other score {best} (column {e.column + 1}: {at_column}; every column: "
                    f"{shown})")
            checked += 1
    finally:
        other.stop()
    return checked


def check_before_writing(args, entries: Sequence[Entry], prog: str) -> bool:
    """The command's ``--check-solver`` (``args.check_solver``, ``check_sample``,
    ``check_timeout``): True when not asked for or when the sample agrees (a
    line on stderr); False after a disagreement or failure (said on stderr):
    the caller writes nothing."""
    if not getattr(args, "check_solver", None):
        return True
    try:
        n = cross_check(entries, args.check_solver, n=args.check_sample, timeout_s=args.check_timeout)
    except CrossCheckFailed as exc:
        print(f"{prog}: {exc}; nothing written", file=sys.stderr)
        return False
    print(f"{prog}: {n} of {len(entries)} entries checked against {args.check_solver}: all agree",
          file=sys.stderr)
    return True
