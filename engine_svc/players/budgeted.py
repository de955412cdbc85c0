"""The players with counted budgets: ``search`` and ``solver``.

Both run the kernels of :mod:`.counted` on a fresh table every move, so a
move depends on the position alone: the same position gets the same column,
score and node count on every run, on any machine, at any load.

* ``search``: iterative deepening of the counted negamax, 20,000 positions a
  move; the last depth that finished inside the budget answers.
* ``solver``: every column solved exactly (the counted negamax run to the
  end of the game, narrowed by null windows as Pascal Pons' solver does),
  at most 300,000 positions a column; the best column wins (the fastest win,
  else a draw, else the slowest loss, centre first on ties). When a column
  needs more, the move is ``search``'s and the message says "not proved".

Why the engine's own search and not :mod:`solver_svc`: the engine service
(layer 1) may not import its sibling, and the ladder serves every player over
``ListPlayers``/``Move``. Searched to the end of the game the counted negamax
scores no leaf, so its values are proofs, like the solver's; the tests hold
it to Pons' test sets.
"""

from __future__ import annotations

from numba import int64

from connect4.wide import kernel_board

from ..result import SearchResult
from ..scores import MATE, describe_outcome, is_proven
from ..stopping import Stopped, stop_on
from .counted import ABORT, BEST, BUDGET, NODES, STOP, counted_kernels, new_table, new_workspace
from .ladder import Player

SEARCH_BUDGET = 20_000
SOLVER_BUDGET = 300_000  # per column
SEARCH_TABLE_BITS = 15  # 32768 rows: more than the positions of one move
SOLVER_TABLE_BITS = 18


def _win_values(ply: int, cells: int) -> list[int]:
    """Every exact value of a position at ``ply``, ascending: losses (the
    opponent's stone ply+2, ply+4, ... wins; the latest is the least bad), the draw, wins."""
    losses = [-(MATE + cells + 1 - n) for n in range(ply + 2, cells + 1, 2)]
    wins = [MATE + cells + 1 - n for n in range(ply + 1, cells + 1, 2)]
    return sorted(losses) + [0] + sorted(wins)


class CountedSearch:
    """The counted negamax of one geometry with its own table and workspace."""

    def __init__(self, geometry, table_bits: int):
        self.kernels = counted_kernels(geometry)
        self.geometry = geometry
        self.tt, self.shift = new_table(table_bits)
        self.ws = new_workspace(0)

    def reset(self, budget: int) -> None:
        self.tt.fill(0)
        self.ws[:] = 0
        self.ws[BUDGET] = budget

    def deepen(self, pos, budget: int, cancel=None) -> tuple[int, int, int, bool]:
        """(column, score, depth, exact) of the last depth finished within
        ``budget`` positions; depth 0 and the first safe column when none did."""
        g = self.geometry
        self.reset(budget)
        empties = g.cells - pos.ply
        cur, mask = kernel_board(pos.current, g), kernel_board(pos.mask, g)
        best = None
        with stop_on(cancel, self.ws, STOP):
            for depth in range(1, empties + 1):
                score = self.kernels.root(cur, mask, pos.ply, depth, self.tt, self.shift, self.ws)
                if self.ws[ABORT]:
                    break
                best = (int(self.ws[BEST]), int(score), depth)
                if is_proven(int(score)) or depth == empties:
                    break
        if self.ws[STOP]:
            raise Stopped(f"stopped after {int(self.ws[NODES])} positions", int(self.ws[NODES]))
        if best is None:
            safe = pos.non_losing_moves() or pos.legal_moves()
            col = next(c for c in g.center_order() if c in safe)
            return col, 0, 0, False
        col, score, depth = best
        return col, score, depth, is_proven(score) or depth == empties

    def exact(self, pos, budget: int, cancel=None) -> int | None:
        """The exact value of ``pos`` (not over) for its side to move, or None
        when it needs more than ``budget`` positions. The table is kept (a
        solve of a sibling reuses what it proved)."""
        g = self.geometry
        self.ws[NODES] = 0
        self.ws[ABORT] = 0
        self.ws[BUDGET] = budget
        values = _win_values(pos.ply, g.cells)
        lo, hi = 0, len(values) - 1
        draw = values.index(0)
        cur, mask, depth = kernel_board(pos.current, g), kernel_board(pos.mask, g), g.cells - pos.ply
        with stop_on(cancel, self.ws, STOP):
            while lo < hi:
                # Near the draw first (most positions are close to one), then halves.
                if lo <= draw < hi:
                    m = draw
                elif lo <= draw - 1 < hi:
                    m = draw - 1
                else:
                    m = (lo + hi) // 2
                v = values[m]
                r = int(self.kernels.window(cur, mask, pos.ply, depth, int64(v), int64(v + 1), self.tt, self.shift,
                                             self.ws))
                if self.ws[ABORT]:
                    if self.ws[STOP]:
                        raise Stopped(f"stopped after {int(self.ws[NODES])} positions", int(self.ws[NODES]))
                    return None
                if r <= v:  # the value is at most r
                    hi = max(i for i in range(lo, hi + 1) if values[i] <= r)
                else:  # at least r
                    lo = min(i for i in range(lo, hi + 1) if values[i] >= r)
        return values[lo]


class SearchPlayer(Player):
    """``search``: counted iterative deepening, SEARCH_BUDGET positions a move."""

    family = "search"

    def __init__(self, spec, geometry, seed=0, budget: int = SEARCH_BUDGET):
        super().__init__(spec, geometry, seed)
        self.budget = budget
        self.search = CountedSearch(geometry, SEARCH_TABLE_BITS)

    def _choose(self, pos, budget_ms, on_progress, cancel=None):
        col, score, depth, exact = self.search.deepen(pos, self.budget, cancel)
        outcome, plies = describe_outcome(score, exact, pos.ply, self.geometry.cells)
        return SearchResult(column=col, score=score, depth=depth, nodes=int(self.search.ws[NODES]), proven=exact,
                            outcome=outcome, plies_to_end=plies,
                            message=f"depth {depth} within {self.budget:,} positions")


class SolverPlayer(Player):
    """``solver``: every column proved within SOLVER_BUDGET positions, else ``search``'s column."""

    family = "solver"

    def __init__(self, spec, geometry, seed=0, budget: int = SOLVER_BUDGET):
        super().__init__(spec, geometry, seed)
        self.budget = budget
        self.exact = CountedSearch(geometry, SOLVER_TABLE_BITS)
        self.fallback = SearchPlayer("search", geometry, seed)

    def column_values(self, pos, cancel=None) -> tuple[dict[int, int], int, int | None]:
        """(exact value of each column proved, for the side to move; nodes
        spent; the first column that needed more than the budget, or None)."""
        g = self.geometry
        self.exact.reset(self.budget)
        values: dict[int, int] = {}
        nodes = 0
        for c in g.center_order():
            if not pos.can_play(c):
                continue
            if pos.is_winning_move(c):
                values[c] = MATE + g.cells - pos.ply
                continue
            child = pos.played(c)
            if child.is_over:
                values[c] = 0  # the last cell, no line
                continue
            v = self.exact.exact(child, self.budget, cancel)
            nodes += int(self.exact.ws[NODES])
            if v is None:
                return values, nodes, c
            values[c] = -v
        return values, nodes, None

    def _choose(self, pos, budget_ms, on_progress, cancel=None):
        values, nodes, unproved = self.column_values(pos, cancel)
        if unproved is not None:
            r = self.fallback._choose(pos, None, None, cancel)
            r.nodes += nodes
            r.message = (f"not proved: column {unproved + 1} needs more than {self.budget:,} positions; "
                         f"search's move ({r.message})")
            return r
        best = max(values.values())
        col = next(c for c in self.geometry.center_order() if values.get(c) == best)
        outcome, plies = describe_outcome(best, True, pos.ply, self.geometry.cells)
        return SearchResult(column=col, score=best, depth=self.geometry.cells - pos.ply, nodes=nodes, proven=True,
                            outcome=outcome, plies_to_end=plies, resign=outcome == "loss",
                            message=f"proved: a {outcome}" + (f" in {plies} plies" if outcome != "draw" else ""))
