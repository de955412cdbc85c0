"""Careful clients for fault runs, and the audit of the games they played.

Each :class:`Player` thread plays games against the engine over REST, one
after another, and asks for an analysis now and then. It behaves as a
client should behind a flaky service: every move names the version it saw;
after an answer that is not 200 (or none) it reloads the game, takes the
move as landed when the stored game shows it, and otherwise sends the same
move again. Every request is logged with its start, end and answer kind.

:func:`audit` then reads every game back: a game the gateway acknowledged
and cannot find is *lost*; one whose stored moves do not begin with every
move acknowledged lost a write; one whose stored human moves differ from
what the client meant once each is *doubled* (a move applied twice); a game
in Redis that no client holds a token for is *orphaned*.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import httpx

OPPONENT = "engine:100"
START = [1, 1, 1, 1]
"""Each game is replayed to this start first: off the opening book's trees, so the
engine's answers are searches (the book answers every position of an opening at
once, and a fault must strike a request in flight)."""


@dataclass
class Request:
    op: str
    start: float
    end: float
    kind: str  # "200", "503 service_unavailable", "connection error", ...


@dataclass
class Game:
    id: str
    token: str
    acked: list[int]  # moves of the last acknowledged state
    meant: list[int] = field(default_factory=list)  # the human moves the client sent, once each


@dataclass
class Audit:
    games: int
    lost: list[str]
    lost_writes: list[str]
    doubled: list[str]
    orphaned: list[str]

    @property
    def ok(self) -> bool:
        return not (self.lost or self.lost_writes or self.doubled or self.orphaned)

    def as_dict(self) -> dict:
        return {"games": self.games, "lost": len(self.lost), "lost_writes": len(self.lost_writes),
                "doubled": len(self.doubled), "orphaned": len(self.orphaned)}


def answer_kind(r: httpx.Response) -> str:
    if r.status_code in (200, 201):
        return str(r.status_code)
    try:
        code = r.json().get("code") or r.json().get("error", {}).get("code", "")
    except (ValueError, AttributeError):
        code = ""
    return f"{r.status_code} {code}".strip()


class Player(threading.Thread):
    def __init__(self, url: str, number: int, stop: threading.Event, think_ms: int = 300,
                 analyse_every: int = 3, timeout_s: float = 60.0, human_moves: int = 6):
        super().__init__(name=f"player-{number}", daemon=True)
        self.url, self.number, self.stop = url, number, stop
        self.think_ms, self.analyse_every, self.human_moves = think_ms, analyse_every, human_moves
        self.client = httpx.Client(base_url=url, timeout=timeout_s)
        self.requests: list[Request] = []
        self.games: list[Game] = []
        self.unanswered_creates = 0  # creates without a clear answer: the game may exist
        self.lock = threading.Lock()
        self.in_flight: dict[str, float] = {}  # op -> start of the request in flight

    # -- one logged request ----------------------------------------------------------
    def _call(self, op: str, method: str, path: str, **kw) -> httpx.Response | None:
        t0 = time.monotonic()
        with self.lock:
            self.in_flight[op] = t0
        try:
            r = self.client.request(method, path, **kw)
            kind = answer_kind(r)
        except httpx.TimeoutException:
            r, kind = None, "client timeout"
        except httpx.TransportError as err:
            r, kind = None, f"connection error ({type(err).__name__})"
        finally:
            with self.lock:
                self.in_flight.pop(op, None)
        self.requests.append(Request(op, t0, time.monotonic(), kind))
        return r

    def _pause(self) -> None:
        self.stop.wait(0.2)

    # -- a careful client ----------------------------------------------------------------
    def _reload(self, game: Game) -> dict | None:
        while not self.stop.is_set():
            r = self._call("get", "GET", f"/api/v1/games/{game.id}", headers={"X-Player-Token": game.token})
            if r is not None and r.status_code == 200:
                return r.json()
            if r is not None and r.status_code == 404:
                return None
            self._pause()
        return None

    def _create(self) -> Game | None:
        r = self._call("create", "POST", "/api/v1/games", json={"opponent": OPPONENT, "think_ms": self.think_ms})
        if r is not None and r.status_code == 201:
            body = r.json()
            game = Game(body["state"]["id"], body["token"], list(body["state"]["moves"]))
            self.games.append(game)
            r = self._call("replay", "POST", f"/api/v1/games/{game.id}/replay", json={"moves": START},
                           headers={"X-Player-Token": game.token})
            if r is None or r.status_code != 200:
                now = self._reload(game)  # the answer may be lost and the replay landed
                if now is None or now["moves"] != START:
                    self._pause()  # the game stays as it is (the audit reads it back); a new one next
                    return None
            game.acked, game.meant = list(START), START[0::2]
            return game
        if r is None or r.status_code >= 500:
            self.unanswered_creates += 1
        self._pause()
        return None

    def _move(self, game: Game, state: dict) -> dict | None:
        """Play one human move to the end: the state after it (and the engine's answer)."""
        moves = state["moves"]
        legal = [c for c in range(1, 8) if moves.count(c) < 6]
        col = legal[(len(moves) * 3 + self.number) % len(legal)]
        game.meant.append(col)
        body = {"column": col, "version": state["version"]}
        while not self.stop.is_set():
            r = self._call("move", "POST", f"/api/v1/games/{game.id}/moves", json=body,
                           headers={"X-Player-Token": game.token})
            if r is not None and r.status_code == 200:
                game.acked = list(r.json()["moves"])
                return r.json()
            now = self._reload(game)
            if now is None:
                return None
            if len(now["moves"]) > len(moves):  # it landed: the answer was lost, not the move
                game.acked = list(now["moves"])
                return now
            body["version"] = now["version"]
            self._pause()
        return None

    def _settled(self, game: Game, state: dict | None) -> dict | None:
        """Wait while the engine thinks (a turn a service failure postponed)."""
        while state is not None and state["status"] == "thinking" and not self.stop.is_set():
            self._pause()
            state = self._reload(game)
        return state

    def run(self) -> None:
        played = 0
        while not self.stop.is_set():
            game = self._create()
            if game is None:
                continue
            state: dict | None = self._reload(game)
            for _ in range(self.human_moves):
                state = self._settled(game, state)
                if state is None or state["status"] != "to_move" or self.stop.is_set():
                    break
                state = self._move(game, state)
                played += 1
                if state is not None and played % self.analyse_every == 0:
                    # its own game's analysis, as its player (a watcher's is capped: 429 busy)
                    self._call("analysis", "GET", f"/api/v1/games/{game.id}/analysis",
                               params={"ply": len(state["moves"])}, headers={"X-Player-Token": game.token})
        self.client.close()


def game_ids_in_redis(redis_url: str) -> set[str]:
    import redis

    client = redis.Redis.from_url(redis_url, socket_timeout=10)
    try:
        return {k.decode().split(":", 2)[2] for k in client.scan_iter("c4:game:*", count=1000)}
    finally:
        client.close()


def audit(url: str, players: list[Player], known_before: set[str], redis_url: str) -> Audit:
    lost, lost_writes, doubled = [], [], []
    with httpx.Client(base_url=url, timeout=60) as client:
        games = [g for p in players for g in p.games]
        for g in games:
            r = None
            for _ in range(100):  # the stack may still be settling after the last fault
                r = client.get(f"/api/v1/games/{g.id}", headers={"X-Player-Token": g.token})
                if r.status_code != 503:
                    break
                time.sleep(0.3)
            if r is None or r.status_code != 200:
                lost.append(g.id)
                continue
            stored = r.json()["moves"]
            if stored[:len(g.acked)] != g.acked:
                lost_writes.append(g.id)
            human = stored[0::2]
            if human != g.meant[:len(human)]:
                doubled.append(g.id)
    mine = {g.id for p in players for g in p.games}
    orphaned = sorted(game_ids_in_redis(redis_url) - mine - known_before)
    return Audit(len(mine), lost, lost_writes, doubled, orphaned)


def answers_between(players: list[Player], t0: float, t1: float) -> Counter:
    """Answer kinds of every request that was running at some time in [t0, t1]."""
    return Counter(r.kind for p in players for r in p.requests if r.start <= t1 and r.end >= t0)


def in_flight_at(players: list[Player], t: float) -> int:
    return sum(1 for p in players for r in p.requests if r.start <= t <= r.end)
