"""The search kernels: negamax alpha-beta with PVS over the transposition
table, one root for every driver, and the two drivers of one depth (MTD(f)
and a full-window search). :class:`engine_svc.search.Engine` deepens them.

Inside a node (Pascal Pons' tactics first, all exact):
  * a winning cell on top of a column: win now;
  * the opponent's winning cells on top of columns: two lose, one must be blocked;
  * never play right under an opponent's winning cell; nothing left: lost.
Then the table (:mod:`engine_svc.tt`), the leaf evaluation at depth 0, and the
moves in the order of :mod:`engine_svc.ordering`: the first move with the full
window and the others with a null window, searched again when they beat alpha
(PVS); late moves first one ply shallower (late-move reduction), except where
the search reaches the end of the game. One body serves every board: the
node operations (play, winning cells, key, ...) are the kernel family's,
from :mod:`engine_svc.boards`. The root is the same kernel with
``at_root`` set (one move loop for every node): it skips the tactics that only
prune, tries every legal column, takes no cutoff from the table, and leaves
its best column in ``state[ST_BEST]``; ``mtdf`` and ``alphabeta`` both search
through ``root``.

The caller stops a search through the stop flag (``state[ST_STOP]``, an element
of the search's int64 state array that a timer thread or ``Engine.stop()``
sets): numba has no clock, so the kernel reads it every 4096 nodes and after
every child, and returns at once; an aborted iteration is thrown away. Scores
are those of :mod:`engine_svc.scores`.
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

import numpy as np
from numba import int64, uint64

from connect4.geometry import STANDARD, Geometry
from connect4.jit import kernel
from connect4.wide import kernel_board

from .boards import board_ops
from .evaluation import family_eval_kernels
from .ordering import REDUCE_AFTER, move_at, move_order
from .scores import INF, MATE
from .tt import EXACT, LOWER, NO_MOVE, UPPER, tt_bound, tt_depth, tt_gen, tt_lookup, tt_move, tt_pack, tt_score, tt_slot

UNDECIDED = -(1 << 62)  # threats(): the node is not decided by its tactics
CHECK_EVERY = 4096  # nodes between two looks at the stop flag (a power of two)
# The search state array: nodes, stop flag, the root's best column, then heights and lines.
ST_NODES, ST_STOP, ST_BEST, ST_FIXED = 0, 1, 2, 3


@cache
def search_kernels(g: Geometry = STANDARD) -> SimpleNamespace:
    """Compile the search of one geometry; every size is a constant. One body
    for every board: the node operations are the family's (:mod:`.boards`)."""
    tag = f"{'wide' if g.wide else ''}{g.width}x{g.height}k{g.k}"
    ek = family_eval_kernels(g)
    ops = board_ops(g)
    start, can_win, win_column, opp_wins = ops.start, ops.can_win, ops.win_column, ops.opp_wins
    legal, safe, move_in, play, undo = ops.legal, ops.safe, ops.move_in, ops.play, ops.undo
    key_of, mine, theirs = ops.key, ops.mine, ops.theirs
    threat_term = ek.threat_term
    play_lines = ek.play_lines
    line_delta = ek.line_delta
    undo_lines = ek.undo_lines
    W = g.width
    H1 = g.h1
    CELLS = g.cells
    ORDER = move_order(g)
    MASK_CHECK = uint64(CHECK_EVERY - 1)
    ST_HEIGHTS = ST_FIXED            # st[ST_HEIGHTS + c]: stones in column c
    ST_LINES = ST_FIXED + W          # st[ST_LINES + l]: state of line l

    @kernel(tag)
    def threats(node, ow, ply, alpha, beta):
        """The exact tactics every node below the root shares, once the side
        to move has no win now: ``ow`` are the opponent's winning cells.

        Returns ``(moves, alpha, beta, value)``: the safe moves (a forced
        block if there is one; never right under an opponent's winning cell)
        and the window narrowed to the proven bounds, or a decided ``value``
        (lost to two threats or to no safe move, or a window closed by the
        bounds); ``value`` is UNDECIDED otherwise."""
        moves = safe(node, ow, ply)
        if moves == 0:
            return moves, alpha, beta, -int64(MATE + CELLS - ply - 1)  # the opponent wins with stone ply+2
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
    def leaf(node, ply, alpha, beta, ls):
        """Value of a depth-0 node: the exact tactics of every node (win now,
        lost to two threats or to no safe move), else the evaluation.
        The side to move's winning cells are in the node (known from the parent)."""
        if ply == CELLS:
            return int64(0)
        if can_win(node, ply):
            return int64(MATE + CELLS - ply)
        ow = opp_wins(node, ply)
        moves, alpha, beta, value = threats(node, ow, ply, alpha, beta)
        if value != UNDECIDED:
            return value
        # Line score plus the threat term from the winning cells above.
        if (ply & 1) == 0:  # first player to move
            return ls + threat_term(mine(node, ply), theirs(node, ow, ply))
        return -(ls + threat_term(theirs(node, ow, ply), mine(node, ply)))

    @kernel(tag)
    def negamax(node, ply, depth, alpha, beta, ls, st, tt, tshift, gen, at_root):
        """Value of the position ``node`` (:mod:`.boards`) within (alpha, beta), fail-soft.

        ``ls`` is the line score (first player's view) kept incrementally.
        ``st`` holds the node count, the stop flag, the root's best column,
        the column heights and the line states (see ``ST_*``); ``tt`` the
        table, key and data of a slot side by side so one probe touches one
        cache line. Few array arguments matter: numba passes each array as
        seven machine words. The node's side to move's winning cells: the
        parent computed them as its opponent's (``ow``), and a move only
        removes its own cell from them.

        ``at_root`` is 1 for the root only (see ``root``): it tries every
        legal column (a lost position still gets its longest defence), takes
        no cutoff from the table, and leaves its best column in st[ST_BEST]."""
        st[ST_NODES] += 1
        if (uint64(st[ST_NODES]) & MASK_CHECK) == 0 and st[ST_STOP]:
            return int64(0)
        if depth <= 0:
            return leaf(node, ply, alpha, beta, ls)
        if ply == CELLS:
            return int64(0)  # full board: draw
        if can_win(node, ply):
            if at_root:
                st[ST_BEST] = win_column(node, ply)
            return int64(MATE + CELLS - ply)  # win with stone ply+1
        ow = opp_wins(node, ply)
        if at_root:
            moves = legal(node)
        else:
            moves, alpha, beta, value = threats(node, ow, ply, alpha, beta)
            if value != UNDECIDED:
                return value
        side = ply & 1

        key = key_of(node, ply)
        slot = tt_slot(key, tshift) * uint64(2)
        ttmove = -1
        # The table is used from depth 2 up: one level above the leaves a probe
        # (a cache miss in a 64 MB table) costs more than the cutoffs it finds,
        # and those nodes are about a third of the tree.
        use_tt = depth >= 2 or at_root
        if use_tt and tt[slot] == key:
            d = tt[slot + uint64(1)]
            if tt_gen(d) == gen:
                ts = tt_score(d)
                tdepth = tt_depth(d)
                tb = tt_bound(d)
                tm = tt_move(d)
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
                    elif ts > MATE and tb != UPPER and ts >= beta:  # noqa: SIM114 (two rules, two comments)
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
            c = move_at(ORDER, k, ttmove)
            if c < 0:
                continue
            b = move_in(moves, c)
            if b == 0:
                continue
            h = st[ST_HEIGHTS + c]
            cell = c * H1 + h
            child = play(node, ow, ply, c, h, b)
            if depth == 1:
                # The children are leaves: value them in place, without a
                # recursive call, and read their line score without playing
                # it into the line states. A leaf's value does not depend on the
                # window beyond its clamps, so PVS has nothing to re-search.
                st[ST_NODES] += 1
                v = -leaf(child, ply + 1, -beta, -alpha, ls + line_delta(st, ST_LINES, cell, side))
                undo(node, ply, c, h)
            else:
                st[ST_HEIGHTS + c] += 1
                nls = ls + play_lines(st, ST_LINES, cell, side)
                if first:
                    v = -negamax(child, ply + 1, depth - 1, -beta, -alpha, nls, st, tt, tshift, gen, not_root)
                else:
                    # PVS: prove the move is no better than alpha with a null window.
                    # A late move (third or later: the table's column, then centre
                    # first) tries it one ply shallower first and gets the full depth
                    # only when it beats alpha. Never where the search reaches the end
                    # of the game (ply + depth >= CELLS), so an exact search stays exact.
                    d1 = depth - 1
                    if searched >= REDUCE_AFTER and depth >= 3 and ply + depth < CELLS and not at_root:
                        d1 = depth - 2
                    v = -negamax(child, ply + 1, d1, -alpha - 1, -alpha, nls, st, tt, tshift, gen, not_root)
                    if v > alpha and d1 < depth - 1:
                        v = -negamax(child, ply + 1, depth - 1, -alpha - 1, -alpha, nls, st, tt, tshift,
                                     gen, not_root)
                    if alpha < v < beta:
                        v = -negamax(child, ply + 1, depth - 1, -beta, -alpha, nls, st, tt, tshift, gen,
                                     not_root)
                undo_lines(st, ST_LINES, cell, side)
                st[ST_HEIGHTS + c] -= 1
                undo(node, ply, c, h)
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
        score = negamax(start(cur, mask, ply), ply, depth, alpha, beta, ls, st, tt, tshift, gen, int64(1))
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
    st_size = ST_LINES + ek.n_lines
    st = np.zeros(st_size, dtype=np.int64)
    tt = np.zeros(2048, dtype=np.uint64)
    empty = kernel_board(0, g)
    ek.init_lines(st, ST_LINES, empty, empty)
    tt_lookup(tt, np.uint64(54), np.uint64(1), np.uint64(0))
    mtdf(empty, empty, 0, 1, int64(0), int64(0), st, tt, np.uint64(54), 1)
    alphabeta(empty, empty, 0, 1, int64(0), st, tt, np.uint64(54), 1)
    return SimpleNamespace(negamax=negamax, root=root, mtdf=mtdf, alphabeta=alphabeta, geometry=g,
                           st_size=st_size)
