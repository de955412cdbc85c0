"""The search: negamax alpha-beta with PVS, a transposition table, MTD(f) per
depth and iterative deepening on a wall clock.

Scores are from the side to move's view. Heuristic scores are small (the
evaluation of :mod:`engine_svc.evaluation`); proven results live beyond
``MATE``: a game that ends with the winning stone number ``n`` (stones on the
board after it) scores ``MATE + CELLS + 1 - n`` for the winner, so sooner wins
score higher and a score depends only on the position, never on the path
(the stone count is part of the position), which keeps table entries valid
anywhere. A draw is 0 and proven once the search reached every end.

Inside a node (Pascal Pons' tactics first, all exact):
  * a winning cell on top of a column: win now;
  * the opponent's winning cells on top of columns: two lose, one must be blocked;
  * never play right under an opponent's winning cell; nothing left: lost.
Then the table, the leaf evaluation at depth 0, and the moves: the table's
best column first, then centre first; the first move with the full window and
the others with a null window, searched again when they beat alpha (PVS);
from the third move on (late moves) that null window search is one ply
shallower first (late-move reduction), except where the search reaches the
end of the game. The root is the same kernel with ``at_root`` set (one move
loop for every node): it skips the tactics that only prune, tries every legal
column, takes no cutoff from the table, and leaves its best column in
``state[ST_BEST]``. A root proved drawn or lost plays, of the columns that keep
that value, the one a short heuristic search ranks first
(:mod:`engine_svc.chances`), not simply the first one proved.

The caller stops a search through the stop flag (``state[ST_STOP]``, an element
of the search's int64 state array that a timer thread or ``Engine.stop()``
sets): numba has no clock, so the kernel reads it every 4096 nodes and after
every child, and returns at once; an aborted iteration is thrown away.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from types import SimpleNamespace
from typing import Callable

import numpy as np
from numba import int64, uint64

from connect4.errors import InvalidPosition
from connect4.geometry import STANDARD, Geometry
from connect4.jit import kernel

from .chances import CHANCE_DEPTH, MIN_EMPTIES, move_with_chances
from .evaluation import eval_kernels, line_tables
from .pace import IterationPace
from .stopping import Cancel, call_after, stop_on
from .tt import DEFAULT_MB, EXACT, LOWER, NO_MOVE, UPPER, TranspositionTable, tt_lookup, tt_pack, tt_score, tt_slot

MATE = 100_000
UNDECIDED = -(1 << 62)  # threats(): the node is not decided by its tactics
INF = 1 << 30
REDUCE_AFTER = 2  # late-move reductions: moves after the first two are tried one ply shallower first
CHECK_EVERY = 4096  # nodes between two looks at the stop flag (a power of two)
# The search state array: nodes, stop flag, the root's best column, then heights and lines.
ST_NODES, ST_STOP, ST_BEST, ST_FIXED = 0, 1, 2, 3
CHANCE_TABLE_MB = 1  # the table of the short searches that rank the moves of a proven draw or loss


def win_score(end_stone: int, cells: int) -> int:
    """Score of a win whose last stone is stone number ``end_stone``."""
    return MATE + cells + 1 - end_stone


def is_proven(score: int) -> bool:
    return abs(score) > MATE


def pons_score(score: int, cells: int) -> int:
    """A proven engine score in Pascal Pons' convention (0 for a draw or an unproven score)."""
    if not is_proven(score):
        return 0
    s = (cells + 2 - end_stone_of(score, cells)) // 2
    return s if score > 0 else -s


def end_stone_of(score: int, cells: int) -> int:
    """The stone number that ends the game, for a proven win/loss score."""
    return MATE + cells + 1 - abs(score)


@lru_cache(maxsize=None)
def search_kernels(g: Geometry = STANDARD) -> SimpleNamespace:
    """Compile the search of one geometry; every size is a constant."""
    tag = f"{g.width}x{g.height}k{g.k}"
    ek = eval_kernels(g)
    win_cells = ek.winning_cells
    threat_term = ek.threat_term
    play_lines = ek.play_lines
    line_delta = ek.line_delta
    undo_lines = ek.undo_lines
    W = g.width
    H1 = g.h1
    CELLS = g.cells
    BOTTOM = uint64(g.bottom_mask)
    BOARD = uint64(g.board_mask)
    COLMASK = np.array([g.column_mask(c) for c in range(W)], dtype=np.uint64)
    ORDER = np.array(g.center_order(), dtype=np.int64)
    MASK_CHECK = uint64(CHECK_EVERY - 1)
    ST_HEIGHTS = ST_FIXED            # st[ST_HEIGHTS + c]: stones in column c
    ST_LINES = ST_FIXED + W          # st[ST_LINES + l]: state of line l

    @kernel(tag)
    def threats(possible, ow, ply, alpha, beta):
        """The exact tactics every node below the root shares, once the side
        to move has no win now: ``ow`` are the opponent's winning cells.

        Returns ``(moves, alpha, beta, value)``: the safe moves (a forced
        block if there is one; never right under an opponent's winning cell)
        and the window narrowed to the proven bounds, or a decided ``value``
        (lost to two threats or to no safe move, or a window closed by the
        bounds); ``value`` is UNDECIDED otherwise."""
        forced = possible & ow
        moves = possible & ~(ow >> uint64(1))  # not right under an opponent's winning cell
        if forced:
            if forced & (forced - uint64(1)):
                return moves, alpha, beta, -int64(MATE + CELLS - ply - 1)  # two threats: lost with stone ply+2
            moves &= forced
        if moves == 0:
            return moves, alpha, beta, -int64(MATE + CELLS - ply - 1)
        # Bounds of a proven result from here: we cannot win before stone ply+3
        # and, after a safe move, cannot lose before stone ply+4.
        hi = int64(MATE + CELLS - ply - 2)
        if beta > hi:
            beta = hi
            if alpha >= beta:
                return moves, alpha, beta, beta
        lo = -int64(MATE + CELLS - ply - 3)
        if alpha < lo:
            alpha = lo
            if alpha >= beta:
                return moves, alpha, beta, alpha
        return moves, alpha, beta, int64(UNDECIDED)

    @kernel(tag)
    def leaf(cur, mask, ply, alpha, beta, ls, mw):
        """Value of a depth-0 node: the exact tactics of every node (win now,
        lost to two threats or to no safe move), else the evaluation.
        ``mw`` are the side to move's winning cells (known from the parent)."""
        if ply == CELLS:
            return int64(0)
        possible = (mask + BOTTOM) & BOARD
        if mw & possible:
            return int64(MATE + CELLS - ply)
        ow = win_cells(cur ^ mask, mask)
        moves, alpha, beta, value = threats(possible, ow, ply, alpha, beta)
        if value != UNDECIDED:
            return value
        # Line score plus the threat term from the winning cells above.
        if (ply & 1) == 0:  # first player to move
            return ls + threat_term(mw, ow)
        return -(ls + threat_term(ow, mw))

    @kernel(tag)
    def negamax(cur, mask, ply, depth, alpha, beta, ls, mw, st, tt, tshift, gen, at_root):
        """Value of the position (``cur`` = side to move's stones) within (alpha, beta), fail-soft.

        ``ls`` is the line score (first player's view) kept incrementally.
        ``st`` holds the node count, the stop flag, the root's best column,
        the column heights and the line states (see ``ST_*``); ``tt`` the
        table, key and data of a slot side by side so one probe touches one
        cache line. Few array arguments matter: numba passes each array as
        seven machine words. ``mw`` are the side to move's winning cells: the
        parent computed them as its opponent's, and a move only removes its
        own cell from them.

        ``at_root`` is 1 for the root only (see ``root``): it tries every
        legal column (a lost position still gets its longest defence), takes
        no cutoff from the table, and leaves its best column in st[ST_BEST]."""
        st[ST_NODES] += 1
        if (uint64(st[ST_NODES]) & MASK_CHECK) == 0 and st[ST_STOP]:
            return int64(0)
        if depth <= 0:
            return leaf(cur, mask, ply, alpha, beta, ls, mw)
        if ply == CELLS:
            return int64(0)  # full board: draw
        possible = (mask + BOTTOM) & BOARD   # the landing cell of every open column
        opp = cur ^ mask
        if mw & possible:
            if at_root:
                for c in range(W):
                    if mw & possible & COLMASK[c]:
                        st[ST_BEST] = c
                        break
            return int64(MATE + CELLS - ply)  # win with stone ply+1
        ow = win_cells(opp, mask)
        if at_root:
            moves = possible
        else:
            moves, alpha, beta, value = threats(possible, ow, ply, alpha, beta)
            if value != UNDECIDED:
                return value
        side = ply & 1

        key = cur + mask + BOTTOM  # Pons' key: unique per position
        slot = tt_slot(key, tshift) * uint64(2)
        ttmove = -1
        # The table is used from depth 2 up: one level above the leaves a probe
        # (a cache miss in a 64 MB table) costs more than the cutoffs it finds,
        # and those nodes are about a third of the tree.
        use_tt = depth >= 2 or at_root
        if use_tt:
            if tt[slot] == key:
                d = tt[slot + uint64(1)]
                if (d >> uint64(56)) == uint64(gen):
                    ts = tt_score(d)
                    tdepth = int64((d >> uint64(32)) & uint64(0xFF))
                    tb = int64((d >> uint64(40)) & uint64(3))
                    tm = int64((d >> uint64(48)) & uint64(0xFF))
                    if tm != NO_MOVE:
                        ttmove = tm
                    if not at_root:  # the root always searches: it must name a column
                        if tdepth >= depth:
                            if tb == EXACT:
                                return ts
                            if tb == LOWER and ts >= beta:
                                return ts
                            if tb == UPPER and ts <= alpha:
                                return ts
                        # A proven win found at any depth is a true lower bound, a proven
                        # loss a true upper bound, whatever depth they came from.
                        elif ts > MATE and tb != UPPER and ts >= beta:
                            return ts
                        elif ts < -MATE and tb != LOWER and ts <= alpha:
                            return ts

        alpha0 = alpha
        best = -int64(INF)
        bestmove = -1
        first = True
        searched = 0
        not_root = int64(0)
        for k in range(-1, W):
            if k < 0:
                c = ttmove
                if c < 0:
                    continue
            else:
                c = ORDER[k]
                if c == ttmove:
                    continue
            b = moves & COLMASK[c]
            if b == 0:
                continue
            cell = c * H1 + st[ST_HEIGHTS + c]
            if depth == 1:
                # The children are leaves: value them in place, without a
                # recursive call, and read their line score without playing
                # (nothing to undo). A leaf's value does not depend on the
                # window beyond its clamps, so PVS has nothing to re-search.
                st[ST_NODES] += 1
                v = -leaf(opp, mask | b, ply + 1, -beta, -alpha, ls + line_delta(st, ST_LINES, cell, side), ow & ~b)
                if v > best:
                    best = v
                    bestmove = c
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
                continue
            st[ST_HEIGHTS + c] += 1
            nls = ls + play_lines(st, ST_LINES, cell, side)
            if first:
                v = -negamax(opp, mask | b, ply + 1, depth - 1, -beta, -alpha, nls, ow & ~b,
                             st, tt, tshift, gen, not_root)
            else:
                # PVS: prove the move is no better than alpha with a null window.
                # A late move (third or later: the table's column, then centre
                # first) tries it one ply shallower first and gets the full depth
                # only when it beats alpha. Never where the search reaches the end
                # of the game (ply + depth >= CELLS), so an exact search stays exact.
                d1 = depth - 1
                if searched >= REDUCE_AFTER and depth >= 3 and ply + depth < CELLS and not at_root:
                    d1 = depth - 2
                v = -negamax(opp, mask | b, ply + 1, d1, -alpha - 1, -alpha, nls, ow & ~b,
                             st, tt, tshift, gen, not_root)
                if v > alpha and d1 < depth - 1:
                    v = -negamax(opp, mask | b, ply + 1, depth - 1, -alpha - 1, -alpha, nls, ow & ~b,
                                 st, tt, tshift, gen, not_root)
                if alpha < v < beta:
                    v = -negamax(opp, mask | b, ply + 1, depth - 1, -beta, -alpha, nls, ow & ~b,
                                 st, tt, tshift, gen, not_root)
            undo_lines(st, ST_LINES, cell, side)
            st[ST_HEIGHTS + c] -= 1
            if st[ST_STOP]:
                return int64(0)  # aborted: nothing is stored
            first = False
            searched += 1
            if v > best:
                best = v
                bestmove = c
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        if use_tt:
            bound = UPPER if best <= alpha0 else (LOWER if best >= beta else EXACT)
            tt[slot] = key
            tt[slot + uint64(1)] = tt_pack(best, depth, bound, bestmove, gen)
        if at_root:
            st[ST_BEST] = bestmove
        return best

    @kernel(tag)
    def root(cur, mask, ply, depth, alpha, beta, ls, st, tt, tshift, gen):
        """The root: negamax over every legal column; returns (score, column)
        (column -1 when the search was stopped)."""
        st[ST_BEST] = -1
        score = negamax(cur, mask, ply, depth, alpha, beta, ls, win_cells(cur, mask), st, tt, tshift, gen,
                        int64(1))
        if st[ST_STOP]:
            return int64(0), -1
        return score, st[ST_BEST]

    @kernel(tag)
    def mtdf(cur, mask, ply, depth, guess, ls, st, tt, tshift, gen):
        """MTD(f): null-window searches around a guess until the bounds meet.

        After 6 passes it bisects the remaining interval, so a wide jump of the
        heuristic value cannot make it crawl one point at a time."""
        lower = -int64(INF)
        upper = int64(INF)
        g = guess
        move = -1
        passes = 0
        while lower < upper:
            if passes >= 6 and lower > -INF and upper < INF:
                beta = (lower + upper + 1) // 2  # lower < beta <= upper
            else:
                beta = g + 1 if g == lower else g
            s, m = root(cur, mask, ply, depth, beta - 1, beta, ls, st, tt, tshift, gen)
            if st[ST_STOP]:
                return int64(0), -1
            g = s
            if g < beta:
                upper = g
            else:
                lower = g
                move = m  # the move that proved the new lower bound
            passes += 1
        return g, move

    @kernel(tag)
    def alphabeta(cur, mask, ply, depth, ls, st, tt, tshift, gen):
        """One full-window PVS search of the root (the other driver, for comparison)."""
        return root(cur, mask, ply, depth, -int64(INF), int64(INF), ls, st, tt, tshift, gen)

    # Compile (or load from the cache) now, so no search pays for it under a clock.
    st = np.zeros(ST_LINES + line_tables(g).n_lines, dtype=np.int64)
    tt = np.zeros(2048, dtype=np.uint64)
    ek.init_lines(st, ST_LINES, np.uint64(0), np.uint64(0))
    tt_lookup(tt, np.uint64(54), np.uint64(1), np.uint64(0))
    mtdf(np.uint64(0), np.uint64(0), 0, 1, int64(0), int64(0), st, tt, np.uint64(54), 1)
    alphabeta(np.uint64(0), np.uint64(0), 0, 1, int64(0), st, tt, np.uint64(54), 1)
    return SimpleNamespace(negamax=negamax, root=root, mtdf=mtdf, alphabeta=alphabeta, geometry=g,
                           st_size=ST_LINES + line_tables(g).n_lines)


@dataclass
class DepthReport:
    """One finished iteration."""

    depth: int
    nodes: int
    score: int
    best_column: int      # 0-based
    elapsed_ms: float
    proven: bool


@dataclass
class SearchResult:
    """The answer of a player or the engine for the side to move (columns 0-based)."""

    column: int
    score: int = 0
    depth: int = 0
    nodes: int = 0
    elapsed_ms: float = 0.0
    book: bool = False
    proven: bool = False
    pv: list[int] = field(default_factory=list)
    outcome: str = "unknown"   # 'unknown' | 'win' | 'draw' | 'loss' (side to move)
    plies_to_end: int = 0
    resign: bool = False
    message: str = ""
    player: str = ""


def describe_outcome(score: int, proven: bool, ply: int, cells: int) -> tuple[str, int]:
    """(outcome, plies to the end) of a root score."""
    if not proven:
        return "unknown", 0
    if score == 0 and not is_proven(score):
        return "draw", cells - ply
    plies = end_stone_of(score, cells) - ply
    return ("win" if score > 0 else "loss"), plies



def _moves(n: int) -> str:
    return "1 move" if n == 1 else f"{n} moves"

class Engine:
    """The heuristic engine for one geometry with its own table (not thread-safe:
    one search at a time; a service keeps a pool of engines)."""

    def __init__(self, geometry: Geometry = STANDARD, tt_mb: float = DEFAULT_MB, driver: str = "mtdf"):
        if driver not in ("mtdf", "pvs"):
            raise ValueError(f"driver {driver!r} must be 'mtdf' or 'pvs'")
        self.geometry = geometry
        self.driver = driver
        self.kernels = search_kernels(geometry)
        self.eval = eval_kernels(geometry)
        self.tt = TranspositionTable(tt_mb)
        # nodes, stop flag, heights, line states: one int64 array (see ST_*)
        self.state = np.zeros(self.kernels.st_size, dtype=np.int64)
        self._chance_engine: Engine | None = None  # ranks the moves of a proven draw or loss (_keep_chances)

    def stop(self) -> None:
        """Abort the running search (from another thread); it keeps its last finished depth."""
        self.state[ST_STOP] = 1

    def _prepare(self, cur: int, mask: int, ply: int) -> int:
        g = self.geometry
        first, second = (cur, cur ^ mask) if ply % 2 == 0 else (cur ^ mask, cur)
        for c in range(g.width):
            self.state[ST_FIXED + c] = bin(mask & g.column_mask(c)).count("1")
        return int(self.eval.init_lines(self.state, ST_FIXED + g.width, np.uint64(first), np.uint64(second)))

    def pv(self, pos, first_move: int, limit: int) -> list[int]:
        """Follow the table's best moves from ``pos`` after ``first_move``."""
        line = [first_move]
        p = pos.copy().play(first_move)
        while len(line) < limit and not p.is_over:
            hit = self.tt.lookup(p.key())
            if hit is None or hit[3] == NO_MOVE or not p.can_play(hit[3]):
                break
            line.append(hit[3])
            p.play(hit[3])
        return line

    def search(
        self,
        pos,
        max_depth: int | None = None,
        budget_ms: float | None = None,
        on_progress: Callable[[DepthReport], None] | None = None,
        cancel: Cancel | None = None,
    ) -> SearchResult:
        """Iterative deepening to ``max_depth`` (default: to the end of the game)
        and/or within ``budget_ms``; deterministic at a fixed depth without a budget.

        Budget rule: a new depth starts only while less than a third of the
        budget is spent; an iteration still running at twice the budget is
        aborted and the last finished one answers. The last iteration the rule
        lets start may skip ahead several plies (see ``pace``)."""
        g = self.geometry
        if pos.geometry != g:
            raise InvalidPosition(f"position is {pos.geometry.name}, engine is {g.name}")
        if pos.is_over:
            raise InvalidPosition("the game is over: there is no move to search")
        k = self.kernels
        start = time.perf_counter()
        ply = pos.ply
        empties = g.cells - ply
        limit = empties if max_depth is None else max(1, min(int(max_depth), empties))
        cur, mask = np.uint64(pos.current), np.uint64(pos.mask)
        ls = self._prepare(pos.current, pos.mask, ply)
        # A search at a fixed depth starts from an empty table, so it is
        # deterministic; a timed one keeps what earlier searches stored (they are
        # bounds of the same positions, whichever game they came from), which
        # gets it about a ply deeper in the same time.
        gen = self.tt.new_search() if budget_ms is None or self.tt.gen == 0 else self.tt.gen
        self.state[ST_STOP] = 0
        self.state[ST_NODES] = 0
        best: tuple[int, int, int] | None = None  # (score, column, depth)
        pace = IterationPace()
        # The clock (an iteration still running at twice the budget) and a cancel
        # (a gRPC deadline, a client gone) raise the stop flag the kernels poll.
        hard_stop_s = None if budget_ms is None else 2.0 * budget_ms / 1000.0
        with call_after(hard_stop_s, self.stop), stop_on(cancel, self.state, ST_STOP):
            guess = 0
            depth = 0
            while depth < limit:
                if best is not None and budget_ms is not None:
                    spent = (time.perf_counter() - start) * 1000.0
                    if spent >= budget_ms / 3.0:
                        break
                    depth = pace.next_depth(limit, spent, budget_ms)  # one ply deeper, or the last jump
                else:
                    depth += 1
                args = (cur, mask, ply, depth)
                tail = (ls, self.state, self.tt.table, self.tt.shift, gen)
                if self.driver == "mtdf":
                    score, col = k.mtdf(*args, guess, *tail)
                else:
                    score, col = k.alphabeta(*args, *tail)
                if self.state[ST_STOP] or col < 0:
                    break
                score, col = int(score), int(col)
                best = (score, col, depth)
                pace.finished(depth, int(self.state[ST_NODES]), (time.perf_counter() - start) * 1000.0)
                guess = score
                proven = is_proven(score) or depth >= empties
                if on_progress is not None:
                    on_progress(DepthReport(depth, int(self.state[ST_NODES]), score, col,
                                            (time.perf_counter() - start) * 1000.0, proven))
                if proven:
                    break
            if (best is not None and empties >= MIN_EMPTIES
                    and (best[0] < -MATE or (best[0] == 0 and best[2] >= empties))):  # a proven loss or draw
                deadline = None if budget_ms is None else start + budget_ms / 1000.0
                best = (best[0], self._keep_chances(pos, best[0], best[1], deadline), best[2])
        elapsed = (time.perf_counter() - start) * 1000.0
        if best is None:
            # Not even depth 1 finished (stopped at once): the first safe column.
            safe = pos.non_losing_moves() or pos.legal_moves()
            order = [c for c in g.center_order() if c in safe]
            wins = pos.winning_moves()
            col = wins[0] if wins else order[0]
            return SearchResult(column=col, nodes=int(self.state[ST_NODES]), elapsed_ms=elapsed, pv=[col],
                                message="stopped before depth 1")
        score, col, depth = best
        proven = is_proven(score) or depth >= empties
        outcome, plies = describe_outcome(score, proven, ply, g.cells)
        result = SearchResult(
            column=col, score=score, depth=depth, nodes=int(self.state[ST_NODES]), elapsed_ms=elapsed,
            proven=proven, pv=self.pv(pos, col, depth), outcome=outcome, plies_to_end=plies,
        )
        if outcome == "win":
            result.message = f"forced win in {_moves((plies + 1) // 2)}"
        elif outcome == "loss":
            result.resign = True
            result.message = f"resigns: a forced loss in {_moves((plies + 1) // 2)}"
        elif outcome == "draw":
            result.message = "proven draw"
        return result

    def _keep_chances(self, pos, score: int, proven_col: int, deadline: float | None) -> int:
        """A proven draw or loss (``score``): of the columns that keep it, the
        one a short heuristic search likes best (see ``chances``); the exact
        proofs run on this table until the deadline (None: no clock), and the
        proven column stands if they stop."""
        g, k = self.geometry, self.kernels
        if self._chance_engine is None:
            self._chance_engine = Engine(g, tt_mb=CHANCE_TABLE_MB, driver=self.driver)
        helper = self._chance_engine

        def heuristic(c: int) -> int:
            child = pos.played(c)
            if child.is_over:
                return 0  # the last cell (a win would not be a proven draw or loss)
            r = helper.search(child, max_depth=CHANCE_DEPTH - 1)
            self.state[ST_NODES] += r.nodes
            return -r.score

        def holds(c: int) -> bool | None:
            child = pos.played(c)
            if child.is_over:
                return score == 0 and child.winner is None  # the last cell: a draw
            if (deadline is not None and time.perf_counter() >= deadline) or self.state[ST_STOP]:
                return None
            ls = self._prepare(child.current, child.mask, child.ply)
            # Does c keep the proven score? It does when the opponent, after c, can
            # do no better than -score: an exact null-window search at that bound.
            bound = -score
            s, m = k.root(np.uint64(child.current), np.uint64(child.mask), child.ply, g.cells - child.ply,
                          int64(bound), int64(bound + 1), ls, self.state, self.tt.table, self.tt.shift,
                          self.tt.gen)
            if self.state[ST_STOP] or m < 0:
                return None
            return int(s) <= bound

        columns = [c for c in g.center_order() if pos.can_play(c)]
        if len(columns) < 2:
            return proven_col
        col, _ = move_with_chances(columns, proven_col, heuristic, holds)
        return col
