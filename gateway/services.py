"""gRPC clients of the engine and solver services.

Deadlines on every call, the gRPC retry policy on UNAVAILABLE, a short
reconnect back-off (so a restarted service is found again within a second),
and the request id as metadata ``x-request-id``. Errors become
:class:`~gateway.errors.GameError`: UNAVAILABLE -> 503 ``service_unavailable``,
DEADLINE_EXCEEDED -> 504 ``timeout``.
"""

from __future__ import annotations

import json
import logging
from typing import AsyncIterator

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from c4proto.connect4.v1 import common_pb2, engine_pb2, engine_pb2_grpc, solver_pb2, solver_pb2_grpc
from servicekit.logs import REQUEST_ID, REQUEST_ID_HEADER

from .errors import GameError, ServiceUnavailable

log = logging.getLogger(__name__)


def _channel(addr: str, service: str, attempts: int) -> grpc.aio.Channel:
    config = {
        # spread calls over every address the target resolves to
        # (dns:///engine:50051 gives one per replica under docker compose --scale)
        "loadBalancingConfig": [{"round_robin": {}}],
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


def _metadata():
    rid = REQUEST_ID.get()
    return ((REQUEST_ID_HEADER, rid),) if rid else None


def position_pb(doc: dict) -> common_pb2.Position:
    return common_pb2.Position(width=doc["width"], height=doc["height"], k=doc["k"],
                               moves=[c + 1 for c in doc["moves"]])


# The engine service's budget for a bare "engine" spec (engine_svc.players.DEFAULT_ENGINE_MS).
BARE_ENGINE_MS = 2000


def think_ms_of(player: str, budget_ms: int) -> int:
    """The milliseconds a player will think: the game's think time, else the N of
    ``engine:N`` (0 for players whose N is not a time: minimax depth, mcts playouts)."""
    if budget_ms:
        return budget_ms
    family, sep, arg = player.strip().lower().partition(":")
    if family != "engine":
        return 0
    return int(arg) if sep and arg.isascii() and arg.isdigit() else BARE_ENGINE_MS


def _translate(service: str, exc: grpc.aio.AioRpcError) -> GameError:
    code = exc.code()
    if code == grpc.StatusCode.UNAVAILABLE:
        return ServiceUnavailable(service, exc.details() or "")
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return GameError("timeout", f"the {service} service did not answer in time")
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        return GameError("bad_request", f"{service}: {exc.details()}")
    return GameError("service_error", f"{service} service error {code.name}: {exc.details()}")


class Services:
    """Both clients; one channel each, shared by every request of the process."""

    def __init__(self, engine_addr: str, solver_addr: str, timeout_s: float = 10.0, attempts: int = 4):
        self.timeout_s = timeout_s
        self.engine_channel = _channel(engine_addr, "connect4.v1.EngineService", attempts)
        self.solver_channel = _channel(solver_addr, "connect4.v1.SolverService", attempts)
        self.engine = engine_pb2_grpc.EngineServiceStub(self.engine_channel)
        self.solver = solver_pb2_grpc.SolverServiceStub(self.solver_channel)
        self._players: list[dict] | None = None

    async def close(self) -> None:
        await self.engine_channel.close()
        await self.solver_channel.close()

    # -- engine ----------------------------------------------------------------
    async def list_players(self) -> list[dict]:
        try:
            resp = await self.engine.ListPlayers(engine_pb2.ListPlayersRequest(), timeout=self.timeout_s,
                                                 metadata=_metadata())
        except grpc.aio.AioRpcError as exc:
            raise _translate("engine", exc) from None
        self._players = [
            {"spec": p.spec, "family": p.family, "description": p.description, "takes_budget": p.takes_budget,
             "param_min": p.param_min, "param_max": p.param_max}
            for p in resp.players
        ]
        return self._players

    async def takes_budget(self, spec: str) -> bool:
        """Does this player think (stream progress) or answer at once? Cached."""
        if self._players is None:
            try:
                await self.list_players()
            except GameError:
                return True
        family = spec.split(":", 1)[0]
        for p in self._players or ():
            if p["spec"] == spec:
                return p["takes_budget"]
        for p in self._players or ():
            if p["family"] == family:
                return p["takes_budget"]
        return True

    def think_deadline_s(self, player: str, budget_ms: int) -> float:
        """The gRPC deadline of a move: the engine gives a search at most half the
        time left (an iteration may run to twice its budget), so twice the think
        time plus the quick-call timeout, or ``engine:20000`` would think 5 s."""
        return 2 * think_ms_of(player, budget_ms) / 1000 + self.timeout_s

    async def move(self, doc: dict, player: str, budget_ms: int, seed: int = 0) -> engine_pb2.SearchResult:
        req = engine_pb2.MoveRequest(position=position_pb(doc), player=player, budget_ms=budget_ms, seed=seed)
        try:
            return await self.engine.Move(req, timeout=self.think_deadline_s(player, budget_ms), metadata=_metadata())
        except grpc.aio.AioRpcError as exc:
            raise _translate("engine", exc) from None

    async def think(self, doc: dict, player: str, budget_ms: int, seed: int = 0) -> AsyncIterator:
        """Yields ``engine_pb2.DepthReport`` progress, then the ``SearchResult``."""
        req = engine_pb2.MoveRequest(position=position_pb(doc), player=player, budget_ms=budget_ms, seed=seed)
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
    async def best_move(self, doc: dict, deadline_ms: int) -> solver_pb2.BestMoveResponse:
        req = solver_pb2.BestMoveRequest(position=position_pb(doc), deadline_ms=deadline_ms)
        try:
            return await self.solver.BestMove(req, timeout=deadline_ms / 1000 + self.timeout_s, metadata=_metadata())
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                return solver_pb2.BestMoveResponse(proven=False)
            raise _translate("solver", exc) from None

    async def analyze(self, doc: dict, deadline_ms: int) -> solver_pb2.AnalyzeResponse:
        req = solver_pb2.AnalyzeRequest(position=position_pb(doc), deadline_ms=deadline_ms)
        try:
            return await self.solver.Analyze(req, timeout=deadline_ms / 1000 + self.timeout_s, metadata=_metadata())
        except grpc.aio.AioRpcError as exc:
            raise _translate("solver", exc) from None

    # -- health ----------------------------------------------------------------
    async def health(self) -> dict[str, str]:
        out = {}
        for name, channel in (("engine", self.engine_channel), ("solver", self.solver_channel)):
            stub = health_pb2_grpc.HealthStub(channel)
            try:
                resp = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1.5)
                serving = resp.status == health_pb2.HealthCheckResponse.SERVING
                out[name] = "ok" if serving else f"down: {health_pb2.HealthCheckResponse.ServingStatus.Name(resp.status)}"
            except grpc.aio.AioRpcError as exc:
                out[name] = f"down: {exc.code().name}"
        return out
