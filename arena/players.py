"""Players as the arena sees them: a spec string, a seed, a ``choose`` call.

Three kinds, all answering :class:`MoveInfo` with a 0-based column:

* ladder players of :mod:`engine_svc.players` (``random`` .. ``engine:MS``),
  in-process or through the engine service's ``Move`` call (``--via-grpc``);
* ``perfect``: the exact solver's best move (fastest win, else draw, else
  slowest loss), in-process from the exact solver (`solver_svc.wide_board.exact_solver`: the wide one past 64 bits; books
  first when configured) or through the solver service's ``BestMove``;
* ``perfect`` takes an optional node budget (``perfect:NODES``) so a match
  from early positions cannot hang: when the proof does not fit the budget
  the move counts as unproved and the game stops with an error.

The gRPC adapters are the one place where the arena converts 0-based
columns to the 1-based columns of the contract and back.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from connect4 import STANDARD, Geometry, Position
from connect4.scores import plies_to_end

if TYPE_CHECKING:
    import grpc

    from connect4.bookset import BookSet

    from .protocols import Player

PERFECT = "perfect"
WIDE_PERFECT_NODES = 20_000_000  # perfect's node budget a move past 64 bits unless perfect:NODES says otherwise


class PlayerError(RuntimeError):
    """A player could not be made or could not answer."""


@dataclass
class MoveInfo:
    column: int  # 0-based
    nodes: int = 0
    elapsed_ms: float = 0.0
    depth: int = 0
    score: int | None = None
    book: bool = False
    proven: bool = False
    pv: list[int] = field(default_factory=list)  # 0-based
    outcome: str = ""
    plies_to_end: int | None = None
    resign: bool = False
    message: str = ""

    def figures(self) -> str:
        """One line of search figures for people."""
        if not (self.nodes or self.depth or self.book or self.proven or self.message):
            return "no search"
        parts = []
        if self.book:
            parts.append("book")
        if self.depth:
            parts.append(f"depth {self.depth}")
        if self.score is not None:
            parts.append(f"score {self.score:+d}")
        parts.append(f"{self.nodes:,} nodes")
        parts.append(f"{self.elapsed_ms:.0f} ms")
        if self.elapsed_ms > 0 and self.nodes:
            rate = self.nodes / self.elapsed_ms * 1000  # nodes per second
            parts.append(f"{rate / 1e6:.2f} M nodes/s" if rate >= 1e6 else f"{rate / 1e3:.1f} k nodes/s")
        if self.proven and self.outcome:
            tail = f" in {self.plies_to_end} plies" if self.plies_to_end else ""
            parts.append(f"proven {self.outcome}{tail}")
        if self.pv:
            from connect4.notation import LETTERS

            parts.append("pv " + " ".join(LETTERS[c] for c in self.pv[:10]))
        if self.message:
            parts.append(self.message)
        return ", ".join(parts)


class ArenaPlayer:
    """A base for :class:`arena.protocols.Player` implementations: ``close`` does nothing."""

    spec: str

    def choose(self, pos: Position) -> MoveInfo:  # pragma: no cover - interface
        raise NotImplementedError

    def close(self) -> None:
        pass


def _field(result, name, default=None):
    return getattr(result, name, default)


def move_seed(seed: int, ply: int) -> int:
    """The seed of one move: a player answers the same in a position of a game
    whether it runs in-process or behind the engine service, which makes a
    fresh player for every request."""
    return (seed * 1_000_003 + ply) % (1 << 63)


class LadderPlayer(ArenaPlayer):
    """A player of the engine's ladder, in-process; a fresh player a move, seeded by :func:`move_seed`."""

    def __init__(self, spec: str, geometry: Geometry = STANDARD, seed: int = 0, budget_ms: int | None = None,
                 books=None, engine=None, ladder_spec: str | None = None):
        """``ladder_spec`` is what plays when it differs from the name in the
        records (a bare ``clairvoyant`` bound to its opponent)."""
        from engine_svc.players import InvalidSpec, make_player

        played = ladder_spec or spec
        self._make = lambda s: make_player(played, geometry=geometry, seed=s, books=books, engine=engine)
        try:
            self._player = self._make(move_seed(seed, 0))
        except InvalidSpec as exc:
            raise PlayerError(str(exc)) from None
        self.spec = spec
        self.seed = seed
        self.budget_ms = budget_ms

    def choose(self, pos: Position) -> MoveInfo:
        t0 = time.perf_counter()
        if pos.ply:
            self._player = self._make(move_seed(self.seed, pos.ply))
        r = self._player.choose(pos, budget_ms=self.budget_ms)
        wall = (time.perf_counter() - t0) * 1000
        outcome = _field(r, "outcome", "")
        outcome = getattr(outcome, "name", outcome) or ""
        return MoveInfo(
            column=int(r.column),
            nodes=int(_field(r, "nodes", 0) or 0),
            elapsed_ms=float(_field(r, "elapsed_ms", None) or wall),
            depth=int(_field(r, "depth", 0) or 0),
            score=_field(r, "score"),
            book=bool(_field(r, "book", False)),
            proven=bool(_field(r, "proven", False)),
            pv=[int(c) for c in (_field(r, "pv", None) or [])],
            outcome=str(outcome).lower(),
            plies_to_end=_field(r, "plies_to_end"),
            resign=bool(_field(r, "resign", False)),
            message=str(_field(r, "message", "") or ""),
        )


class PerfectPlayer(ArenaPlayer):
    """The exact solver's move, in-process; books first when any are configured."""

    def __init__(self, geometry: Geometry = STANDARD, node_budget: int = 0, books=None, solver=None):
        from solver_svc.wide_board import exact_solver

        self.spec = PERFECT if not node_budget else f"{PERFECT}:{node_budget}"
        self.geometry = geometry
        # Past 64 bits an early position is far out of reach: a budget stops it with a clear error.
        self.node_budget = node_budget or (WIDE_PERFECT_NODES if geometry.wide else 0)
        self.solver = solver or exact_solver(geometry)
        self.books = books

    def choose(self, pos: Position) -> MoveInfo:
        from solver_svc.solver import BudgetExceeded

        t0 = time.perf_counter()
        if self.books is not None:
            hit = self.books.best_move(pos)
            if hit is not None:
                col, score = hit
                return MoveInfo(col, 0, (time.perf_counter() - t0) * 1000, score=score, book=True, proven=True,
                                outcome=_outcome(score))
        try:
            col, score = self.solver.best_move(pos, node_budget=self.node_budget)
        except BudgetExceeded as exc:
            raise PlayerError(f"perfect: no proof within {self.node_budget:,} nodes at ply {pos.ply}") from exc
        return MoveInfo(col, self.solver.last_nodes, (time.perf_counter() - t0) * 1000, score=score, proven=True,
                        outcome=_outcome(score), plies_to_end=plies_to_end(score, pos.ply, pos.geometry))


def _outcome(score: int) -> str:
    return "win" if score > 0 else "loss" if score < 0 else "draw"


class GrpcLadderPlayer(ArenaPlayer):
    """A ladder player through the engine service (``EngineService.Move``)."""

    def __init__(self, spec: str, channel, geometry: Geometry = STANDARD, seed: int = 0, budget_ms: int | None = None,
                 timeout_s: float | None = None, ladder_spec: str | None = None):
        from c4proto.connect4.v1 import engine_pb2_grpc

        self.spec = spec
        self.ladder_spec = ladder_spec or spec
        self.geometry = geometry
        self.seed = seed
        self.budget_ms = budget_ms
        self.timeout_s = timeout_s
        self._stub = engine_pb2_grpc.EngineServiceStub(channel)

    def choose(self, pos: Position) -> MoveInfo:
        import grpc

        from c4proto.connect4.v1 import engine_pb2

        req = engine_pb2.MoveRequest(position=_proto_position(pos), player=self.ladder_spec,
                                     budget_ms=self.budget_ms or 0, seed=move_seed(self.seed, pos.ply))
        t0 = time.perf_counter()
        try:
            r = self._stub.Move(req, timeout=self.timeout_s)
        except grpc.RpcError as exc:
            raise PlayerError(f"engine service, {self.spec}: {exc.code().name}: {exc.details()}") from None
        wall = (time.perf_counter() - t0) * 1000
        outcome = engine_pb2.Outcome.Name(r.outcome).removeprefix("OUTCOME_").lower()
        return MoveInfo(
            column=r.column - 1, nodes=r.nodes, elapsed_ms=r.elapsed_ms or wall, depth=r.depth, score=r.score,
            book=r.book, proven=r.proven, pv=[c - 1 for c in r.pv], outcome="" if outcome == "unknown" else outcome,
            plies_to_end=r.plies_to_end if r.proven else None, resign=r.resign, message=r.message,
        )


class GrpcPerfectPlayer(ArenaPlayer):
    """The perfect player through the solver service (``SolverService.BestMove``)."""

    def __init__(self, channel, geometry: Geometry = STANDARD, deadline_ms: int = 0):
        from c4proto.connect4.v1 import solver_pb2_grpc

        self.spec = PERFECT
        self.geometry = geometry
        self.deadline_ms = deadline_ms
        self._stub = solver_pb2_grpc.SolverServiceStub(channel)

    def choose(self, pos: Position) -> MoveInfo:
        import grpc

        from c4proto.connect4.v1 import solver_pb2

        t0 = time.perf_counter()
        try:
            r = self._stub.BestMove(solver_pb2.BestMoveRequest(position=_proto_position(pos),
                                                               deadline_ms=self.deadline_ms))
        except grpc.RpcError as exc:
            raise PlayerError(f"solver service: {exc.code().name}: {exc.details()}") from None
        if not r.proven:
            raise PlayerError(f"solver service: no proof within {self.deadline_ms} ms at ply {pos.ply}")
        return MoveInfo(r.column - 1, r.nodes, r.elapsed_ms or (time.perf_counter() - t0) * 1000, score=r.score,
                        book=r.source == "book", proven=True, outcome=_outcome(r.score),
                        plies_to_end=plies_to_end(r.score, pos.ply, pos.geometry))


def _proto_position(pos: Position):
    from c4proto.connect4.v1 import common_pb2

    g = pos.geometry
    return common_pb2.Position(width=g.width, height=g.height, k=g.k, moves=[c + 1 for c in pos.moves])


@dataclass(frozen=True)
class Via:
    """Where players run: in-process (both None) or through the services."""

    engine_addr: str | None = None
    solver_addr: str | None = None

    @classmethod
    def parse(cls, text: str | None) -> Via:
        """``ENGINE_ADDR,SOLVER_ADDR``; either may be left out (``host:port,`` or ``,host:port``)."""
        if not text:
            return cls()
        parts = [p.strip() for p in text.split(",")]
        if len(parts) > 2 or not any(parts):
            raise ValueError(f"--via-grpc wants ENGINE_ADDR,SOLVER_ADDR (e.g. 127.0.0.1:50051,127.0.0.1:50052), got {text!r}")
        engine = parts[0] or None
        solver = (parts[1] if len(parts) > 1 else "") or None
        return cls(engine, solver)

    @property
    def in_process(self) -> bool:
        return self.engine_addr is None and self.solver_addr is None


class PlayerFactory:
    """Makes players for one process; keeps gRPC channels and solvers alive between games."""

    def __init__(self, geometry: Geometry = STANDARD, via: Via = Via(), books=None, grpc_timeout_s: float | None = 600,
                 engine_books: str | None = "default"):
        self.geometry = geometry
        self.via = via
        self.books = books  # the perfect player's BookSet (connect4.bookset), or None
        self.grpc_timeout_s = grpc_timeout_s
        self.engine_books = engine_books
        self._engine_bookset: BookSet | None = None
        self._channels: dict[str, grpc.Channel] = {}
        self._solver = None
        self._engines: dict[str, object] = {}  # one Engine (and its table) per engine spec, kept between games

    def _engine_for(self, spec: str):
        """The engine players of one spec share one Engine in this process: its
        table is allocated once, and two different engine specs never share one."""
        from engine_svc.players import parse_spec

        name, _ = parse_spec(spec)
        if name != "engine":
            return None, None
        if spec not in self._engines:
            from engine_svc.search import Engine

            self._engines[spec] = Engine(self.geometry, 64.0)
        if self._engine_bookset is None and self.engine_books not in (None, "", "none"):
            from connect4.bookset import SHIPPED_MOVE_BOOKS, BookSet

            paths = SHIPPED_MOVE_BOOKS if self.engine_books == "default" else [p for p in self.engine_books.split(",") if p]
            self._engine_bookset = BookSet(paths, self.geometry)
        return self._engines[spec], self._engine_bookset

    def solver(self):
        """This process's in-process exact solver (one table, shared by the perfect player and the
        oracle): the 64-bit Solver, or the wide one on a board past 64 bits."""
        if self._solver is None:
            from solver_svc.wide_board import exact_solver

            self._solver = exact_solver(self.geometry)
        return self._solver

    def _channel(self, addr: str):
        import grpc

        if addr not in self._channels:
            self._channels[addr] = grpc.insecure_channel(addr)
        return self._channels[addr]

    def make(self, spec: str, seed: int = 0, opponent: str | None = None) -> Player:
        """The player ``spec``; ``opponent`` (the other player's spec) binds a
        bare ``clairvoyant`` to the policy it plays against."""
        spec = spec.strip()
        ladder = _bound(spec, opponent)
        if spec == PERFECT or spec.startswith(PERFECT + ":"):
            budget = 0
            if ":" in spec:
                try:
                    budget = int(spec.split(":", 1)[1])
                except ValueError:
                    raise PlayerError(f"{spec!r}: perfect:NODES wants a node budget, e.g. perfect:50000000") from None
            if self.via.solver_addr:
                return GrpcPerfectPlayer(self._channel(self.via.solver_addr), self.geometry)
            return PerfectPlayer(self.geometry, budget, self.books, self.solver())
        if self.via.engine_addr:
            return GrpcLadderPlayer(spec, self._channel(self.via.engine_addr), self.geometry, seed,
                                    timeout_s=self.grpc_timeout_s, ladder_spec=ladder)
        engine, books = self._engine_for(spec)
        return LadderPlayer(spec, self.geometry, seed, books=books, engine=engine, ladder_spec=ladder)

    def close(self) -> None:
        for ch in self._channels.values():
            ch.close()
        self._channels.clear()


def _bound(spec: str, opponent: str | None) -> str:
    if opponent is None:
        return spec
    from engine_svc.players import bind_opponent

    return bind_opponent(spec, opponent)


def check_pairings(players: list[str], gauntlet: bool = False) -> None:
    """PlayerError when a bare ``clairvoyant`` meets a player whose policy it
    cannot know (checked before any game starts)."""
    for i, spec in enumerate(players):
        if spec.strip().lower() != "clairvoyant":
            continue
        others = players[:i] + players[i + 1:] if not gauntlet or i == 0 else players[:1]
        for other in others:
            try:
                check_spec(_bound(spec, other))
            except PlayerError as exc:
                raise PlayerError(f"clairvoyant against {other!r}: {exc}") from None


def check_spec(spec: str, geometry: Geometry = STANDARD) -> None:
    """Raise PlayerError for a spec no player answers to (checked before any game starts)."""
    spec = spec.strip()
    if spec == PERFECT:
        return
    if spec.startswith(PERFECT + ":"):
        try:
            if int(spec.split(":", 1)[1]) < 0:
                raise ValueError
        except ValueError:
            raise PlayerError(f"{spec!r}: perfect:NODES wants a node budget, e.g. perfect:50000000") from None
        return
    from engine_svc.players import InvalidSpec, parse_spec

    try:
        parse_spec(spec)
    except InvalidSpec as exc:
        raise PlayerError(str(exc)) from None
