"""The players of the ladder, weakest first. Each is reproducible given its seed."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np

from connect4.errors import InvalidPosition
from connect4.geometry import STANDARD, Geometry
from connect4.scores import end_ply

from connect4.bookset import BookSet
from connect4.gate import CHECKS, best_columns
from connect4.gate import blocks_threat, no_loss_in_two, not_under_threat, takes_win  # noqa: F401  (re-exported)
from connect4.wide import kernel_board
from ..evaluation import COMPLETE, line_tables
from ..wide_evaluation import wide_own_line_score
from ..mcts import C_PUCT, mcts_kernels
from ..minimax import CASUAL, WIN_VALUE, WindowWeights, minimax_kernels, weights_array
from ..result import DepthReport, SearchResult
from ..scores import MATE, win_score
from ..search import Engine
from .messages import search_message
from ..stopping import Cancel, Stopped, stop_on

Progress = Callable[[DepthReport], None] | None


def _check(pos, geometry: Geometry) -> None:
    if pos.geometry != geometry:
        raise InvalidPosition(f"position is {pos.geometry.name}, the player plays {geometry.name}")
    if pos.is_over:
        raise InvalidPosition("the game is over: there is no move to choose")


def _centre_first(cols, g: Geometry) -> list[int]:
    rank = {c: i for i, c in enumerate(g.center_order())}
    return sorted(cols, key=rank.__getitem__)


def _bit_cols(bb: int, g: Geometry) -> list[int]:
    return [c for c in range(g.width) if bb & g.column_mask(c)]


class Player:
    """Base class: ``choose(pos)`` returns a SearchResult for the side to move."""

    family = ""
    takes_budget = False

    def __init__(self, spec: str, geometry: Geometry = STANDARD, seed: int = 0):
        self.spec = spec
        self.geometry = geometry
        self.seed = int(seed)
        self.rng = np.random.default_rng(self.seed)

    def choose(self, pos, budget_ms: float | None = None, on_progress: Progress = None,
               cancel: Cancel | None = None) -> SearchResult:
        """The move for ``pos``. ``cancel`` (set from another thread) stops a
        long search: minimax and mcts raise :class:`Stopped` then."""
        _check(pos, self.geometry)
        start = time.perf_counter()
        result = self._choose(pos, budget_ms, on_progress, cancel)
        if not result.elapsed_ms:
            result.elapsed_ms = (time.perf_counter() - start) * 1000.0
        if not result.pv:
            result.pv = [result.column]
        result.player = self.spec
        return result

    def _choose(self, pos, budget_ms, on_progress, cancel) -> SearchResult:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec} seed={self.seed}>"


class RandomPlayer(Player):
    family = "random"

    def _choose(self, pos, budget_ms, on_progress, cancel=None):
        legal = pos.legal_moves()
        return SearchResult(column=int(legal[self.rng.integers(len(legal))]))


def own_line_score(me: int, opp: int, g: Geometry) -> int:
    """One side's half of the engine's line-count score: every line of K cells
    that holds stones of ``me`` and none of ``opp`` scores its stone count
    (1000 once complete)."""
    if g.wide:
        return wide_own_line_score(me, opp, g)
    masks = line_tables(g).masks
    counts = np.bitwise_count(masks & np.uint64(me))
    free = (masks & np.uint64(opp)) == 0
    return int(np.where(counts == g.k, COMPLETE, counts)[free].sum())


def line_score_after(pos, col: int) -> int:
    """Greedy's line score of ``col``: the mover's own lines after the move."""
    p = pos.played(col)
    return own_line_score(p.stones(pos.to_move), p.stones(1 - pos.to_move), pos.geometry)


class GreedyPlayer(Player):
    """Wins now, else blocks, else avoids the cell under an opponent's winning
    cell, else the best line score after the move (centre first on ties).

    The line score is the mover's own: its lines free of the opponent's
    stones, each worth its stone count. Greedy looks after the opponent only
    through its two rules (block, and do not play under a winning cell); the
    two-sided score of the engine made it a one-ply evaluation player, against
    which minimax:5 scored 65 % where the issue's published pairing gives 79 %
    (docs/arena.md)."""

    family = "greedy"

    def _choose(self, pos, budget_ms, on_progress, cancel=None):
        g = self.geometry
        wins = pos.winning_moves()
        if wins:
            return SearchResult(column=_centre_first(wins, g)[0], score=MATE, message="wins")
        possible = pos.possible()
        theirs = pos.winning_cells(1 - pos.to_move)
        blocks = _bit_cols(theirs & possible, g)
        if blocks:
            return SearchResult(column=_centre_first(blocks, g)[0], message="blocks")
        safe = _bit_cols(possible & ~(theirs >> 1), g) or pos.legal_moves()
        scored = [(line_score_after(pos, c), c) for c in _centre_first(safe, g)]
        best = max(s for s, _ in scored)
        col = next(c for s, c in scored if s == best)  # the first of the best is the most central
        return SearchResult(column=col, score=best)


# -- gated: greedy proposes, four exact checks decide -------------------------
# The four checks live in connect4.gate: the gateway and `c4 play --guarded` guard a person's moves with them.


_fallback = threading.local()  # one small-table Engine per thread and geometry


def fallback_engine(g: Geometry) -> Engine:
    """The engine of gated's small search. Players are made per request (the
    arena and the service make one a move), so the 4 MB table is kept per
    thread rather than allocated for every fallback; a search never runs on
    two threads at once."""
    engines = getattr(_fallback, "engines", None)
    if engines is None:
        engines = _fallback.engines = {}
    if g not in engines:
        engines[g] = Engine(g, tt_mb=4)
    return engines[g]


class GatedPlayer(Player):
    """Greedy proposes; four exact checks decide. A proposal that fails a check
    is replaced by a small engine search over the columns that pass them all
    (or, when none does, those passing the most)."""

    family = "gated"
    FALLBACK_DEPTH = 4

    def __init__(self, spec, geometry=STANDARD, seed=0):
        super().__init__(spec, geometry, seed)
        self.greedy = GreedyPlayer("greedy", geometry, seed)

    def _choose(self, pos, budget_ms, on_progress, cancel=None):
        proposal = self.greedy._choose(pos, None, None)
        if all(check(pos, proposal.column) for check in CHECKS):
            proposal.message = proposal.message or "greedy move passes the checks"
            return proposal
        candidates = best_columns(pos)  # those passing the most checks, centre first
        if len(candidates) == 1:
            return SearchResult(column=candidates[0], message="the only column passing the checks")
        engine = fallback_engine(self.geometry)
        best, best_col, nodes = None, candidates[0], 0
        for c in candidates:
            child = pos.played(c)
            if child.is_over:
                score = MATE if child.winner is not None else 0
            else:
                r = engine.search(child, max_depth=self.FALLBACK_DEPTH - 1)
                score, nodes = -r.score, nodes + r.nodes
            if best is None or score > best:
                best, best_col = score, c
        return SearchResult(column=best_col, score=best, depth=self.FALLBACK_DEPTH, nodes=nodes,
                            message="greedy move failed a check: searched the columns that pass")


# -- minimax ladder -------------------------------------------------------------

class MinimaxPlayer(Player):
    """Plain alpha-beta to ``depth`` with the window evaluation; equal best
    columns are broken at random (seeded); with probability ``blunder`` a random
    legal column instead."""

    family = "minimax"

    def __init__(self, spec, geometry=STANDARD, seed=0, depth=4, blunder=0.0,
                 weights: WindowWeights = CASUAL, family: str | None = None):
        super().__init__(spec, geometry, seed)
        self.depth = depth
        self.blunder = blunder
        self.weights = weights_array(weights)
        self.kernels = minimax_kernels(geometry)
        if family:
            self.family = family

    def _choose(self, pos, budget_ms, on_progress, cancel=None):
        legal = pos.legal_moves()
        if self.blunder and self.rng.random() < self.blunder:
            return SearchResult(column=int(legal[self.rng.integers(len(legal))]), message="random move")
        values = np.full(self.geometry.width, np.iinfo(np.int64).min, dtype=np.int64)
        nodes = np.zeros(2, dtype=np.int64)  # [node count, stop flag]
        with stop_on(cancel, nodes, 1):
            self.kernels.root_values(kernel_board(pos.current, pos.geometry), kernel_board(pos.mask, pos.geometry),
                                     self.depth,
                                     self.weights, values, nodes)
        if nodes[1]:
            raise Stopped(f"{self.spec} stopped after {int(nodes[0])} nodes", int(nodes[0]))
        best = max(int(values[c]) for c in legal)
        ties = [c for c in _centre_first(legal, self.geometry) if values[c] == best]
        col = ties[0] if len(ties) == 1 else int(ties[self.rng.integers(len(ties))])
        proven = abs(best) >= WIN_VALUE
        return SearchResult(column=col, score=best, depth=self.depth, nodes=int(nodes[0]),
                            outcome=("win" if best > 0 else "loss") if proven else "unknown",
                            proven=proven)


class MctsPlayer(Player):
    family = "mcts"

    def __init__(self, spec, geometry=STANDARD, seed=0, simulations=1000):
        super().__init__(spec, geometry, seed)
        self.simulations = simulations
        self.kernels = mcts_kernels(geometry)

    def _choose(self, pos, budget_ms, on_progress, cancel=None):
        visits = np.zeros(self.geometry.width, dtype=np.int64)
        seed = int(self.rng.integers(1 << 31))
        with stop_on(cancel, np.zeros(1, dtype=np.uint8)) as stop:
            done = self.kernels.search(kernel_board(pos.current, pos.geometry), kernel_board(pos.mask, pos.geometry),
                                       pos.ply, self.simulations,
                                       seed, C_PUCT, visits, stop)
        if done < self.simulations:
            raise Stopped(f"{self.spec} stopped after {done} of {self.simulations} simulations", int(done))
        legal = _centre_first(pos.legal_moves(), self.geometry)
        col = max(legal, key=lambda c: visits[c])  # most visited; centre first on ties
        return SearchResult(column=col, nodes=self.simulations,
                            message=f"{int(visits[col])} of {self.simulations} visits")


class EnginePlayer(Player):
    """The full engine: book first, then iterative deepening within the budget."""

    family = "engine"
    takes_budget = True

    def __init__(self, spec, geometry=STANDARD, seed=0, budget_ms=2000, tt_mb=64.0,
                 books: BookSet | None = None, engine: Engine | None = None):
        super().__init__(spec, geometry, seed)
        self.budget_ms = budget_ms
        self.books = books
        self.engine = engine if engine is not None else Engine(geometry, tt_mb)

    def choose(self, pos, budget_ms: float | None = None, on_progress: Progress = None,
               cancel: Cancel | None = None, *, use_book: bool = True) -> SearchResult:
        _check(pos, self.geometry)
        if use_book and self.books is not None:
            start = time.perf_counter()
            hit = self.books.lookup(pos)
            if hit is not None:
                r = book_result(pos, hit[0])
                r.player = self.spec
                r.elapsed_ms = (time.perf_counter() - start) * 1000.0
                return r
        budget = budget_ms if budget_ms else self.budget_ms
        r = self.engine.search(pos, budget_ms=budget, on_progress=on_progress, cancel=cancel)
        r.message = search_message(r)
        r.player = self.spec
        return r


def book_result(pos, entry) -> SearchResult:
    """A book answer. Book scores are Pons' (exact, from the books' solver); the
    engine's scale counts the stone that ends the game (``win_score``), and
    each Pons score stands for one stone of each player: the winner's parity
    picks it (``connect4.scores.end_ply``)."""
    g = pos.geometry
    s = entry.score
    if s:
        end = end_ply(s, pos.ply, g)
        outcome = "win" if s > 0 else "loss"
        score = win_score(end, g.cells) * (1 if s > 0 else -1)
    else:
        end, outcome, score = g.cells, "draw", 0
    return SearchResult(column=entry.column, score=score, book=True, proven=False, pv=[entry.column],
                        outcome=outcome, plies_to_end=end - pos.ply, message=f"book move: a {outcome} with best play")
