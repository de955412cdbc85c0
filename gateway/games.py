"""What can be done to a game: create, join, move, undo, hints, replay,
analysis, and playing the opponent program's turns.

Every change loads the game, checks it, and saves it with a compare-and-set on
the version it loaded (:meth:`Store.save`), so concurrent requests from any
number of gateways give one winner and clear ``conflict`` errors.

An opponent's turn at version v is played by whoever first claims
``(game, v)`` in Redis: normally the request that made the human move, else
the sweeper of any gateway (after a crash or while a service was down). Its
answer is saved with a compare-and-set on v, so an undo made while the engine
thinks simply makes the late answer fail and be thrown away.
"""

from __future__ import annotations

import asyncio
import logging
import time
import zlib

from connect4 import Geometry, IllegalMove, InvalidGeometry, InvalidPosition, Position, parse_column, parse_moves
from connect4.scores import plies_to_end
from c4proto.connect4.v1 import engine_pb2

from . import model
from .errors import GameError
from .learning import Learner
from .metrics import LEARN_REQUESTS
from .model import COLORS, color_to_move, is_over, program_to_move, public_state
from .services import Services, think_ms_of
from .settings import GatewaySettings
from .store import Store

log = logging.getLogger(__name__)

OUTCOMES = {
    engine_pb2.OUTCOME_UNKNOWN: "unknown",
    engine_pb2.OUTCOME_WIN: "win",
    engine_pb2.OUTCOME_DRAW: "draw",
    engine_pb2.OUTCOME_LOSS: "loss",
}
RETRY_AFTER_S = 1.0
# A claim on an opponent's turn lives this long unless its owner renews it
# (every third of it) while the services think: a crashed gateway's turn is
# taken over by another gateway's sweeper within about this time.
CLAIM_TTL_MS = 3000  # when a service is down, the sweeper tries the turn again after this
# Attempts of a change that names no version (join, hints, think time) before `conflict`:
# each round of a race lets at least one save land, so 20 clients at once all get through.
CONFLICT_RETRIES = 25


def _illegal(exc: Exception, state: dict | None = None) -> GameError:
    text = str(exc)
    if "full" in text:
        return GameError("full_column", text, state)
    if "over" in text:
        return GameError("game_over", text, state)
    if isinstance(exc, IllegalMove):
        return GameError("illegal_column", text, state)
    return GameError("illegal_column" if "column" in text else "bad_request", text, state)


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


class Games:
    def __init__(self, store: Store, services: Services, settings: GatewaySettings):
        self.store = store
        self.services = services
        self.settings = settings
        self.owner = model.new_id()  # this process, for claims
        self.running: dict[str, asyncio.Task] = {}
        # game id -> the version whose turn a coroutine of this process is playing. The
        # claim in Redis is per process, so this keeps two local coroutines (a waiting
        # move and the sweeper's task, or a stale task after an undo) off the same turn.
        self.playing: dict[str, int] = {}
        self._sweeper: asyncio.Task | None = None
        self.learner = Learner(settings.redis_url, settings.learn_queue, settings.learn_timeout_s)

    # -- helpers ------------------------------------------------------------------
    def view(self, doc: dict, you: str | None = None, pos: Position | None = None) -> dict:
        return public_state(doc, self.settings.public_url, you, pos)

    async def commit(self, doc: dict, expected: int, pos: Position | None = None, claim: bool = False,
                     carry: bool = False, seat: str | None = None) -> dict:
        """Save ``doc`` over version ``expected``, publish it; returns the public state.

        ``claim``: when an opponent program is to move next, this process claims
        that turn in the same atomic step (it is about to play it). ``carry``: a
        change that is not a move; whoever is playing the turn keeps playing it.
        A conflict of a player's request (``seat``) carries the game's latest state
        as that player sees it."""
        doc["version"] = expected + 1
        doc["updated"] = time.time()
        state = self.view(doc, None, pos)
        try:
            await self.store.save(doc, expected, {"type": "state", "state": state},
                                  pending=program_to_move(doc), active=not is_over(doc),
                                  claim_owner=self.owner if claim else "", claim_ttl_ms=CLAIM_TTL_MS,
                                  carry_claim=carry)
        except GameError as exc:
            if exc.code == "conflict" and exc.state is None and seat is not None:  # a player's request
                try:
                    exc.state = self.view(await self.store.load(doc["id"]), seat)
                except GameError:
                    pass
            raise
        return state

    def authorize(self, doc: dict, token: str | None) -> str:
        if not token:
            raise GameError("bad_token", "this needs your player token (header X-Player-Token)", self.view(doc))
        seat = model.seat_of(doc, token)
        if seat is None:
            raise GameError("bad_token", "this token does not hold a seat in this game", self.view(doc))
        return seat

    # -- opponents ----------------------------------------------------------------
    async def opponents(self) -> list[dict]:
        players = list(await self.services.list_players())
        players.append({"spec": "perfect", "family": "perfect", "takes_budget": True, "param_min": 0, "param_max": 0,
                        "description": "the exact solver: never loses a won or drawn position "
                                       "(falls back to the engine when it cannot prove in time)"})
        players.append({"spec": "human", "family": "human", "takes_budget": False, "param_min": 0, "param_max": 0,
                        "description": "another person (or agent) through an invite link"})
        return players

    async def _check_spec(self, spec: str) -> None:
        if spec in ("perfect", "human"):
            return
        if len(spec) > 64:  # no spec is this long; do not echo a megabyte back
            raise GameError("bad_request", f"unknown opponent {spec[:32]!r}... ({len(spec)} characters)")
        try:
            players = await self.services.list_players() if self.services._players is None else self.services._players
        except GameError:
            return  # engine down: accept it, it is checked when the engine plays
        if any(p["spec"] == spec for p in players):
            return
        family, sep, arg = spec.partition(":")
        kin = [p for p in players if p["family"] == family]
        if not kin:
            known = ", ".join(p["spec"] for p in players)
            raise GameError("bad_request", f"unknown opponent {spec!r}; known: {known}, perfect, human")
        lo, hi = kin[0].get("param_min", 0), kin[0].get("param_max", 0)
        if not hi:
            raise GameError("bad_request", f"opponent {spec!r}: {family} takes no ':' part")
        if not sep or not (arg.isascii() and arg.isdigit()) or not lo <= int(arg) <= hi:
            raise GameError("bad_request", f"opponent {spec!r}: {family}:N needs a whole number N in {lo}..{hi}")

    # -- create / join ---------------------------------------------------------------
    async def create(self, *, width: int = 7, height: int = 6, k: int = 4, opponent: str | None = None,
                     you: str | None = None, engine_starts: bool | None = None, think_ms: int = 0,
                     hints: bool = False, allow_analysis: bool = True, player: str = "human",
                     wait: bool = True) -> dict:
        try:
            g = Geometry(width, height, k)
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
        mine = {"kind": player, "spec": None, "joined": True, "token_hash": model.token_hash(token)}
        if opponent == "human":
            invite = model.new_token()
            other = {"kind": "human", "spec": None, "joined": False, "invite_hash": model.token_hash(invite)}
        else:
            other = {"kind": "opponent", "spec": opponent, "joined": True}
        them = COLORS[1 - COLORS.index(you)]
        doc = model.new_doc(width=g.width, height=g.height, k=g.k, seats={you: mine, them: other},
                            think_ms=int(think_ms), hints_on=bool(hints), allow_analysis=bool(allow_analysis))
        doc["seats"] = {c: doc["seats"][c] for c in COLORS}
        state = await self.commit(doc, 0)
        out = {"state": state, "token": token, "seat": you, "invite": invite,
               "invite_url": model.invite_url(self.settings.public_url, doc["id"], invite) if invite else None,
               "watch_url": state["watch_url"]}
        if program_to_move(doc):
            if wait:
                try:
                    doc = await self.run_opponent(doc)
                    out["state"] = self.view(doc, you)
                except GameError as exc:  # keep the game and the token; the sweeper plays later
                    out["state"]["message"] = exc.message
            else:
                self.spawn(doc["id"])
        out["state"]["you"] = you
        return out

    async def _again_on_conflict(self, action):
        """Run an action whose request names no version (join, hints, think time): when
        its save loses the race to another change (a move, the engine's answer), it is
        done again on the newer game instead of answering ``conflict``."""
        for attempt in range(CONFLICT_RETRIES):
            try:
                return await action()
            except GameError as exc:
                if exc.code != "conflict" or attempt == CONFLICT_RETRIES - 1:
                    raise

    async def join(self, game_id: str, invite: str | None) -> dict:
        return await self._again_on_conflict(lambda: self._join(game_id, invite))

    async def _join(self, game_id: str, invite: str | None) -> dict:
        doc = await self.store.load(game_id)
        for color in COLORS:
            seat = doc["seats"][color]
            if not seat.get("joined", True) and model.same_token(invite, seat.get("invite_hash")):
                expected = doc["version"]
                token = model.new_token()
                seat.update(joined=True, token_hash=model.token_hash(token), invite_hash=None)
                state = await self.commit(doc, expected, seat=color)
                state["you"] = color
                return {"state": state, "token": token, "seat": color}
        if any(model.same_token(invite, doc["seats"][c].get("invite_hash")) or
               (invite and not doc["seats"][c].get("joined", True)) for c in COLORS):
            raise GameError("bad_token", "this invite is not valid for this game", self.view(doc))
        raise GameError("invite_used", "there is no open seat in this game (the invite was used)", self.view(doc))

    async def get(self, game_id: str, token: str | None = None) -> dict:
        doc = await self.store.load(game_id)
        you = model.seat_of(doc, token) if token else None
        return self.view(doc, you)

    # -- moves -----------------------------------------------------------------------
    async def move(self, game_id: str, token: str | None, column, version: int | None = None,
                   wait: bool = True) -> dict:
        doc, seat, state = await self.move_doc(game_id, token, column, version, wait)
        if state is None:
            return self.view(doc, seat)
        state["you"] = seat
        return state

    async def move_doc(self, game_id: str, token: str | None, column, version: int | None = None,
                       wait: bool = True) -> tuple[dict, str, dict | None]:
        """Play a move: (the game's doc, the mover's seat, the public state when already built)."""
        doc = await self.store.load(game_id)
        seat = self.authorize(doc, token)
        if version is not None and version != doc["version"]:
            raise GameError("conflict", f"the game is at version {doc['version']}, not {version}; reload and retry",
                            self.view(doc, seat))
        if is_over(doc):
            raise GameError("game_over", "the game is over", self.view(doc, seat))
        if color_to_move(doc) != seat:
            who = doc["seats"][color_to_move(doc)]
            why = "the opponent is thinking" if who["kind"] == "opponent" else "it is the other player's turn"
            raise GameError("not_your_turn", f"not your turn: {why}", self.view(doc, seat))
        pos = model.position(doc)
        try:
            col = parse_column(column, pos.geometry)
            pos.play(col)
        except (IllegalMove, InvalidPosition) as exc:
            raise _illegal(exc, self.view(doc, seat, pos)) from None
        expected = doc["version"]
        doc["moves"].append(col)
        doc["message"] = ""
        model.settle(doc, pos)
        state = await self.commit(doc, expected, pos, claim=True, seat=seat)
        if program_to_move(doc):
            if wait:
                return await self.run_opponent(doc, you=seat, claimed=doc["version"]), seat, None
            self.spawn(game_id, claimed=doc["version"])
        return doc, seat, state

    async def undo(self, game_id: str, token: str | None) -> dict:
        doc = await self.store.load(game_id)
        seat = self.authorize(doc, token)
        moves = doc["moves"]
        mine = [i for i in range(len(moves)) if COLORS[i & 1] == seat]
        if not mine:
            raise GameError("nothing_to_undo", "you have no move to take back", self.view(doc, seat))
        if self._against_person(doc, seat):
            # A person's moves are theirs: only your last move, before they replied.
            if mine[-1] != len(moves) - 1:
                raise GameError("not_allowed", "you can take back only your last move, before the other "
                                "player has replied", self.view(doc, seat))
            if is_over(doc):
                raise GameError("game_over", "the game is over: a finished game between people cannot be "
                                "taken back", self.view(doc, seat))
        expected = doc["version"]
        del moves[mine[-1]:]  # back to your previous turn
        doc["resigned"] = False
        doc["result"] = None
        doc["last_search"] = None
        doc["message"] = ""
        pos = model.position(doc)
        model.settle(doc, pos)
        state = await self.commit(doc, expected, pos, seat=seat)
        state["you"] = seat
        return state

    @staticmethod
    def _against_person(doc: dict, seat: str) -> bool:
        """The other seat is a person (or an agent) who has joined."""
        other = doc["seats"][COLORS[1 - COLORS.index(seat)]]
        return other["kind"] != "opponent" and other.get("joined", True)

    async def set_hints(self, game_id: str, token: str | None, on: bool) -> dict:
        return await self._again_on_conflict(lambda: self._set_hints(game_id, token, on))

    async def _set_hints(self, game_id: str, token: str | None, on: bool) -> dict:
        doc = await self.store.load(game_id)
        seat = self.authorize(doc, token)
        expected = doc["version"]
        doc["hints_on"] = bool(on)
        await self.commit(doc, expected, carry=True, seat=seat)
        return self.view(doc, seat)

    async def set_think(self, game_id: str, token: str | None, think_ms) -> dict:
        return await self._again_on_conflict(lambda: self._set_think(game_id, token, think_ms))

    async def _set_think(self, game_id: str, token: str | None, think_ms) -> dict:
        doc = await self.store.load(game_id)
        seat = self.authorize(doc, token)
        if isinstance(think_ms, bool) or not isinstance(think_ms, int) or not 50 <= think_ms <= 60000:
            raise GameError("bad_request", f"think_ms {think_ms!r} must be 50..60000", self.view(doc, seat))
        expected = doc["version"]
        doc["think_ms"] = think_ms
        state = await self.commit(doc, expected, carry=True, seat=seat)
        state["you"] = seat
        return state

    async def link_next(self, game_id: str, token: str, next_id: str) -> None:
        """Point a game at the one its player started after it (the bridge's and
        MCP's ``new``), so whoever watches it can follow the player on."""
        async def link():
            doc = await self.store.load(game_id)
            seat = self.authorize(doc, token)
            if doc.get("next_game") == next_id:
                return
            expected = doc["version"]
            doc["next_game"] = next_id
            await self.commit(doc, expected, carry=True, seat=seat)
        try:
            await self._again_on_conflict(link)
        except GameError as exc:  # the old game expired or went: nothing to point from
            log.info("next game not linked", extra={"game": game_id, "next": next_id, "code": exc.code})

    async def replay(self, game_id: str, token: str | None, moves, engine_starts: bool | None = None,
                     wait: bool = True) -> dict:
        doc = await self.store.load(game_id)
        seat = self.authorize(doc, token)
        if self._against_person(doc, seat):
            raise GameError("not_allowed", "replay replaces both players' moves: not in a game against "
                            "another person", self.view(doc, seat))
        g = model.geometry(doc["width"], doc["height"], doc["k"])
        try:
            cols = parse_moves(moves, g)
            pos = Position.from_moves(cols, g)
        except (IllegalMove, InvalidPosition) as exc:
            raise _illegal(exc, self.view(doc, seat)) from None
        expected = doc["version"]
        if engine_starts is not None:
            want = "yellow" if engine_starts else "red"
            if want != seat:
                doc["seats"] = {"red": doc["seats"]["yellow"], "yellow": doc["seats"]["red"]}
                seat = want
        doc["moves"] = cols
        doc["resigned"] = False
        doc["result"] = None
        doc["last_search"] = None
        doc["message"] = ""
        model.settle(doc, pos)
        state = await self.commit(doc, expected, pos, seat=seat)
        if program_to_move(doc):
            if wait:
                doc = await self.run_opponent(doc, you=seat)
                return self.view(doc, seat)
            self.spawn(game_id)
        state["you"] = seat
        return state

    async def analysis(self, game_id: str, deadline_ms: int = 10000, ply: int | None = None) -> dict:
        doc = await self.store.load(game_id)
        if not doc["allow_analysis"]:
            raise GameError("analysis_disabled", "analysis is not allowed in this game", self.view(doc))
        if ply is not None and not 0 <= ply <= len(doc["moves"]):
            raise GameError("bad_request", f"ply {ply} is not in 0..{len(doc['moves'])}", self.view(doc))
        at = dict(doc, moves=doc["moves"][:ply] if ply is not None else doc["moves"])
        pos = model.position(at)
        ply = len(at["moves"])
        over = pos.is_over
        out = {"version": doc["version"], "ply": ply, "to_move": None if over else COLORS[ply & 1],
               "columns": [], "best": [], "nodes": 0, "source": "", "elapsed_ms": 0.0}
        if over:
            out["columns"] = [{"column": c + 1, "score": None, "verdict": None} for c in range(doc["width"])]
            return out
        try:
            resp = await self.services.analyze(at, deadline_ms)
        except GameError as exc:
            if exc.code == "timeout":
                exc.message = f"the solver could not prove every column within {deadline_ms} ms"
            exc.state = self.view(doc)
            raise
        cells = doc["width"] * doc["height"]
        by_col = {c.column: (c.score if c.HasField("score") else None) for c in resp.columns}
        for c in range(1, doc["width"] + 1):
            s = by_col.get(c)
            out["columns"].append({"column": c, "score": s, "verdict": verdict(s, cells, ply)})
        scores = [c["score"] for c in out["columns"] if c["score"] is not None]
        if scores:
            out["best"] = [c["column"] for c in out["columns"] if c["score"] == max(scores)]
        out.update(nodes=resp.nodes, source=resp.source, elapsed_ms=resp.elapsed_ms)
        return out

    async def learn(self, game_id: str, token: str | None) -> dict:
        """Send a finished game to the bookgen workers' ``bookgen.learn`` task.

        Players only (the token): it makes a worker search and may write the
        corrective book. The game is read, never changed. Returns
        ``{"report": ..., "state": ...}``."""
        doc = await self.store.load(game_id)
        seat = self.authorize(doc, token)
        if not is_over(doc):
            LEARN_REQUESTS.labels("game_not_over").inc()
            raise GameError("game_not_over", "learning needs a finished game: play it to the end first",
                            self.view(doc, seat))
        programs = [c for c in COLORS if doc["seats"][c]["kind"] == "opponent"]
        # The engine is the program's seat; between people (or two programs) the
        # task picks the loser of a lost game, else the second player.
        engine = {"red": "first", "yellow": "second"}[programs[0]] if len(programs) == 1 else "auto"
        size = f"{doc['width']}x{doc['height']}" + ("" if doc["k"] == 4 else f"k{doc['k']}")
        moves = "".join(str(c + 1) for c in doc["moves"]) if doc["width"] <= 9 else [c + 1 for c in doc["moves"]]
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

    # -- the opponent program's turns ---------------------------------------------------
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
        if not program_to_move(doc):
            await self.store.forget_pending(game_id)
            return
        try:
            await self.run_opponent(doc, wait=False, claimed=claimed)
        except GameError:
            pass  # logged where it failed; the sweeper tries again
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("opponent turn crashed", extra={"game": game_id})
            await self.store.postpone(game_id, time.time() + RETRY_AFTER_S)

    async def _keep_claim(self, doc: dict, think: asyncio.Task) -> None:
        """Renew the claim on ``doc``'s turn while ``think`` searches it; stop ``think``
        when that turn is no longer the game's: an undo or replay meanwhile (then a
        new move too, whose turn this process may hold as well), another gateway
        holding it, or the game gone. Its answer would be thrown away, and the
        engine would go on searching for nobody, delaying the next turn."""
        game_id, version = doc["id"], doc["version"]
        while True:
            await asyncio.sleep(CLAIM_TTL_MS / 3000)
            try:
                live = await self.store.renew(game_id, version, self.owner, CLAIM_TTL_MS)
                if live:
                    latest = await self.store.load(game_id)
                    live = latest["moves"] == doc["moves"] and latest["seats"] == doc["seats"] and not is_over(latest)
            except GameError:
                live = False  # expired
            except Exception as exc:  # Redis away for a moment: try again next time
                log.warning("claim renewal failed", extra={"game": game_id, "error": repr(exc)})
                continue
            if not live:
                log.info("opponent search stopped: the game changed", extra={"game": game_id, "version": version})
                think.cancel()
                return

    def _max_turn_s(self, doc: dict) -> float:
        """The longest an opponent's turn can take: for ``perfect`` the solver's
        deadline, then the engine's fallback search (``Services.think_deadline_s``)."""
        spec = doc["seats"][color_to_move(doc)]["spec"] or "engine"
        budget = think_ms_of(spec, self._budget(doc)) or 1000
        return 3 * budget / 1000 + 2 * self.settings.rpc_timeout_s + CLAIM_TTL_MS / 1000 + 5

    def _budget(self, doc: dict) -> int:
        return int(doc["think_ms"] or 0)

    async def run_opponent(self, doc: dict, wait: bool = True, you: str | None = None,
                           claimed: int | None = None) -> dict:
        """Play the opponent program's turns until a person must move; returns the doc.

        ``wait=False``: give up at once when another gateway holds the turn.
        ``claimed``: the version whose turn this process already holds the claim on.
        """
        game_id = doc["id"]
        deadline = None
        while program_to_move(doc):
            v = doc["version"]
            mine = claimed == v
            busy = self.playing.get(game_id) == v or (not wait and game_id in self.playing)
            if busy or (not mine and not await self.store.claim(game_id, v, self.owner, CLAIM_TTL_MS)):
                if not wait:
                    await self.store.postpone(game_id, time.time() + RETRY_AFTER_S)
                    return doc
                # Another gateway plays this turn: wait for its answer, and claim the
                # turn again if that gateway went away (its claim then expires).
                if deadline is None:
                    deadline = time.monotonic() + self._max_turn_s(doc)
                elif time.monotonic() > deadline:
                    raise GameError("timeout", "the opponent did not answer in time", self.view(doc, you))
                doc = await self.store.wait_change(game_id, v, CLAIM_TTL_MS / 1000)
                continue
            if self.playing.get(game_id) == v:  # another coroutine took the turn while we claimed it
                continue
            self.playing[game_id] = v
            think = asyncio.create_task(self._think(doc))
            heartbeat = asyncio.create_task(self._keep_claim(doc, think))
            try:
                col, search, resign = await think
            except asyncio.CancelledError:
                if not think.cancelled() or asyncio.current_task().cancelling():
                    raise  # this coroutine itself is being cancelled (shutdown)
                # The heartbeat stopped the search: the game moved on without it.
                await self.store.release(game_id, v, self.owner)
                doc = await self.store.load(game_id)
                continue
            except GameError as exc:
                heartbeat.cancel()
                await self.store.release(game_id, v, self.owner)
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
                raise GameError(exc.code, message, self.view(doc, you)) from None
            finally:
                heartbeat.cancel()
                if self.playing.get(game_id) == v:
                    del self.playing[game_id]
            new = dict(doc, moves=list(doc["moves"]))
            mover = color_to_move(doc)
            new["last_search"] = search
            new["message"] = search.get("message", "")
            pos = model.position(new)
            if resign:
                new["resigned"] = True
                new["result"] = {"winner": COLORS[1 - COLORS.index(mover)], "reason": "resigned"}
            else:
                try:
                    pos.play(col)
                except IllegalMove as exc:
                    await self.store.release(game_id, v, self.owner)
                    raise GameError("service_error", f"the opponent answered an illegal move: {exc}",
                                    self.view(doc, you)) from None
                new["moves"].append(col)
                model.settle(new, pos)
            doc, landed = await self._commit_answer(new, doc, pos)
            if landed:
                claimed = doc["version"]
            else:  # changed while thinking (undo, replay): the answer is stale; look again
                log.info("opponent answer discarded", extra={"game": game_id, "version": v})
        return doc

    async def _commit_answer(self, new: dict, doc: dict, pos: Position) -> tuple[dict, bool]:
        """Save the opponent's answer ``new`` (built on ``doc``): (the saved doc, True),
        or (the game as it is now, False) when the answer no longer fits it.

        If only settings changed meanwhile (hints, think time: the same moves, the
        same program to move), the answer still stands: it is saved over the
        latest version instead of being thrown away."""
        game_id = doc["id"]
        while True:
            try:
                await self.commit(new, doc["version"], pos, claim=True)
                return new, True
            except GameError as exc:
                if exc.code != "conflict":
                    raise
                latest = await self.store.load(game_id)
                if (latest["moves"] != doc["moves"] or latest["seats"] != doc["seats"] or is_over(latest)
                        or not program_to_move(latest)
                        or not await self.store.claim(game_id, latest["version"], self.owner, CLAIM_TTL_MS)):
                    return latest, False
                answer = {k: new[k] for k in ("moves", "last_search", "message", "resigned", "result",
                                              "winning_cells")}
                new, doc = dict(latest, **answer), latest

    async def _think(self, doc: dict) -> tuple[int, dict, bool]:
        """Ask the services for the opponent's move: (0-based column, last_search, resigns)."""
        spec = doc["seats"][color_to_move(doc)]["spec"] or "engine"
        budget = self._budget(doc)
        if spec == "perfect":
            deadline = budget or 1000
            r = await self.services.best_move(doc, deadline)
            if r.proven and r.column:
                outcome = "win" if r.score > 0 else "loss" if r.score < 0 else "draw"
                g, ply = model.geometry(doc["width"], doc["height"], doc["k"]), len(doc["moves"])
                search = {"col": r.column, "score": r.score, "depth": 0, "nodes": r.nodes,
                          "millis": int(r.elapsed_ms), "book": r.source == "book", "proven": True,
                          "outcome": outcome, "plies_to_end": plies_to_end(r.score, ply, g),
                          "player": "perfect", "source": "solver",
                          "message": {"win": "Perfect sees a forced win!", "loss": "Perfect is lost against best play.",
                                      "draw": "Perfect sees a draw with best play."}[outcome]}
                search["verdict"] = verdict(r.score, g.cells, ply)
                return r.column - 1, search, False
            col, search, resign = await self._engine(doc, "engine", deadline)
            search["source"] = "engine_fallback"
            search["message"] = "perfect could not prove this position in time: the engine's move was played"
            return col, search, False
        return await self._engine(doc, spec, budget)

    async def _engine(self, doc: dict, spec: str, budget: int) -> tuple[int, dict, bool]:
        seed = (zlib.crc32(doc["id"].encode()) << 8) + len(doc["moves"])
        game_id, version = doc["id"], doc["version"]
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
        if not result.resign and not 1 <= result.column <= doc["width"]:
            raise GameError("service_error", f"the engine answered column {result.column}")
        return result.column - 1, search, result.resign

    # -- sweeper: turns nobody is playing (crashed gateway, service was down) ------------
    def start(self) -> None:
        self._sweeper = asyncio.create_task(self._sweep())

    async def stop(self) -> None:
        tasks = list(self.running.values()) + ([self._sweeper] if self._sweeper else [])
        for t in tasks:
            t.cancel()
        for t in tasks:
            try:
                await t
            except (asyncio.CancelledError, Exception):
                pass

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
