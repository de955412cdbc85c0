"""gRPC clients of the engine and solver services.

Deadlines on every call, the gRPC retry policy on UNAVAILABLE, a short
reconnect back-off (so a restarted service is found again within a second),
and the request id as metadata ``x-request-id``. A ``dns:///name:port``
address is resolved here and re-resolved every ``RESOLVE_INTERVAL_S`` (on
the next call after that time), so a replica that ``docker compose --scale``
adds gets calls within seconds: gRPC's own DNS resolver looks again only when
a connection fails. Errors become
:class:`~gateway.errors.GameError`: UNAVAILABLE -> 503 ``service_unavailable``,
DEADLINE_EXCEEDED -> 504 ``timeout``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from c4proto.connect4.v1 import common_pb2, engine_pb2, engine_pb2_grpc, solver_pb2, solver_pb2_grpc
from servicekit.logs import REQUEST_ID, REQUEST_ID_HEADER

from .document import Game
from .errors import GameError, ServiceUnavailable
from .players import PlayerInfo, think_ms_of
from .players import takes_budget as player_takes_budget

log = logging.getLogger(__name__)


def _channel(addr: str, service: str, attempts: int) -> grpc.aio.Channel:
    config = {
        # spread calls over every address the target resolves to
        # (dns:///engine:50051 gives one per replica under docker compose --scale)
        "loadBalancingConfig": [{"round_robin": {}}],
        # gRPC's client-side health checking: a replica still warming up (or
        # stopping) reports NOT_SERVING on grpc.health.v1 and gets no calls
        "healthCheckConfig": {"serviceName": service},
        "methodConfig": [{
            "name": [{"service": service}],
            "retryPolicy": {
                "maxAttempts": max(2, min(attempts, 5)),
                "initialBackoff": "0.05s",
                "maxBackoff": "0.5s",
                "backoffMultiplier": 2,
                "retryableStatusCodes": ["UNAVAILABLE"],
            },
        }]
    }
    return grpc.aio.insecure_channel(addr, options=[
        ("grpc.enable_retries", 1),
        ("grpc.service_config", json.dumps(config)),
        ("grpc.initial_reconnect_backoff_ms", 100),
        ("grpc.min_reconnect_backoff_ms", 100),
        ("grpc.max_reconnect_backoff_ms", 1000),
        ("grpc.keepalive_time_ms", 30000),
    ])


RESOLVE_INTERVAL_S = 10.0
OLD_CHANNEL_GRACE_S = 120.0  # calls still running on a replaced channel finish within this


def _dns_name(addr: str) -> tuple[str, int] | None:
    """(host, port) of a ``dns:///host:port`` address whose host is a name, else None."""
    if not addr.startswith("dns:///"):
        return None
    host, sep, port = addr[len("dns:///"):].rpartition(":")
    if not sep or not port.isdigit() or not host or host.startswith("["):
        return None
    try:
        socket.inet_aton(host)
        return None  # a literal address: nothing to re-resolve
    except OSError:
        return host, int(port)


def _address_target(infos: Sequence[tuple[Any, ...]], port: int) -> str | None:
    """A gRPC target listing every resolved address (IPv4 preferred: one family per target)."""
    v4 = sorted({info[4][0] for info in infos if info[0] == socket.AF_INET})
    v6 = sorted({info[4][0] for info in infos if info[0] == socket.AF_INET6})
    if v4:
        return "ipv4:" + ",".join(f"{ip}:{port}" for ip in v4)
    if v6:
        return "ipv6:" + ",".join(f"[{ip}]:{port}" for ip in v6)
    return None


class _Target:
    """The channel and stub of one service; for a ``dns:///`` name, made anew
    when the set of addresses the name resolves to changes."""

    def __init__(self, addr: str, service: str, attempts: int, stub_class: Callable[[Any], Any],
                 resolve_interval_s: float):
        self.addr, self.service, self.attempts, self.stub_class = addr, service, attempts, stub_class
        self.name = _dns_name(addr)
        self.interval = resolve_interval_s
        self.target = addr
        if self.name:  # not resolvable yet (OSError): gRPC's resolver keeps trying, so do we
            with contextlib.suppress(OSError):
                self.target = _address_target(socket.getaddrinfo(*self.name, type=socket.SOCK_STREAM),
                                              self.name[1]) or addr
        self.resolved_at = time.monotonic()
        self.channel = _channel(self.target, service, attempts)
        self.stub = stub_class(self.channel)
        self._task: asyncio.Task[None] | None = None
        self._old: set[asyncio.Task[None]] = set()

    def current(self) -> Any:
        """The stub to call now; starts a re-resolution when one is due."""
        if self.name and self._task is None and time.monotonic() - self.resolved_at >= self.interval:
            with contextlib.suppress(RuntimeError):  # no event loop: the next call in one will do it
                self._task = asyncio.get_running_loop().create_task(self._refresh())
        return self.stub

    async def _refresh(self) -> None:
        try:
            if self.name is None:
                return
            host, port = self.name
            infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
            target = _address_target(infos, port)
            if target and target != self.target:
                log.info("service addresses changed", extra={"service": self.service, "address": self.addr,
                                                             "before": self.target, "now": target})
                old = self.channel
                self.target, self.channel = target, _channel(target, self.service, self.attempts)
                self.stub = self.stub_class(self.channel)
                closing = asyncio.get_running_loop().create_task(old.close(OLD_CHANNEL_GRACE_S))
                self._old.add(closing)
                closing.add_done_callback(self._old.discard)
        except OSError as exc:  # the name is gone for now: keep the channel we have
            log.warning("cannot resolve service name", extra={"address": self.addr, "error": str(exc)})
        except Exception:  # never let a failed refresh stop the next one
            log.exception("re-resolving a service name failed", extra={"address": self.addr})
        finally:
            self.resolved_at = time.monotonic()
            self._task = None

    async def close(self) -> None:
        if self._task:
            self._task.cancel()
        for task in list(self._old):
            task.cancel()
        await self.channel.close()


def _metadata() -> tuple[tuple[str, str], ...] | None:
    rid = REQUEST_ID.get()
    return ((REQUEST_ID_HEADER, rid),) if rid else None


def position_pb(doc: Game, moves: list[int] | None = None) -> common_pb2.Position:
    return common_pb2.Position(width=doc.width, height=doc.height, k=doc.k,
                               moves=[c + 1 for c in (doc.moves if moves is None else moves)])


def _translate(service: str, exc: grpc.aio.AioRpcError) -> GameError:
    code = exc.code()
    if code == grpc.StatusCode.UNAVAILABLE:
        return ServiceUnavailable(service, exc.details() or "")
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return GameError("timeout", f"the {service} service did not answer in time")
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        return GameError("bad_request", f"{service}: {exc.details()}")
    retry = dict(exc.trailing_metadata() or ()).get("retry-after-s")
    if code == grpc.StatusCode.FAILED_PRECONDITION and retry is not None:  # kernels of a new board size compiling
        return GameError("warming_up", f"{service}: {exc.details()}", retry_after_s=float(retry))
    return GameError("service_error", f"{service} service error {code.name}: {exc.details()}")


class Services:
    """Both clients; one channel each, shared by every request of the process."""

    def __init__(self, engine_addr: str, solver_addr: str, timeout_s: float = 10.0, attempts: int = 4,
                 resolve_interval_s: float = RESOLVE_INTERVAL_S):
        self.timeout_s = timeout_s
        self._engine = _Target(engine_addr, "connect4.v1.EngineService", attempts,
                               engine_pb2_grpc.EngineServiceStub, resolve_interval_s)
        self._solver = _Target(solver_addr, "connect4.v1.SolverService", attempts,
                               solver_pb2_grpc.SolverServiceStub, resolve_interval_s)
        self.players: list[PlayerInfo] | None = None  # the engine's ListPlayers, once it answered

    @property
    def engine(self) -> engine_pb2_grpc.EngineServiceStub:
        stub: engine_pb2_grpc.EngineServiceStub = self._engine.current()
        return stub

    @property
    def solver(self) -> solver_pb2_grpc.SolverServiceStub:
        stub: solver_pb2_grpc.SolverServiceStub = self._solver.current()
        return stub

    @property
    def engine_channel(self) -> grpc.aio.Channel:
        self._engine.current()
        return self._engine.channel

    @property
    def solver_channel(self) -> grpc.aio.Channel:
        self._solver.current()
        return self._solver.channel

    async def close(self) -> None:
        await self._engine.close()
        await self._solver.close()

    # -- engine ----------------------------------------------------------------
    async def list_players(self) -> list[PlayerInfo]:
        try:
            resp = await self.engine.ListPlayers(engine_pb2.ListPlayersRequest(), timeout=self.timeout_s,
                                                 metadata=_metadata())
        except grpc.aio.AioRpcError as exc:
            raise _translate("engine", exc) from None
        self.players = [
            PlayerInfo(spec=p.spec, family=p.family, description=p.description, takes_budget=p.takes_budget,
                       param_min=p.param_min, param_max=p.param_max, default_budget_ms=p.default_budget_ms,
                       param_is_budget_ms=p.param_is_budget_ms)
            for p in resp.players
        ]
        return self.players

    async def known_players(self) -> list[PlayerInfo] | None:
        """The engine's players, asked once (None while the engine does not answer)."""
        if self.players is None:
            try:
                await self.list_players()
            except GameError:
                return None
        return self.players

    async def takes_budget(self, spec: str) -> bool:
        """Does this player think (stream progress) or answer at once? Cached."""
        return player_takes_budget(spec, await self.known_players())

    def think_deadline_s(self, player: str, budget_ms: int) -> float:
        """The gRPC deadline of a move: the engine gives a search at most half the
        time left (an iteration may run to twice its budget), so twice the think
        time plus the quick-call timeout, or ``engine:20000`` would think 5 s."""
        return 2 * think_ms_of(player, budget_ms, self.players) / 1000 + self.timeout_s

    async def move(self, doc: Game, player: str, budget_ms: int, seed: int = 0) -> engine_pb2.SearchResult:
        req = engine_pb2.MoveRequest(position=position_pb(doc), player=player, budget_ms=budget_ms, seed=seed)
        await self.known_players()  # the deadline needs the player's think time
        try:
            result: engine_pb2.SearchResult = await self.engine.Move(
                req, timeout=self.think_deadline_s(player, budget_ms), metadata=_metadata())
        except grpc.aio.AioRpcError as exc:
            raise _translate("engine", exc) from None
        return result

    async def think(self, doc: Game, player: str, budget_ms: int, seed: int = 0
                    ) -> AsyncIterator[engine_pb2.DepthReport | engine_pb2.SearchResult]:
        """Yields ``engine_pb2.DepthReport`` progress, then the ``SearchResult``."""
        req = engine_pb2.MoveRequest(position=position_pb(doc), player=player, budget_ms=budget_ms, seed=seed)
        await self.known_players()  # the deadline needs the player's think time
        call = self.engine.Think(req, timeout=self.think_deadline_s(player, budget_ms), metadata=_metadata())
        try:
            async for update in call:
                if update.HasField("progress"):
                    yield update.progress
                elif update.HasField("result"):
                    yield update.result
        except grpc.aio.AioRpcError as exc:
            raise _translate("engine", exc) from None
        finally:
            call.cancel()

    # -- solver ----------------------------------------------------------------
    async def best_move(self, doc: Game, deadline_ms: int) -> solver_pb2.BestMoveResponse:
        req = solver_pb2.BestMoveRequest(position=position_pb(doc), deadline_ms=deadline_ms)
        try:
            best: solver_pb2.BestMoveResponse = await self.solver.BestMove(
                req, timeout=deadline_ms / 1000 + self.timeout_s, metadata=_metadata())
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                return solver_pb2.BestMoveResponse(proven=False)
            raise _translate("solver", exc) from None
        return best

    async def analyze(self, doc: Game, deadline_ms: int, moves: list[int] | None = None
                      ) -> solver_pb2.AnalyzeResponse:
        """Each column's score in ``doc`` (after its first moves ``moves`` when given)."""
        req = solver_pb2.AnalyzeRequest(position=position_pb(doc, moves), deadline_ms=deadline_ms)
        try:
            analysis: solver_pb2.AnalyzeResponse = await self.solver.Analyze(
                req, timeout=deadline_ms / 1000 + self.timeout_s, metadata=_metadata())
        except grpc.aio.AioRpcError as exc:
            raise _translate("solver", exc) from None
        return analysis

    # -- health ----------------------------------------------------------------
    async def health(self) -> dict[str, str]:
        out = {}
        for name, channel in (("engine", self.engine_channel), ("solver", self.solver_channel)):
            stub = health_pb2_grpc.HealthStub(channel)
            try:
                resp = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1.5)
                serving = resp.status == health_pb2.HealthCheckResponse.SERVING
                out[name] = "ok" if serving else f"down: {health_pb2.HealthCheckResponse.ServingStatus.Name(resp.status)}"
            except grpc.aio.AioRpcError as exc:  # the channel's health checking skips every NOT_SERVING replica
                unhealthy = "backend unhealthy" in (exc.details() or "")
                out[name] = "down: NOT_SERVING (no replica serving)" if unhealthy else f"down: {exc.code().name}"
        return out
