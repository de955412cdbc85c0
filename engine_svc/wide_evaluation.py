"""The engine's evaluation on boards past 64 bits: the same line-count score
and threat/parity term as :mod:`engine_svc.evaluation`, on one word per
column (:mod:`connect4.wide`).

Line states are kept exactly as there (``s = a*(K+1) + b``, the same value and
delta tables); only the cell index space is wider (``c*(H+1) + r`` up to 272)
and the threat term walks the column words.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from types import SimpleNamespace

import numpy as np
from numba import int64, uint64

from connect4.bits import popcount
from connect4.geometry import Geometry
from connect4.jit import kernel
from connect4.wide import wide_kernels_for

from .evaluation import (
    COMPLETE,
    OFF_PARITY_WEIGHT,
    PARITY_WEIGHT,
    line_state_kernels,
)


@dataclass(frozen=True)
class WideLineTables:
    """Every line of K cells as (column, row) pairs, and the lines through each cell index c*(H+1)+r."""

    cols: np.ndarray   # (n_lines, K)
    rows: np.ndarray   # (n_lines, K)
    start: np.ndarray  # CSR over cell indexes: lines through cell i are index[start[i]:start[i+1]]
    index: np.ndarray

    @property
    def n_lines(self) -> int:
        return self.cols.shape[0]


@cache
def wide_line_tables(g: Geometry) -> WideLineTables:
    cols, rows = [], []
    for c in range(g.width):
        for r in range(g.height):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                ec, er = c + dc * (g.k - 1), r + dr * (g.k - 1)
                if 0 <= ec < g.width and 0 <= er < g.height:
                    cols.append([c + dc * i for i in range(g.k)])
                    rows.append([r + dr * i for i in range(g.k)])
    through: list[list[int]] = [[] for _ in range(g.bits)]
    for i, (lc, lr) in enumerate(zip(cols, rows, strict=True)):
        for c, r in zip(lc, lr, strict=True):
            through[c * g.h1 + r].append(i)
    start = np.zeros(g.bits + 1, dtype=np.int64)
    for b in range(g.bits):
        start[b + 1] = start[b] + len(through[b])
    index = np.array([i for t in through for i in t], dtype=np.int64)
    n = len(cols)
    return WideLineTables(np.array(cols, dtype=np.int64).reshape(n, g.k),
                          np.array(rows, dtype=np.int64).reshape(n, g.k), start, index)


@cache
def wide_line_masks(g: Geometry) -> tuple[int, ...]:
    """Every line as a Python bitboard (Pons' layout, any width)."""
    t = wide_line_tables(g)
    return tuple(sum(1 << (int(c) * g.h1 + int(r)) for c, r in zip(cols, rows, strict=True))
                 for cols, rows in zip(t.cols, t.rows, strict=True))


def wide_own_line_score(me: int, opp: int, g: Geometry) -> int:
    """Greedy's own line score (:func:`engine_svc.players.ladder.own_line_score`) on a board past 64 bits."""
    total = 0
    for line in wide_line_masks(g):
        if not line & opp:
            n = (line & me).bit_count()
            total += COMPLETE if n == g.k else n
    return total


@cache
def wide_eval_kernels(g: Geometry) -> SimpleNamespace:
    tag = f"wide{g.width}x{g.height}k{g.k}"
    W, K = g.width, g.k
    ODD = uint64(sum(1 << r for r in range(0, g.height, 2)))   # rows 1, 3, 5.. counted from 1
    EVEN = uint64(sum(1 << r for r in range(1, g.height, 2)))
    T = wide_line_tables(g)
    N_LINES = T.n_lines
    L_COLS, L_ROWS, L_START, L_INDEX = T.cols, T.rows, T.start, T.index
    wk = wide_kernels_for(g)
    win_cells = wk.winning_cells

    @kernel(tag)
    def threat_term(wf, ws):
        """Threat/parity term, first player's view (see :mod:`engine_svc.evaluation`), column by column."""
        t = int64(0)
        for c in range(W):
            both_sides = wf[c] | ws[c]
            low = both_sides & (~both_sides + uint64(1))  # the lowest threat of the column
            fl = low & wf[c]
            sl = low & ws[c]
            both = fl & sl
            fo = (fl & ~sl) | (both & ODD)
            so = (sl & ~fl) | (both & EVEN)
            t += (int64(popcount(fo & ODD)) * PARITY_WEIGHT + int64(popcount(fo & EVEN)) * OFF_PARITY_WEIGHT
                  - int64(popcount(so & EVEN)) * PARITY_WEIGHT - int64(popcount(so & ODD)) * OFF_PARITY_WEIGHT)
        return t

    @kernel(tag)
    def stone_at(words, line, j):
        return words[L_COLS[line, j]] & (uint64(1) << uint64(L_ROWS[line, j]))

    lk = line_state_kernels(tag, K, L_START, L_INDEX, N_LINES, stone_at)
    play_lines, line_delta, undo_lines, init_lines = lk.play_lines, lk.line_delta, lk.undo_lines, lk.init_lines

    @kernel(tag)
    def static_eval(first, second):
        lst = np.zeros(N_LINES, dtype=np.int64)
        line = init_lines(lst, 0, first, second)
        mask = first | second
        wf = np.zeros(W, dtype=np.uint64)
        ws = np.zeros(W, dtype=np.uint64)
        win_cells(first, mask, wf)
        win_cells(second, mask, ws)
        return line, threat_term(wf, ws)

    return SimpleNamespace(geometry=g, n_lines=N_LINES, winning_cells=win_cells, threat_term=threat_term,
                           play_lines=play_lines, line_delta=line_delta, undo_lines=undo_lines,
                           init_lines=init_lines, static_eval=static_eval)
