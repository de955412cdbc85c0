"""Asking the services for an opponent program's move.

:meth:`Opponent.think` answers (0-based column, the search as clients see it,
resigns): engine players through the engine service (``Think`` streams each
finished depth, published as a ``progress`` event; players that do not think
answer the unary ``Move``), ``perfect`` through the solver's ``BestMove``,
falling back to the engine's move when it cannot prove the position in time.
"""

from __future__ import annotations

import zlib
from typing import Any

from c4proto.connect4.v1 import engine_pb2
from connect4.scores import plies_to_end

from .document import Game
from .errors import GameError
from .services import Services
from .store import Store

OUTCOMES = {
    engine_pb2.OUTCOME_UNKNOWN: "unknown",
    engine_pb2.OUTCOME_WIN: "win",
    engine_pb2.OUTCOME_DRAW: "draw",
    engine_pb2.OUTCOME_LOSS: "loss",
}


def verdict(score: int | None, cells: int, ply: int) -> str | None:
    """Pons' score of a move for the side to move at ``ply`` -> "win in N" / "draw" / "loss in N"."""
    if score is None:
        return None
    if score == 0:
        return "draw"
    last_stone = (cells + 1) // 2 + 1 - abs(score)  # the winner's stone count when it wins
    if score > 0:
        return f"win in {max(1, last_stone - ply // 2)}"
    return f"loss in {max(1, last_stone - (ply + 1) // 2)}"


def spec_to_move(doc: Game) -> str:
    return doc.seats[doc.color_to_move].spec or "engine"


class Opponent:
    def __init__(self, services: Services, store: Store):
        self.services = services
        self.store = store

    async def think(self, doc: Game) -> tuple[int, dict[str, Any], bool]:
        """Ask the services for the opponent's move: (0-based column, last_search, resigns)."""
        spec = spec_to_move(doc)
        budget = doc.think_ms
        if spec == "perfect":
            deadline = budget or 1000
            try:
                r = await self.services.best_move(doc, deadline)
            except GameError as exc:
                if exc.code not in ("bad_request", "warming_up"):  # bad_request: the solver refuses its board
                    raise
                col, search, _resign = await self._engine(doc, "engine", deadline)
                search["source"] = "engine_fallback"
                search["message"] = (f"perfect cannot prove a {doc.width}x{doc.height} board ({exc.message}): "
                                     "the engine's move was played" if exc.code == "bad_request" else
                                     f"perfect: {exc.message}; the engine's move was played")
                return col, search, False
            if r.proven and r.column:
                outcome = "win" if r.score > 0 else "loss" if r.score < 0 else "draw"
                g, ply = doc.geometry, len(doc.moves)
                search = {
                    "col": r.column, "score": r.score, "depth": 0, "nodes": r.nodes,
                    "millis": int(r.elapsed_ms), "book": r.source == "book", "proven": True,
                    "outcome": outcome, "plies_to_end": plies_to_end(r.score, ply, g),
                    "player": "perfect", "source": "solver",
                    "message": {"win": "Perfect sees a forced win!", "loss": "Perfect is lost against best play.",
                                "draw": "Perfect sees a draw with best play."}[outcome]}
                search["verdict"] = verdict(r.score, g.cells, ply)
                return r.column - 1, search, False
            col, search, _resign = await self._engine(doc, "engine", deadline)
            search["source"] = "engine_fallback"
            search["message"] = "perfect could not prove this position in time: the engine's move was played"
            return col, search, False
        return await self._engine(doc, spec, budget)

    async def _engine(self, doc: Game, spec: str, budget: int) -> tuple[int, dict[str, Any], bool]:
        seed = (zlib.crc32(doc.id.encode()) << 8) + len(doc.moves)
        game_id, version = doc.id, doc.version
        if await self.services.takes_budget(spec):
            result = None
            async for update in self.services.think(doc, spec, budget, seed):
                if isinstance(update, engine_pb2.DepthReport):
                    await self.store.publish(game_id, {
                        "type": "progress", "game": game_id, "version": version, "depth": update.depth,
                        "nodes": update.nodes, "score": update.score, "best_column": update.best_column,
                        "elapsed_ms": round(update.elapsed_ms, 1), "proven": update.proven})
                else:
                    result = update
            if result is None:
                raise GameError("service_error", "the engine ended its stream without a result")
        else:
            result = await self.services.move(doc, spec, budget, seed)
        outcome = OUTCOMES.get(result.outcome, "unknown")
        message = result.message
        if result.resign:
            message = message or f"{spec} resigns: it has proved its loss"
        elif result.proven and outcome == "win":
            message = "Engine sees a forced win!" + (f" ({message})" if message else "")
        search = {"col": result.column, "score": result.score, "depth": result.depth, "nodes": result.nodes,
                  "millis": int(result.elapsed_ms), "book": result.book, "proven": result.proven,
                  "outcome": outcome, "plies_to_end": result.plies_to_end, "player": result.player or spec,
                  "source": "engine", "message": message}
        if not result.resign and not 1 <= result.column <= doc.width:
            raise GameError("service_error", f"the engine answered column {result.column}")
        return result.column - 1, search, result.resign
