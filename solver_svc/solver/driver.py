"""The entry points of the solver's kernels: one numba call each; Python only checks and converts.

``search_kernels(geometry)`` compiles, or loads from numba's cache, the
kernels of one board size (:mod:`.table`, :mod:`.ordering`, :mod:`.search`)
and returns these entry points:

* ``solve_pos`` — exact (or weak) score of one position;
* ``analyze_pos`` — the score of every column;
* ``test_pos`` — one null-window search: is the score above a bound?
* ``window_pos`` — one null-window search and its fail-hard value (the
  parallel solve's unit of work, :mod:`.parallel`);
* ``run_batch`` — many positions given as move lists: replays and checks
  every move (off the board, full column, a move that wins at once, as
  Pons' c4solver rules), optionally starts each from a fresh table (a new
  epoch), and solves or analyzes it;
* ``preload`` — write exact scores into the table.
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

from numba import int64, uint64

from connect4.geometry import Geometry
from connect4.kernels import kernels_for

from .jit import kernel, tag_of
from .masks import board_masks
from .search import NO_SCORE, search_kernels_of
from .table import ABORT, BUDGET, EPOCH, EPOCH_MAX, GROW_AT, IN_SMALL, NODES, REAL_BUDGET, table_kernels

from .layout import ABORTED, ANALYZE, FRESH, FULL_COLUMN, OFF_BOARD, OK, WEAK, WINS  # run_batch's flags and codes
from .layout import MAIN_PAIRS, MAX_WORK

__all__ = ["ABORTED", "ANALYZE", "FRESH", "FULL_COLUMN", "NO_SCORE", "OFF_BOARD", "OK", "WEAK", "WINS",
           "search_kernels"]


@cache
def search_kernels(g: Geometry) -> SimpleNamespace:
    tag = tag_of(g)
    b = board_masks(g)
    W, CELLS, BOTTOM, BOARD, COL, TOP = b.W, b.CELLS, b.BOTTOM, b.BOARD, b.COL, b.TOP
    ZERO = uint64(0)
    s = search_kernels_of(g)
    negamax, can_win_next, begin, score_of, analyze_into = (s.negamax, s.can_win_next, s.begin, s.score_of,
                                                            s.analyze_into)
    win_cells = s.win_cells
    table = table_kernels(g, MAIN_PAIRS)
    slot, store, swap_layout = table.slot, table.store, table.swap_layout
    bits = kernels_for(g)
    mirror, alignment = bits.mirror, bits.alignment

    @kernel(tag)
    def new_epoch(tt, ws):
        """Forget the table: a new epoch, the memory zeroed only when the epoch wraps."""
        if ws[EPOCH] >= ws[EPOCH_MAX]:
            tt[:] = ZERO
            ws[EPOCH] = 1
        else:
            ws[EPOCH] += 1

    @kernel(tag)
    def solve_pos(cur, mask, ply, weak, budget, tt, ws, stop):
        begin(ws, budget)
        return score_of(uint64(cur), uint64(mask), ply, weak, tt, tt, ws, stop)

    @kernel(tag)
    def analyze_pos(cur, mask, ply, weak, budget, tt, ws, stop, out):
        begin(ws, budget)
        analyze_into(uint64(cur), uint64(mask), ply, weak, tt, tt, ws, stop, out, 0)

    @kernel(tag)
    def test_pos(cur, mask, ply, bound, budget, tt, ws, stop):
        """Is the score of a position that is not over larger than ``bound``?
        One null-window search (check ws[ABORT] after)."""
        begin(ws, budget)
        c, m = uint64(cur), uint64(mask)
        if can_win_next(c, m):
            return (CELLS + 1 - ply) // 2 > bound
        return negamax(c, m, mirror(c), mirror(m), ply, bound, bound + 1, tt, ws, stop) > bound

    @kernel(tag)
    def window_pos(cur, mask, ply, bound, budget, tt, ws, stop):
        """The null window ``(bound, bound + 1)`` on a position whose side to move
        cannot win at once: r <= bound says score <= r, r > bound says score >= r
        (check ws[ABORT] after)."""
        begin(ws, budget)
        c, m = uint64(cur), uint64(mask)
        return negamax(c, m, mirror(c), mirror(m), ply, bound, bound + 1, tt, ws, stop)

    @kernel(tag)
    def run_batch(moves, starts, flags, budget, tt, small, ws, stop, scores, nodes, errors):
        """Replay, check and solve (or analyze) every move list
        ``moves[starts[i]:starts[i+1]]`` (0-based columns). Writes scores
        (``W`` a position when analyzing), nodes and ``errors[2i], [2i+1]`` =
        (code, 1-based move). Returns the number of positions done: fewer
        than asked only when a search was stopped (its code is ABORTED).
        With FRESH and a ``small`` table (more than one word), each search
        begins there (see :mod:`.table`)."""
        weak = (flags & WEAK) != 0
        analyze = (flags & ANALYZE) != 0
        fresh = (flags & FRESH) != 0
        n = starts.shape[0] - 1
        for i in range(n):
            cur = ZERO
            mask = ZERO
            code = OK
            at = 0
            for j in range(starts[i], starts[i + 1]):
                c = int64(moves[j])
                at += 1
                if c >= W:
                    code = OFF_BOARD
                    break
                if mask & TOP[c]:
                    code = FULL_COLUMN
                    break
                landing = (mask + BOTTOM) & COL[c]
                if alignment(cur | landing):  # no line before it: only this move can make one
                    code = WINS
                    break
                cur ^= mask
                mask |= landing
            nodes[i] = 0
            errors[2 * i] = code
            errors[2 * i + 1] = at if code != OK else 0
            if code != OK:
                continue
            ply = at
            if mask == BOARD:  # a full board without a line: a draw, nothing to play
                if analyze:
                    for c in range(W):
                        scores[i * W + c] = NO_SCORE
                else:
                    scores[i] = 0
                continue
            if stop[0] != 0:
                errors[2 * i] = ABORTED
                return i
            if fresh:
                new_epoch(tt, ws)
            begin(ws, budget)
            if fresh and small.shape[0] > 1:
                swap_layout(ws)  # the small table in use, forgotten too
                new_epoch(small, ws)
                ws[REAL_BUDGET] = ws[BUDGET]
                ws[BUDGET] = min(ws[BUDGET], ws[GROW_AT])
                ws[IN_SMALL] = 1
            if analyze:
                analyze_into(cur, mask, ply, weak, tt, small, ws, stop, scores, i * W)
            else:
                scores[i] = score_of(cur, mask, ply, weak, tt, small, ws, stop)
            if ws[IN_SMALL]:  # the main table's layout back in place
                swap_layout(ws)
                ws[BUDGET] = ws[REAL_BUDGET]
                ws[IN_SMALL] = 0
            nodes[i] = ws[NODES]
            if ws[ABORT]:
                errors[2 * i] = ABORTED
                return i
        return n

    @kernel(tag)
    def preload(keys, values, tt, ws):
        """Store exact scores (lower = upper, no move) of positions given by
        their keys (either orientation)."""
        for i in range(keys.shape[0]):
            key = keys[i]
            mkey = mirror(key)
            idx, want = slot(mkey if mkey < key else key, ws)
            store(tt, idx, want, values[i], values[i], -1, False, MAX_WORK, tt[idx], ws)  # kept first

    return SimpleNamespace(
        geometry=g,
        loaded=set(),  # entry points already made ready (see quickload)
        solve_pos=solve_pos,
        analyze_pos=analyze_pos,
        test_pos=test_pos,
        window_pos=window_pos,
        run_batch=run_batch,
        preload=preload,
        negamax=negamax,
        can_win_next=can_win_next,
        win_cells=win_cells,
        mirror=bits.mirror,
        popcount=bits.popcount,
    )
