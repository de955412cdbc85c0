"""What can be done to a game: create, join, move, undo, hints, think time,
replay, analysis, learn.

Every change loads the game, checks it, and saves it through
:meth:`Writer.commit` (a compare-and-set on the version it loaded). The
opponent program's turns that follow a change are played by
:class:`~gateway.turns.Turns` under the turn lease (:mod:`gateway.lease`).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from connect4 import Geometry, IllegalMove, InvalidGeometry, InvalidPosition, Position, parse_column, parse_moves

from . import model
from .document import COLORS, Game, Seat, other_color
from .errors import GameError
from .guarding import guarded_column
from .learning import Learner
from .lease import TurnLease
from .limits import RateLimit
from .metrics import LEARN_REQUESTS
from .opponent import Opponent, verdict
from .players import GATEWAY_SPECS, HUMAN, PERFECT, check_spec
from .services import Services
from .shared_reads import SharedReads
from .settings import GatewaySettings
from .store import Store
from .turns import Turns
from .writes import Writer

log = logging.getLogger(__name__)

# A change that names no version (join, hints, think time) is made again on the newer
# game while it loses races, for up to this long before it answers `conflict`. Every lost
# race means another save landed, so only a game changed without pause for this long
# refuses; a jittered pause between attempts keeps a crowd of retries from colliding.
CONFLICT_RETRY_S = 5.0
CONFLICT_PAUSE_S = 0.02

T = TypeVar("T")


def _illegal(exc: Exception, state: dict[str, Any] | None = None) -> GameError:
    text = str(exc)
    if "full" in text:
        return GameError("full_column", text, state)
    if "over" in text:
        return GameError("game_over", text, state)
    if isinstance(exc, IllegalMove):
        return GameError("illegal_column", text, state)
    return GameError("illegal_column" if "column" in text else "bad_request", text, state)


class Games:
    def __init__(self, store: Store, services: Services, settings: GatewaySettings):
        self.store = store
        self.services = services
        self.settings = settings
        self.owner = model.new_id()  # this process, for claims
        self.writer = Writer(store, settings, self.owner)
        self.turns = Turns(self.writer, TurnLease(store, self.owner), Opponent(services, store))
        self.learner = Learner(settings.redis_url, settings.learn_queue, settings.learn_timeout_s)
        self.shared_reads = SharedReads(self.get)  # watchers' first states
        self.public_analyses = 0  # analyses running now for callers who are not players
        # per client address, on every interface and shared by every gateway process (in Redis)
        self.creates = RateLimit(store, "creates", settings.creates_per_minute, "games created",
                                 settings.retry_after_s)
        self.analyses = RateLimit(store, "analyses", settings.analyses_per_minute, "analyses",
                                  settings.retry_after_s)

    # -- helpers ------------------------------------------------------------------
    def view(self, doc: Game, you: str | None = None, pos: Position | None = None) -> dict[str, Any]:
        return self.writer.view(doc, you, pos)

    async def commit(self, doc: Game, expected: int, pos: Position | None = None, claim: bool = False,
                     carry: bool = False, seat: str | None = None) -> dict[str, Any]:
        return await self.writer.commit(doc, expected, pos, claim, carry, seat)

    def authorize(self, doc: Game, token: str | None) -> str:
        if not token:
            raise GameError("bad_token", "this needs your player token (header X-Player-Token)", self.view(doc))
        seat = model.seat_of(doc, token)
        if seat is None:
            raise GameError("bad_token", "this token does not hold a seat in this game", self.view(doc))
        return seat

    # -- the opponent's turns (bridge and MCP call these) --------------------------------
    async def run_opponent(self, doc: Game, wait: bool = True, you: str | None = None,
                           claimed: int | None = None) -> Game:
        return await self.turns.run(doc, wait, you, claimed)

    def spawn(self, game_id: str, claimed: int | None = None) -> None:
        self.turns.spawn(game_id, claimed)

    def start(self) -> None:
        self.turns.start()

    async def stop(self) -> None:
        await self.turns.stop()

    # -- opponents ----------------------------------------------------------------
    async def opponents(self) -> list[dict[str, Any]]:
        players = list(await self.services.list_players()) + [PERFECT, HUMAN]
        return [p.to_dict() for p in players]

    async def _check_spec(self, spec: str) -> None:
        if spec in GATEWAY_SPECS:
            return
        players = await self.services.known_players()
        if players is None:
            if len(spec) > 64:
                check_spec(spec, [])
            return  # engine down: accept it, it is checked when the engine plays
        check_spec(spec, players)

    # -- create / join ---------------------------------------------------------------
    async def create(self, *, width: int = 7, height: int = 6, k: int = 4, opponent: str | None = None,
                     you: str | None = None, engine_starts: bool | None = None, think_ms: int = 0,
                     hints: bool = False, allow_analysis: bool = True, player: str = "human",
                     wait: bool = True, client: str, guarded: bool = False) -> dict[str, Any]:
        """Make a game for ``client`` (its address: every interface names it, and each
        create counts against its rate, also one that is then refused as bad)."""
        await self.creates.take(client)
        try:
            g = Geometry(width, height, k)  # up to 16 x 16: boards past 64 bits run on the wide kernels
        except InvalidGeometry as exc:
            raise GameError("bad_request", str(exc)) from None
        opponent = (opponent or self.settings.default_opponent).strip()
        await self._check_spec(opponent)
        if you is None:
            you = "yellow" if engine_starts else "red"
        if you not in COLORS:
            raise GameError("bad_request", f"you must be 'red' or 'yellow', not {you!r}")
        if player not in ("human", "llm"):
            raise GameError("bad_request", f"player must be 'human' or 'llm', not {player!r}")
        if think_ms and not 50 <= think_ms <= 60000:
            raise GameError("bad_request", f"think_ms {think_ms} must be 50..60000 (or 0 for the opponent's own time)")
        token = model.new_token()
        invite = None
        mine = Seat(kind=player, token_hash=model.token_hash(token), hints=bool(hints),
                    allow_analysis=bool(allow_analysis), guarded=bool(guarded))
        if opponent == "human":
            invite = model.new_token()
            other = Seat(kind="human", joined=False, invite_hash=model.token_hash(invite))
        else:
            other = Seat(kind="opponent", spec=opponent)
        seats = {you: mine, other_color(you): other}
        doc = Game(id=model.new_id(), width=g.width, height=g.height, k=g.k,
                   seats={c: seats[c] for c in COLORS}, think_ms=int(think_ms),
                   allow_analysis=bool(allow_analysis))
        doc.created = doc.updated = time.time()
        state = await self.commit(doc, 0)
        out: dict[str, Any] = {
            "state": state, "token": token, "seat": you, "invite": invite,
            "invite_url": model.invite_url(self.settings.public_url, doc.id, invite) if invite else None,
            "watch_url": state["watch_url"]}
        if doc.program_to_move:
            if wait:
                try:
                    doc = await self.run_opponent(doc)
                    out["state"] = self.view(doc, you)
                except GameError as exc:  # keep the game and the token; the sweeper plays later
                    out["state"]["message"] = exc.message
            else:
                self.spawn(doc.id)
        out["state"]["you"] = you
        return out

    async def _again_on_conflict(self, action: Callable[[], Awaitable[T]]) -> T:
        """Run an action whose request names no version (join, hints, think time): when
        its save loses the race to another change (a move, the engine's answer), it is
        done again on the newer game instead of answering ``conflict``."""
        deadline = time.monotonic() + CONFLICT_RETRY_S
        attempt = 0
        while True:
            try:
                return await action()
            except GameError as exc:
                if exc.code != "conflict" or time.monotonic() > deadline:
                    raise
            attempt += 1
            await asyncio.sleep(random.uniform(0, min(CONFLICT_PAUSE_S, 0.001 * 2 ** attempt)))

    async def join(self, game_id: str, invite: str | None, allow_analysis: bool = False) -> dict[str, Any]:
        """Take the invited seat. ``allow_analysis``: let anyone analyse the game while
        it is played (between two people it takes both players' yes)."""
        return await self._again_on_conflict(lambda: self._join(game_id, invite, allow_analysis))

    async def _join(self, game_id: str, invite: str | None, allow_analysis: bool = False) -> dict[str, Any]:
        doc = await self.store.load(game_id)
        for color in COLORS:
            seat = doc.seats[color]
            if not seat.joined and model.same_token(invite, seat.invite_hash):
                expected = doc.version
                token = model.new_token()
                seat.joined, seat.token_hash, seat.invite_hash = True, model.token_hash(token), None
                seat.allow_analysis = bool(allow_analysis)
                state = await self.commit(doc, expected, seat=color)
                state["you"] = color
                return {"state": state, "token": token, "seat": color}
        if any(model.same_token(invite, doc.seats[c].invite_hash) or (invite and not doc.seats[c].joined)
               for c in COLORS):
            raise GameError("bad_token", "this invite is not valid for this game", self.view(doc))
        raise GameError("invite_used", "there is no open seat in this game (the invite was used)", self.view(doc))

    async def get(self, game_id: str, token: str | None = None) -> dict[str, Any]:
        doc = await self.store.load(game_id)
        you = model.seat_of(doc, token) if token else None
        return self.view(doc, you)

    # -- moves -----------------------------------------------------------------------
    async def move(self, game_id: str, token: str | None, column: int | str, version: int | None = None,
                   wait: bool = True) -> dict[str, Any]:
        doc, seat, state = await self.move_doc(game_id, token, column, version, wait)
        if state is None:
            return self.view(doc, seat)
        state["you"] = seat
        return state

    async def move_doc(self, game_id: str, token: str | None, column: int | str, version: int | None = None,
                       wait: bool = True) -> tuple[Game, str, dict[str, Any] | None]:
        """Play a move: (the game's doc, the mover's seat, the public state when already built)."""
        doc = await self.store.load(game_id)
        seat = self.authorize(doc, token)
        if version is not None and version != doc.version:
            raise GameError("conflict", f"the game is at version {doc.version}, not {version}; reload and retry",
                            self.view(doc, seat))
        if doc.is_over:
            raise GameError("game_over", "the game is over", self.view(doc, seat))
        if doc.color_to_move != seat:
            who = doc.seats[doc.color_to_move]
            why = "the opponent is thinking" if who.is_program else "it is the other player's turn"
            raise GameError("not_your_turn", f"not your turn: {why}", self.view(doc, seat))
        pos = doc.position()
        try:
            col = parse_column(column, pos.geometry)
            pos.check_move(col)
        except (IllegalMove, InvalidPosition) as exc:
            raise _illegal(exc, self.view(doc, seat, pos)) from None
        col = guarded_column(doc, seat, pos, col)  # a guarded seat's move may be replaced by the gate's choice
        pos.play(col)
        expected = doc.version
        doc.moves.append(col)
        doc.message = ""
        doc.settle(pos)
        state = await self.commit(doc, expected, pos, claim=True, seat=seat)
        if doc.program_to_move:
            if wait:
                return await self.run_opponent(doc, you=seat, claimed=doc.version), seat, None
            self.spawn(game_id, claimed=doc.version)
        return doc, seat, state

    async def undo(self, game_id: str, token: str | None) -> dict[str, Any]:
        doc = await self.store.load(game_id)
        seat = self.authorize(doc, token)
        moves = doc.moves
        mine = [i for i in range(len(moves)) if COLORS[i & 1] == seat]
        if not mine:
            raise GameError("nothing_to_undo", "you have no move to take back", self.view(doc, seat))
        if doc.against_person(seat):
            # A person's moves are theirs: only your last move, before they replied.
            if mine[-1] != len(moves) - 1:
                raise GameError("not_allowed", "you can take back only your last move, before the other "
                                "player has replied", self.view(doc, seat))
            if doc.is_over:
                raise GameError("game_over", "the game is over: a finished game between people cannot be "
                                "taken back", self.view(doc, seat))
        expected = doc.version
        del moves[mine[-1]:]  # back to your previous turn
        doc.resigned, doc.result, doc.last_search, doc.message = False, None, None, ""
        doc.override = None
        pos = doc.position()
        doc.settle(pos)
        state = await self.commit(doc, expected, pos, seat=seat)
        state["you"] = seat
        return state

    async def set_hints(self, game_id: str, token: str | None, on: bool) -> dict[str, Any]:
        return await self._again_on_conflict(lambda: self._set_hints(game_id, token, on))

    async def _set_hints(self, game_id: str, token: str | None, on: bool) -> dict[str, Any]:
        doc = await self.store.load(game_id)
        seat = self.authorize(doc, token)
        expected = doc.version
        doc.seats[seat].hints = bool(on)  # each player's own: the other player and watchers see none
        await self.commit(doc, expected, carry=True, seat=seat)
        return self.view(doc, seat)

    async def set_guarded(self, game_id: str, token: str | None, on: bool) -> dict[str, Any]:
        """The gate on or off for your own moves (gateway.guarding)."""
        return await self._again_on_conflict(lambda: self._set_guarded(game_id, token, on))

    async def _set_guarded(self, game_id: str, token: str | None, on: bool) -> dict[str, Any]:
        doc = await self.store.load(game_id)
        seat = self.authorize(doc, token)
        expected = doc.version
        doc.seats[seat].guarded = bool(on)  # each person's own: the other seat is not guarded by it
        await self.commit(doc, expected, carry=True, seat=seat)
        return self.view(doc, seat)

    async def set_think(self, game_id: str, token: str | None, think_ms: object,
                        allow_analysis: bool | None = None) -> dict[str, Any]:
        """The think time of the game (``None``: unchanged) and your yes or no to analysis."""
        return await self._again_on_conflict(lambda: self._set_think(game_id, token, think_ms, allow_analysis))

    async def _set_think(self, game_id: str, token: str | None, think_ms: object,
                         allow_analysis: bool | None = None) -> dict[str, Any]:
        doc = await self.store.load(game_id)
        seat = self.authorize(doc, token)
        if think_ms is not None and (isinstance(think_ms, bool) or not isinstance(think_ms, int)
                                     or not 50 <= think_ms <= 60000):
            raise GameError("bad_request", f"think_ms {think_ms!r} must be 50..60000", self.view(doc, seat))
        expected = doc.version
        if isinstance(think_ms, int):
            doc.think_ms = think_ms
        if allow_analysis is not None:
            doc.seats[seat].allow_analysis = allow_analysis
            if not doc.between_people:
                doc.allow_analysis = allow_analysis
        state = await self.commit(doc, expected, carry=True, seat=seat)
        state["you"] = seat
        return state

    async def link_next(self, game_id: str, token: str, next_id: str) -> None:
        """Point a game at the one its player started after it (the bridge's and
        MCP's ``new``), so whoever watches it can follow the player on."""
        async def link() -> None:
            doc = await self.store.load(game_id)
            seat = self.authorize(doc, token)
            if doc.next_game == next_id:
                return
            expected = doc.version
            doc.next_game = next_id
            await self.commit(doc, expected, carry=True, seat=seat)
        try:
            await self._again_on_conflict(link)
        except GameError as exc:  # the old game expired or went: nothing to point from
            log.info("next game not linked", extra={"game": game_id, "next": next_id, "code": exc.code})

    async def replay(self, game_id: str, token: str | None, moves: list[int | str] | str,
                     engine_starts: bool | None = None, wait: bool = True) -> dict[str, Any]:
        doc = await self.store.load(game_id)
        seat = self.authorize(doc, token)
        if doc.against_person(seat):
            raise GameError("not_allowed", "replay replaces both players' moves: not in a game against "
                            "another person", self.view(doc, seat))
        g = doc.geometry
        try:
            cols = parse_moves(moves, g)
            pos = Position.from_moves(cols, g)
        except (IllegalMove, InvalidPosition) as exc:
            raise _illegal(exc, self.view(doc, seat)) from None
        expected = doc.version
        if engine_starts is not None:
            want = "yellow" if engine_starts else "red"
            if want != seat:
                doc.seats = {"red": doc.seats["yellow"], "yellow": doc.seats["red"]}
                seat = want
        doc.moves = cols
        doc.resigned, doc.result, doc.last_search, doc.message = False, None, None, ""
        doc.override = None
        doc.settle(pos)
        state = await self.commit(doc, expected, pos, seat=seat)
        if doc.program_to_move:
            if wait:
                doc = await self.run_opponent(doc, you=seat)
                return self.view(doc, seat)
            self.spawn(game_id)
        state["you"] = seat
        return state

    async def analysis(self, game_id: str, deadline_ms: int = 10000, ply: int | None = None,
                       token: str | None = None, *, client: str) -> dict[str, Any]:
        """Each column's exact score. Every analysis counts against ``client``'s rate.
        Callers who are not players of the game (no token of a seat) get at most
        ``public_analysis_max_deadline_ms`` and share ``public_analysis_concurrency``
        solver calls (more: 429 ``busy``)."""
        await self.analyses.take(client)
        doc = await self.store.load(game_id)
        if not doc.analysis_open:
            why = ("in a game between two people, analysis is open while it is played only when both players "
                   "allow it (settings allow_analysis), and always once it is over" if doc.between_people
                   else "analysis is not allowed in this game")
            raise GameError("analysis_disabled", why, self.view(doc))
        if model.seat_of(doc, token) is not None:
            return await self._analysis(doc, deadline_ms, ply)
        deadline_ms = min(deadline_ms, self.settings.public_analysis_max_deadline_ms)
        if self.public_analyses >= self.settings.public_analysis_concurrency:
            raise GameError("busy", f"{self.public_analyses} analyses for watchers are running; try again in a "
                            "moment (players of the game, with their token, are not limited)", self.view(doc),
                            retry_after_s=self.settings.retry_after_s)
        self.public_analyses += 1
        try:
            return await self._analysis(doc, deadline_ms, ply)
        finally:
            self.public_analyses -= 1

    async def _analysis(self, doc: Game, deadline_ms: int, ply: int | None) -> dict[str, Any]:
        if ply is not None and not 0 <= ply <= len(doc.moves):
            raise GameError("bad_request", f"ply {ply} is not in 0..{len(doc.moves)}", self.view(doc))
        moves = doc.moves[:ply] if ply is not None else doc.moves
        pos = doc.position(moves)
        ply = len(moves)
        over = pos.is_over
        out: dict[str, Any] = {"version": doc.version, "ply": ply, "to_move": None if over else COLORS[ply & 1],
                               "columns": [], "best": [], "unproved": [], "nodes": 0, "source": "",
                               "elapsed_ms": 0.0, "deadline_ms": deadline_ms}
        if over:
            out["columns"] = [{"column": c + 1, "score": None, "verdict": None, "unproved": False}
                              for c in range(doc.width)]
            return out
        try:
            resp = await self.services.analyze(doc, deadline_ms, moves)
        except GameError as exc:
            if exc.code == "timeout":
                exc.message = f"the solver could not prove every column within {deadline_ms} ms"
            elif exc.code == "bad_request":  # a legal game's position: the solver refuses its board
                raise GameError("analysis_unavailable", f"analysis is unavailable on this {doc.width}x{doc.height} "
                                f"board ({exc.message})", self.view(doc)) from None
            exc.state = self.view(doc)
            raise
        cells = doc.width * doc.height
        by_col = {c.column: (c.score if c.HasField("score") else None) for c in resp.columns}
        unproved = sorted(c.column for c in resp.columns if c.unproved)
        for c in range(1, doc.width + 1):
            s = by_col.get(c)
            out["columns"].append({"column": c, "score": s, "verdict": verdict(s, cells, ply),
                                   "unproved": c in unproved})
        out["unproved"] = unproved  # boards past 64 bits: open columns not proved within the deadline
        scores = [c["score"] for c in out["columns"] if c["score"] is not None]
        if scores and not unproved:  # an unproved column may be better than every proved one
            out["best"] = [c["column"] for c in out["columns"] if c["score"] == max(scores)]
        out.update(nodes=resp.nodes, source=resp.source, elapsed_ms=resp.elapsed_ms)
        return out

    async def learn(self, game_id: str, token: str | None) -> dict[str, Any]:
        """Send a finished game to the bookgen workers' ``bookgen.learn`` task.

        Players only (the token): it makes a worker search and may write the
        corrective book. The game is read, never changed. Returns
        ``{"report": ..., "state": ...}``."""
        doc = await self.store.load(game_id)
        seat = self.authorize(doc, token)
        if not doc.is_over:
            LEARN_REQUESTS.labels("game_not_over").inc()
            raise GameError("game_not_over", "learning needs a finished game: play it to the end first",
                            self.view(doc, seat))
        programs = [c for c in COLORS if doc.seats[c].is_program]
        # The engine is the program's seat; between people (or two programs) the
        # task picks the loser of a lost game, else the second player.
        engine = {"red": "first", "yellow": "second"}[programs[0]] if len(programs) == 1 else "auto"
        size = f"{doc.width}x{doc.height}" + ("" if doc.k == 4 else f"k{doc.k}")
        moves: str | list[int] = ("".join(str(c + 1) for c in doc.moves) if doc.width <= 9
                                  else [c + 1 for c in doc.moves])
        try:
            report = await self.learner.learn(moves, size, engine)
        except GameError as exc:
            LEARN_REQUESTS.labels(exc.code).inc()
            exc.state = self.view(await self.store.load(game_id), seat)
            raise
        LEARN_REQUESTS.labels("ok").inc()
        log.info("learned", extra={"game": game_id, "engine": engine, "threw": len(report.get("threw") or ()),
                                   "verdict": report.get("verdict")})
        return {"report": report, "state": self.view(doc, seat)}
