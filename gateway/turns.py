"""Playing the opponent program's turns: after a person's move, by the sweeper
when nobody plays a pending turn (a crashed gateway, a service that was down).

A turn is played under the :class:`~gateway.lease.TurnLease`; the answer is
saved with a compare-and-set on the version the turn was at, so an undo made
while the engine thinks simply makes the late answer fail and be thrown away
(logged ``opponent answer discarded``). A change that is not a move (hints,
think time) does not throw the answer away: it is saved over the newer
version when the moves and the program to move are the same.
"""

from __future__ import annotations

import asyncio
import logging
import time

from connect4 import IllegalMove, Position

from .document import Game, other_color
from .errors import GameError
from .lease import TurnLease
from .opponent import Opponent, spec_to_move
from .players import think_ms_of
from .store import Store
from .writes import CLAIM_TTL_MS, Writer
import contextlib

log = logging.getLogger(__name__)

RETRY_AFTER_S = 1.0


class Turns:
    def __init__(self, writer: Writer, lease: TurnLease, opponent: Opponent):
        self.writer = writer
        self.store: Store = writer.store
        self.settings = writer.settings
        self.lease = lease
        self.opponent = opponent
        self.running: dict[str, asyncio.Task[None]] = {}
        self._sweeper: asyncio.Task[None] | None = None

    # -- in the background -------------------------------------------------------------
    def spawn(self, game_id: str, claimed: int | None = None) -> None:
        """Play pending opponent turns of a game in the background (once per process)."""
        if game_id in self.running:
            return
        task = asyncio.create_task(self._background(game_id, claimed))
        self.running[game_id] = task
        task.add_done_callback(lambda _t: self.running.pop(game_id, None))

    async def _background(self, game_id: str, claimed: int | None = None) -> None:
        try:
            doc = await self.store.load(game_id)
        except GameError:
            await self.store.forget_pending(game_id)
            return
        if not doc.program_to_move:
            await self.store.forget_pending(game_id)
            return
        try:
            await self.run(doc, wait=False, claimed=claimed)
        except GameError:
            pass  # logged where it failed; the sweeper tries again
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("opponent turn crashed", extra={"game": game_id})
            await self.store.postpone(game_id, time.time() + RETRY_AFTER_S)

    def _max_turn_s(self, doc: Game) -> float:
        """The longest an opponent's turn can take: for ``perfect`` the solver's
        deadline, then the engine's fallback search (``Services.think_deadline_s``)."""
        budget = think_ms_of(spec_to_move(doc), doc.think_ms, self.opponent.services.players) or 1000
        return 3 * budget / 1000 + 2 * self.settings.rpc_timeout_s + CLAIM_TTL_MS / 1000 + 5

    # -- a turn ----------------------------------------------------------------------------
    async def run(self, doc: Game, wait: bool = True, you: str | None = None, claimed: int | None = None) -> Game:
        """Play the opponent program's turns until a person must move; returns the doc.

        ``wait=False``: give up at once when another gateway holds the turn.
        ``claimed``: the version whose turn this process already holds the claim on.
        """
        game_id = doc.id
        deadline = None
        while doc.program_to_move:
            v = doc.version
            mine = claimed == v
            busy = self.lease.busy(game_id, v, any_version=not wait)
            if busy or (not mine and not await self.lease.claim(game_id, v)):
                if not wait:
                    await self.store.postpone(game_id, time.time() + RETRY_AFTER_S)
                    return doc
                # Another gateway plays this turn: wait for its answer, and claim the
                # turn again if that gateway went away (its claim then expires).
                if deadline is None:
                    deadline = time.monotonic() + self._max_turn_s(doc)
                elif time.monotonic() > deadline:
                    raise GameError("timeout", "the opponent did not answer in time", self.writer.view(doc, you))
                doc = await self.store.wait_change(game_id, v, CLAIM_TTL_MS / 1000)
                continue
            if not self.lease.enter(game_id, v):  # another coroutine took the turn while we claimed it
                continue
            think = asyncio.create_task(self.opponent.think(doc))
            heartbeat = asyncio.create_task(self.lease.hold(doc, think))
            try:
                col, search, resign = await think
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if not think.cancelled() or (current is not None and current.cancelling()):
                    raise  # this coroutine itself is being cancelled (shutdown)
                # The heartbeat stopped the search: the game moved on without it.
                await self.lease.release(game_id, v)
                doc = await self.store.load(game_id)
                continue
            except GameError as exc:
                heartbeat.cancel()
                await self.lease.release(game_id, v)
                raise await self._failed(doc, v, exc, you) from None
            finally:
                heartbeat.cancel()
                self.lease.leave(game_id, v)
            new = doc.copy()
            mover = doc.color_to_move
            new.last_search = search
            new.message = search.get("message", "")
            pos = new.position()
            if resign:
                new.resigned = True
                new.result = {"winner": other_color(mover), "reason": "resigned"}
            else:
                try:
                    pos.play(col)
                except IllegalMove as exc:
                    await self.lease.release(game_id, v)
                    raise GameError("service_error", f"the opponent answered an illegal move: {exc}",
                                    self.writer.view(doc, you)) from None
                new.moves.append(col)
                new.settle(pos)
            doc, landed = await self._commit_answer(new, doc, pos)
            if landed:
                claimed = doc.version
            else:  # changed while thinking (undo, replay): the answer is stale; look again
                log.info("opponent answer discarded", extra={"game": game_id, "version": v})
        return doc

    async def _failed(self, doc: Game, v: int, exc: GameError, you: str | None) -> GameError:
        """A turn the services could not play: say so to watchers, and retry it later
        (or never, when the engine refuses the opponent)."""
        game_id = doc.id
        log.warning("opponent turn failed", extra={"game": game_id, "version": v, "code": exc.code,
                                                   "error": exc.message})
        if exc.code == "bad_request":
            # The engine refuses this opponent (a spec accepted while the engine was
            # down): retrying cannot help, so the sweeper stops trying.
            await self.store.forget_pending(game_id)
            message = exc.message + "; this opponent cannot play, start a new game"
        else:
            await self.store.postpone(game_id, time.time() + RETRY_AFTER_S)
            message = exc.message + "; the game is kept and the opponent moves when the service is back"
        await self.store.publish(game_id, {"type": "error", "error": {"code": exc.code, "message": message}})
        return GameError(exc.code, message, self.writer.view(doc, you))

    async def _commit_answer(self, new: Game, doc: Game, pos: Position) -> tuple[Game, bool]:
        """Save the opponent's answer ``new`` (built on ``doc``): (the saved doc, True),
        or (the game as it is now, False) when the answer no longer fits it.

        If only settings changed meanwhile (hints, think time: the same moves, the
        same program to move), the answer still stands: it is saved over the
        latest version instead of being thrown away."""
        game_id = doc.id
        while True:
            try:
                await self.writer.commit(new, doc.version, pos, claim=True)
                return new, True
            except GameError as exc:
                if exc.code != "conflict":
                    raise
                latest = await self.store.load(game_id)
                if (not latest.same_turn(doc) or latest.is_over
                        or not latest.program_to_move
                        or not await self.lease.claim(game_id, latest.version)):
                    return latest, False
                answer = latest.copy()
                answer.moves, answer.last_search, answer.message = list(new.moves), new.last_search, new.message
                answer.resigned, answer.result, answer.winning_cells = new.resigned, new.result, new.winning_cells
                new, doc = answer, latest

    # -- sweeper: turns nobody is playing (crashed gateway, service was down) ------------
    def start(self) -> None:
        self._sweeper = asyncio.create_task(self._sweep())

    async def stop(self) -> None:
        tasks = list(self.running.values()) + ([self._sweeper] if self._sweeper else [])
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t

    async def _sweep(self) -> None:
        rounds = 0
        while True:
            try:
                await asyncio.sleep(self.settings.sweep_interval_s)
                for game_id in await self.store.due(time.time() - 0.5):
                    self.spawn(game_id)
                rounds += 1
                if rounds % 600 == 1:
                    await self.store.prune_active()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis down for a moment: try again next round
                log.warning("sweep failed", extra={"error": repr(exc)})


