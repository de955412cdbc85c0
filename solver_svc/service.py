"""The gRPC layer: requests in, answers out; the work is in :mod:`.oracle`.

Columns become 0-based here and 1-based again on the way out (the one
converter of this adapter). Status codes: INVALID_ARGUMENT for a position
that is not one (bad size, illegal move, finished game), DEADLINE_EXCEEDED
when the deadline or node budget runs out before a proof (BestMove answers
``proven=false`` instead; Analyze of a board past 64 bits answers the columns
it proved and marks the others ``unproved``), FAILED_PRECONDITION "warming up
the solver's kernels for 9x7, try again in N s" (trailing metadata
``retry-after-s``) while a large board's kernels still compile. A cancelled RPC (or a client gone) stops its
search at once through the budget's stop flag.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from functools import lru_cache

import grpc
import numpy as np

from c4proto.connect4.v1 import solver_pb2, solver_pb2_grpc
from connect4 import Connect4Error, Geometry, Position
from connect4.kernels import kernels_for
from servicekit.deadlines import time_left

from .builtin import Budget
from .oracle import Oracle, Unproved
from .warming import Warming

log = logging.getLogger(__name__)

SERVICE_NAME = solver_pb2.DESCRIPTOR.services_by_name["SolverService"].full_name


class BadRequest(Exception):
    pass


@lru_cache(maxsize=64)
def _columns(g: Geometry) -> tuple[tuple[int, ...], tuple[int, ...], Callable[[np.uint64], bool]]:
    """(top cell, bottom cell) of every column, and the line test, of a board."""
    return (tuple(g.top_mask(c) for c in range(g.width)), tuple(g.bottom_cell(c) for c in range(g.width)),
            kernels_for(g).alignment)


def replay(moves, g: Geometry) -> Position:
    """The position after 1-based ``moves``. The usual request (legal moves,
    no line of K on the board) is replayed on two integers with one line test
    at the end; anything else goes through ``Position.from_moves``, whose
    error names the bad move. (A quarter of a small Analyze call's handler
    time went into the move-by-move checks.)"""
    if g.wide:  # past 64 bits: no single-word shortcut
        return Position.from_moves([m - 1 for m in moves], g)
    tops, bottoms, alignment = _columns(g)
    cur = mask = 0
    cols = []
    for m in moves:
        c = m - 1
        if not 0 <= c < g.width or mask & tops[c]:
            return Position.from_moves([m - 1 for m in moves], g)  # raises, naming the move
        cur ^= mask  # the stones of the side to move next
        mask |= mask + bottoms[c]  # the carry lands on the column's lowest empty cell
        cols.append(c)
    if alignment(np.uint64(cur)) or alignment(np.uint64(cur ^ mask)):
        return Position.from_moves(cols, g)  # a line: from_moves says when the game ended
    pos = Position(g)
    pos.current, pos.mask, pos.moves = cur, mask, cols
    return pos


def position_from_proto(msg) -> Position:
    """A proto Position -> a Position in play; BadRequest saying what is wrong."""
    try:
        g = Geometry(msg.width or 7, msg.height or 6, msg.k or 4)
        pos = replay(msg.moves, g)
    except Connect4Error as exc:
        raise BadRequest(str(exc)) from None
    if pos.is_over:
        what = "a draw, the board is full" if pos.is_draw else f"won by the {'first' if pos.winner == 0 else 'second'} player"
        raise BadRequest(f"the game is over ({what}): there is nothing to solve")
    return pos


def _guarded(method):
    """Unexpected errors become INTERNAL with a logged traceback; aborts pass."""

    def wrapped(self, request, context):
        try:
            return method(self, request, context)
        except Warming as exc:  # a board size whose kernels still compile: come back in N s
            log.info("warming up", extra={"board": exc.geometry.name, "retry_s": exc.retry_s})
            context.set_trailing_metadata((("retry-after-s", str(exc.retry_s)),))
            context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(exc))
        except Exception as exc:
            if context.code() is not None and context.code() != grpc.StatusCode.OK:
                raise  # context.abort() already set the status
            log.exception("solver request failed")
            context.abort(grpc.StatusCode.INTERNAL, f"solver error: {type(exc).__name__}: {exc}")

    wrapped.__name__ = method.__name__
    return wrapped


def _log(what: str, pos: Position, ms: float, **fields) -> None:
    """One line a query, with the caller's request id (the log formatter adds it)."""
    log.info(what, extra={"moves": len(pos.moves), "ms": round(ms, 1), **fields})


class SolverService(solver_pb2_grpc.SolverServiceServicer):
    def __init__(self, oracle: Oracle, deadline_margin_s: float = 0.005):
        self.oracle = oracle
        self.margin = deadline_margin_s

    # -- helpers -----------------------------------------------------------------
    def _budget(self, context, deadline_ms: int, nodes: int = 0) -> Budget:
        """The request's budget; the RPC's end (a cancel, a client gone, the
        deadline, a server stopping) cancels it, which stops its search."""
        limits = []
        if deadline_ms:
            limits.append(deadline_ms / 1000.0)
        remaining = time_left(context)
        if remaining is not None:
            limits.append(remaining - self.margin)
        budget = Budget(min(limits) if limits else None, nodes)
        if not context.add_callback(budget.cancel):
            budget.cancel()  # the RPC has already ended
        return budget

    @staticmethod
    def _unproved(context, budget: Budget, exc: Unproved, what: str, pos: Position, started: float):
        _log(what, pos, (time.perf_counter() - started) * 1000.0,
             outcome="cancelled" if budget.cancelled else "no proof")
        if budget.cancelled:  # nobody waits for this answer any more
            context.abort(grpc.StatusCode.CANCELLED, "the request was cancelled")
        context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, f"no proof within the budget: {exc}")

    def _position(self, request, context) -> Position:
        try:
            return position_from_proto(request.position)
        except BadRequest as exc:
            log.info("bad position", extra={"error": str(exc)})
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
            raise  # not reached: abort raises

    # -- RPCs --------------------------------------------------------------------
    @_guarded
    def Solve(self, request, context):
        started = time.perf_counter()
        pos = self._position(request, context)
        budget = self._budget(context, request.deadline_ms, request.node_budget)
        try:
            v = self.oracle.solve(pos, budget, weak=request.weak)
        except Unproved as exc:
            self._unproved(context, budget, exc, "solve", pos, started)
        ms = (time.perf_counter() - started) * 1000.0
        _log("solve", pos, ms, nodes=v.nodes, source=v.source, score=v.score)
        return solver_pb2.SolveResponse(
            score=v.score, nodes=v.nodes, proven=True, source=v.source, weak=v.weak, elapsed_ms=ms,
        )

    @_guarded
    def Analyze(self, request, context):
        started = time.perf_counter()
        pos = self._position(request, context)
        budget = self._budget(context, request.deadline_ms, request.node_budget)
        try:
            a = self.oracle.analyze(pos, budget)
        except Unproved as exc:
            self._unproved(context, budget, exc, "analyze", pos, started)
        ms = (time.perf_counter() - started) * 1000.0
        if a.unproved and budget.cancelled:
            context.abort(grpc.StatusCode.CANCELLED, "the request was cancelled")
        _log("analyze", pos, ms, nodes=a.nodes, source=a.source, unproved=len(a.unproved))
        return solver_pb2.AnalyzeResponse(
            columns=[solver_pb2.ColumnScore(column=c + 1, score=s, unproved=c in a.unproved)
                     for c, s in enumerate(a.scores)],
            nodes=a.nodes, source=a.source, elapsed_ms=ms,
        )

    @_guarded
    def BestMove(self, request, context):
        started = time.perf_counter()
        pos = self._position(request, context)
        budget = self._budget(context, request.deadline_ms)
        c = self.oracle.best_move(pos, budget)
        ms = (time.perf_counter() - started) * 1000.0
        _log("best move", pos, ms, nodes=c.nodes, source=c.source, proven=c.proven,
             column=None if c.column is None else c.column + 1)
        return solver_pb2.BestMoveResponse(
            proven=c.proven, column=0 if c.column is None else c.column + 1, score=c.score,
            nodes=c.nodes, source=c.source, elapsed_ms=ms,
        )
