"""Static evaluation: the line-count score and the threat/parity term.

Line-count score (first player's view): every possible line of K cells scores
the signed number of stones in it when only one colour is there (+a for the
first player, -b for the second), 0 when both colours are in it, and +-1000
once it is complete. The search keeps one small state per line in an int8
array and updates only the lines through the played cell (`play_lines` /
`undo_lines`), so a node never scans the board.

A line's state is ``s = a*(K+1) + b`` (a, b = first's / second's stones in it).
A first-player stone adds K+1, a second-player stone adds 1, and the score
change of either is one table lookup (``DELTA[side, s]``).

Threat/parity term after Victor Allis (first player's view): an empty cell
that would complete a line of one side is that side's threat. The first player
wins zugzwang fights on odd rows (1, 3, 5 counting from 1 at the bottom), the
second on even rows. Per column only the lowest threat counts; a cell both
sides threaten goes to the side whose parity it is on. A threat on its owner's
parity weighs 24, any other 6. It is computed from bitboards at the leaves
(a few dozen bit operations), reusing the winning cells the search needs anyway.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from types import SimpleNamespace
from typing import Any

import numpy as np
from numba import int64, uint64

from connect4.geometry import MAX_BITS, STANDARD, Geometry
from connect4.jit import kernel
from connect4.kernels import kernels_for, require_single_word

from connect4.bits import popcount

COMPLETE = 1000          # a finished line
PARITY_WEIGHT = 24       # a threat on its owner's zugzwang parity
OFF_PARITY_WEIGHT = 6    # any other threat


@dataclass(frozen=True)
class LineTables:
    """Every line of K cells of a geometry as bit indexes, and the lines through each cell."""

    cells: np.ndarray        # (n_lines, K) bit indexes
    masks: np.ndarray        # (n_lines,) uint64 bitboard of each line
    start: np.ndarray        # CSR: lines through bit b are index[start[b]:start[b+1]]
    index: np.ndarray

    @property
    def n_lines(self) -> int:
        return self.cells.shape[0]


@cache
def line_tables(g: Geometry) -> LineTables:
    lines = []
    for c in range(g.width):
        for r in range(g.height):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                ec, er = c + dc * (g.k - 1), r + dr * (g.k - 1)
                if 0 <= ec < g.width and 0 <= er < g.height:
                    lines.append([(c + dc * i) * g.h1 + (r + dr * i) for i in range(g.k)])
    cells = np.array(lines, dtype=np.int64).reshape(len(lines), g.k)
    masks = np.array([sum(1 << b for b in line) for line in lines], dtype=np.uint64)
    through: list[list[int]] = [[] for _ in range(MAX_BITS)]
    for i, line in enumerate(lines):
        for b in line:
            through[b].append(i)
    start = np.zeros(MAX_BITS + 1, dtype=np.int64)
    for b in range(MAX_BITS):
        start[b + 1] = start[b] + len(through[b])
    index = np.array([i for t in through for i in t], dtype=np.int64)
    return LineTables(cells, masks, start, index)


def line_value_table(k: int) -> np.ndarray:
    """Score of a line state s = a*(K+1)+b, first player's view."""
    k1 = k + 1
    val = np.zeros(k1 * k1, dtype=np.int64)
    for a in range(k1):
        for b in range(k1):
            if a and b:
                v = 0
            elif a:
                v = COMPLETE if a == k else a
            elif b:
                v = -COMPLETE if b == k else -b
            else:
                v = 0
            val[a * k1 + b] = v
    return val


def delta_table(k: int) -> np.ndarray:
    """DELTA[side, s]: score change when ``side`` (0 first, 1 second) adds a stone to state s."""
    k1 = k + 1
    val = line_value_table(k)
    delta = np.zeros((2, k1 * k1), dtype=np.int32)
    for s in range(k1 * k1):
        a, b = divmod(s, k1)
        if a < k:
            delta[0, s] = val[s + k1] - val[s]
        if b < k:
            delta[1, s] = val[s + 1] - val[s]
    return delta


def row_masks(g: Geometry) -> tuple[int, int]:
    """(odd, even) rows counted from 1 at the bottom: bit rows 0,2,4.. and 1,3,5.."""
    odd = even = 0
    for c in range(g.width):
        for r in range(g.height):
            if r % 2 == 0:
                odd |= g.cell_bit(c, r)
            else:
                even |= g.cell_bit(c, r)
    return odd, even


def line_state_kernels(tag: str, k: int, l_start: np.ndarray, l_index: np.ndarray, n_lines: int,
                       stone_at: Any) -> SimpleNamespace:
    """``play_lines``, ``line_delta``, ``undo_lines`` over the lines through each
    cell index (``l_index[l_start[i]:l_start[i+1]]``) and ``init_lines``: one body
    for both kernel families, whose cell indexes are both ``c*(H+1) + r``;
    ``stone_at(bits, line, j)`` (the family's) tells whether ``bits`` hold cell j of a line."""
    K1 = k + 1
    DELTA = delta_table(k)
    VALUE = line_value_table(k)
    L_START, L_INDEX = l_start, l_index

    @kernel(tag)
    def play_lines(lst, base, cell, side):
        """Add a stone of ``side`` at ``cell`` to the line states ``lst[base:]``;
        returns the line-score change."""
        delta = int64(0)
        inc = K1 if side == 0 else 1   # a first-player stone counts K+1, a second's 1
        for i in range(L_START[cell], L_START[cell + 1]):
            j = base + L_INDEX[i]
            s = lst[j]
            delta += DELTA[side, s]
            lst[j] = s + inc
        return delta

    @kernel(tag)
    def line_delta(lst, base, cell, side):
        """The line-score change of a stone of ``side`` at ``cell``, without playing it."""
        delta = int64(0)
        for i in range(L_START[cell], L_START[cell + 1]):
            delta += DELTA[side, lst[base + L_INDEX[i]]]
        return delta

    @kernel(tag)
    def undo_lines(lst, base, cell, side):
        inc = K1 if side == 0 else 1
        for i in range(L_START[cell], L_START[cell + 1]):
            lst[base + L_INDEX[i]] -= inc

    @kernel(tag)
    def init_lines(lst, base, first, second):
        """Fill the line states ``lst[base:]`` from the boards (once per search); returns the line score."""
        score = int64(0)
        for line in range(n_lines):
            a = 0
            b = 0
            for j in range(k):
                if stone_at(first, line, j):
                    a += 1
                elif stone_at(second, line, j):
                    b += 1
            s = a * K1 + b
            lst[base + line] = s
            score += VALUE[s]
        return score

    return SimpleNamespace(play_lines=play_lines, line_delta=line_delta, undo_lines=undo_lines,
                           init_lines=init_lines)


@cache
def eval_kernels(g: Geometry = STANDARD) -> SimpleNamespace:
    """Compile the evaluation kernels of one geometry (constants folded in)."""
    require_single_word(g, "the engine's evaluation")
    tag = f"{g.width}x{g.height}k{g.k}"
    K = g.k
    odd, even = row_masks(g)
    ODD, EVEN = uint64(odd), uint64(even)
    T = line_tables(g)
    N_LINES = T.n_lines
    LINE_CELLS = T.cells
    L_START = T.start
    L_INDEX = T.index
    bk = kernels_for(g)  # the bitboard primitives of this board
    win_cells = bk.winning_cells
    lowest_per_column = bk.lowest_per_column

    @kernel(tag)
    def threat_term(wf, ws):
        """Threat/parity term, first player's view, from both sides' winning cells."""
        wf = uint64(wf)
        ws = uint64(ws)
        low = lowest_per_column(wf | ws)  # the lowest threat of every column
        fl = low & wf
        sl = low & ws
        both = fl & sl
        fo = (fl & ~sl) | (both & ODD)   # shared cells go to the parity owner
        so = (sl & ~fl) | (both & EVEN)
        return (int64(popcount(fo & ODD)) * PARITY_WEIGHT + int64(popcount(fo & EVEN)) * OFF_PARITY_WEIGHT
                - int64(popcount(so & EVEN)) * PARITY_WEIGHT - int64(popcount(so & ODD)) * OFF_PARITY_WEIGHT)

    @kernel(tag)
    def stone_at(bits, line, j):
        return bits & (uint64(1) << uint64(LINE_CELLS[line, j]))

    lk = line_state_kernels(tag, K, L_START, L_INDEX, N_LINES, stone_at)
    play_lines, line_delta, undo_lines, init_lines = lk.play_lines, lk.line_delta, lk.undo_lines, lk.init_lines

    @kernel(tag)
    def static_eval(first, second):
        """(line score, threat term), both first player's view; a full scan, for callers outside the search."""
        lst = np.zeros(N_LINES, dtype=np.int8)
        line = init_lines(lst, 0, first, second)
        mask = first | second
        return line, threat_term(win_cells(first, mask), win_cells(second, mask))

    return SimpleNamespace(
        geometry=g,
        n_lines=N_LINES,
        winning_cells=win_cells,
        threat_term=threat_term,
        play_lines=play_lines,
        line_delta=line_delta,
        undo_lines=undo_lines,
        init_lines=init_lines,
        static_eval=static_eval,
        odd=odd,
        even=even,
    )


def family_eval_kernels(g: Geometry) -> SimpleNamespace:
    """The evaluation kernels of a board's kernel family: these up to 64 bits,
    :mod:`engine_svc.wide_evaluation`'s past (the same names and arguments, on column words)."""
    if g.wide:
        from .wide_evaluation import wide_eval_kernels

        return wide_eval_kernels(g)
    return eval_kernels(g)


@dataclass(frozen=True)
class Evaluation:
    """A static evaluation of a position."""

    score: int          # side to move's view: line + threat terms
    line_score: int     # first player's view
    threat_score: int   # first player's view
    first_threats: list[tuple[int, int]]   # (col, row) 0-based
    second_threats: list[tuple[int, int]]


def evaluate(pos) -> Evaluation:
    """The engine's static score of a connect4.Position, with each side's threat cells."""
    g = pos.geometry
    first = pos.stones(0)
    second = pos.stones(1)
    if g.wide:  # past 64 bits: the same evaluation on column words
        from connect4.wide import to_words

        from .wide_evaluation import wide_eval_kernels

        line, threat = wide_eval_kernels(g).static_eval(to_words(first, g), to_words(second, g))
        wf, ws = pos.winning_cells(0), pos.winning_cells(1)
    else:
        ek = eval_kernels(g)
        line, threat = ek.static_eval(np.uint64(first), np.uint64(second))
        wf = int(ek.winning_cells(np.uint64(first), np.uint64(pos.mask)))
        ws = int(ek.winning_cells(np.uint64(second), np.uint64(pos.mask)))
    line, threat = int(line), int(threat)
    total = line + threat
    if pos.to_move == 1:
        total = -total

    def cells(bb: int) -> list[tuple[int, int]]:
        return [(c, r) for c in range(g.width) for r in range(g.height) if bb & g.cell_bit(c, r)]

    return Evaluation(total, line, threat, cells(wf), cells(ws))
