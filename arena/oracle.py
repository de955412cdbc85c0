"""The exact game value, as versus and audit ask for it.

Books answer first when configured (in-process); the solver answers the
rest within an optional node budget. A position the budget cannot prove
raises :class:`Unproved`: a verdict is never a guess. Through gRPC
(``--via-grpc``) the solver service answers with a deadline instead.
"""

from __future__ import annotations

from connect4 import STANDARD, Geometry, Position


class Unproved(RuntimeError):
    """No proof within the budget."""


def win_now(pos: Position) -> int:
    """Pons' score of an immediate win for the side to move."""
    return (pos.geometry.cells + 1 - pos.ply) // 2


class Oracle:
    """Exact scores from books and the in-process solver."""

    def __init__(self, geometry: Geometry = STANDARD, node_budget: int = 0, books=None, solver=None):
        from solver_svc.wide_board import exact_solver

        self.geometry = geometry
        self.node_budget = node_budget
        self.books = books
        self.solver = solver or exact_solver(geometry)
        self.nodes = 0  # nodes spent so far

    def _run(self, fn, pos, *args):
        from solver_svc.solver import BudgetExceeded

        try:
            out = fn(pos, *args, node_budget=self.node_budget)
        except BudgetExceeded:
            self.nodes += self.solver.last_nodes
            raise Unproved(f"no proof within {self.node_budget:,} nodes at ply {pos.ply} "
                           "(start later with --from, give books, or raise the budget)") from None
        self.nodes += self.solver.last_nodes
        return out

    def score(self, pos: Position) -> int:
        if self.books is not None:
            s = self.books.score(pos)
            if s is not None:
                return s
            # A move book holds one side's positions; the other side's score is
            # the best of its children's, when the books have every child.
            scores = self.books.analysis(pos)
            if scores is not None:
                return max(x for x in scores if x is not None)
        return self._run(self.solver.solve, pos).score

    def column_value(self, pos: Position, col: int) -> int:
        """The score of playing ``col`` for the side to move."""
        if pos.is_winning_move(col):
            return win_now(pos)
        child = pos.played(col)
        if child.is_over:
            return 0  # the last cell without a line
        return -self.score(child)

    def analyze(self, pos: Position) -> list[int | None]:
        if self.books is not None:
            scores = self.books.analysis(pos)
            if scores is not None:
                return list(scores)
        return list(self._run(self.solver.analyze, pos))

    def best_move(self, pos: Position) -> tuple[int, int]:
        if self.books is not None:
            hit = self.books.best_move(pos)
            if hit is not None:
                return hit
        return self._run(self.solver.best_move, pos)


class GrpcOracle:
    """Exact scores from the solver service (``Solve``, ``Analyze``, ``BestMove``)."""

    def __init__(self, addr: str, geometry: Geometry = STANDARD, deadline_ms: int = 0):
        import grpc

        from c4proto.connect4.v1 import solver_pb2_grpc

        self.geometry = geometry
        self.deadline_ms = deadline_ms
        self.channel = grpc.insecure_channel(addr)
        self.stub = solver_pb2_grpc.SolverServiceStub(self.channel)
        self.nodes = 0

    def _call(self, method, request, pos):
        import grpc

        timeout = self.deadline_ms / 1000 + 5 if self.deadline_ms else None
        try:
            r = method(request, timeout=timeout)
        except grpc.RpcError as exc:
            if exc.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                raise Unproved(f"solver service: no proof within {self.deadline_ms} ms at ply {pos.ply}") from None
            raise Unproved(f"solver service: {exc.code().name}: {exc.details()}") from None
        self.nodes += getattr(r, "nodes", 0)
        return r

    def _pos(self, pos):
        from .players import _proto_position

        return _proto_position(pos)

    def score(self, pos: Position) -> int:
        from c4proto.connect4.v1 import solver_pb2

        return self._call(self.stub.Solve, solver_pb2.SolveRequest(position=self._pos(pos), deadline_ms=self.deadline_ms), pos).score

    def column_value(self, pos: Position, col: int) -> int:
        if pos.is_winning_move(col):
            return win_now(pos)
        child = pos.played(col)
        if child.is_over:
            return 0
        return -self.score(child)

    def analyze(self, pos: Position) -> list[int | None]:
        from c4proto.connect4.v1 import solver_pb2

        r = self._call(self.stub.Analyze, solver_pb2.AnalyzeRequest(position=self._pos(pos), deadline_ms=self.deadline_ms), pos)
        out: list[int | None] = [None] * pos.geometry.width
        for cs in r.columns:
            if cs.unproved:  # a board past 64 bits: the service proved only some columns
                raise Unproved(f"solver service: column {cs.column} not proved within {self.deadline_ms} ms "
                               f"at ply {pos.ply}")
            out[cs.column - 1] = cs.score if cs.HasField("score") else None
        return out

    def best_move(self, pos: Position) -> tuple[int, int]:
        from c4proto.connect4.v1 import solver_pb2

        r = self._call(self.stub.BestMove, solver_pb2.BestMoveRequest(position=self._pos(pos), deadline_ms=self.deadline_ms), pos)
        if not r.proven:
            raise Unproved(f"solver service: no proof within {self.deadline_ms} ms at ply {pos.ply}")
        return r.column - 1, r.score

    def close(self) -> None:
        self.channel.close()
