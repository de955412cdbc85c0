"""The exact Connect Four solver (numba), for every board size and line length.

Usage::

    from connect4 import Position
    from solver_svc.solver import Solver, SolveResult, BudgetExceeded

    s = Solver(geometry=STANDARD, tt_log2=None)  # owns its table; one Solver per thread
    s.solve(pos)                  # SolveResult(score, nodes, elapsed_s)
    s.solve(pos, weak=True)       # score is -1, 0 or 1
    s.analyze(pos)                # [score of playing column c, or None when full]
    s.best_move(pos)              # (column, score)
    s.test(pos, bound)            # is the score > bound? (one null-window search)
    s.preload({key: score})       # known exact scores into the table
    s.solve_many(lines)           # many positions in one numba call: Batch(scores, nodes, errors, elapsed_s)
    s.analyze_many(lines)         # ... every column of each
    s.reset()                     # forget the table (O(1): a new epoch)

Scores follow Pascal Pons: from the side to move, positive = win, the sooner
the larger. A win with the stone of ply p (1-based count of stones after the
winning move) is worth ``(W*H + 2 - p) // 2``; an immediate win from a
position with ``ply`` stones is ``(W*H + 1 - ply) // 2``; a draw is 0.

* Columns are 0-based here (the CLI and services convert at their edge);
  ``solve_many`` also takes 1-based digit strings as in Pons' test sets.
* ``node_budget`` (0 = none) and ``stop`` (a numpy uint8 array of length 1
  another thread may set to 1) end a search with :class:`BudgetExceeded`,
  which carries the nodes spent: the solver never returns an unproved value.
  For ``analyze`` and ``best_move`` the budget covers all columns together;
  for ``solve_many`` it is per position.
* A finished game (``pos.is_over``) raises :class:`connect4.InvalidPosition`;
  so does a position of another board size.
* ``Solver.last_nodes`` holds the nodes of the last search, also after a
  BudgetExceeded.
* ``tt_log2`` sets the table to ``2**tt_log2`` entries of 8 bytes (default 23:
  64 MiB, allocated lazily by the OS; ``prefault()`` touches it at once). The
  table keeps its bounds across calls until ``reset()``.

The files, as in Pons' solver: :mod:`.table` (the table's word layout, its
owner and the kernels that pack and unpack it), :mod:`.ordering` (move
ordering and enhanced transposition cutoffs), :mod:`.search` (negamax and the
null-window driver), :mod:`.driver` (the numba entry points: one position,
a batch, preload), :mod:`.solver` (the Python API), :mod:`.quickload`
(loading cached kernels fast), :mod:`.jit` (the kernel decorator),
:mod:`.masks` (the board constants), :mod:`.layout` (the numbers Python and
the kernels share), :mod:`.native` (the batch kernel as standalone machine
code: ``c4 solve`` without numba).

The search (see :mod:`.search`): negamax alpha-beta with null-window
narrowing, a table of lower and upper bounds with the best move, one entry for
a position and its mirror, half the moves for symmetric positions, moves
ordered by the table move, winning cells created and centre distance, moves
that lose at once never searched, enhanced transposition cutoffs.
"""

from typing import TYPE_CHECKING

from .errors import BudgetExceeded
from .layout import ABORTED, FULL_COLUMN, NO_SCORE, OFF_BOARD, OK, WINS

if TYPE_CHECKING:
    from .solver import Batch, Solver, SolveResult


def __getattr__(name: str):
    """``Solver``, ``Batch`` and ``SolveResult`` on first use: importing this
    package (or its numpy-free modules, :mod:`.layout`, :mod:`.native`) does
    not import numba."""
    if name in ("Batch", "Solver", "SolveResult"):
        from . import solver

        return getattr(solver, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "ABORTED", "Batch", "BudgetExceeded", "FULL_COLUMN", "NO_SCORE", "OFF_BOARD", "OK", "SolveResult", "Solver",
    "WINS",
]
