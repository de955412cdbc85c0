"""The ``learn`` action end to end: a real redis-server, real gateways under
uvicorn, and a real bookgen worker (``c4 bookgen worker``, Celery) that traces
the game with the solver and appends to a corrective book in a temporary
folder. REST, the bridge, MCP; no worker (the clear 503, the game intact);
an unfinished game (the clear 409).

The games are on a 6x4 board (the second player wins it with perfect play):
small enough that the worker proves every ply at once, so the test does not
depend on how busy the machine is. They are set up with the replay route,
which stores a finished game as it is (no engine turn follows a finished
game); the engine's seat is the ``random`` opponent's. The two games, checked
against the solver when they were chosen:

* ``343425313``: the engine (yellow, second) threw its win at plies 4 and 6,
  red won;
* ``24545424``: the engine (red, first) lost a lost position without a
  mistake: the opponent (yellow) won on merit.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import httpx
import pytest

from connect4 import Geometry, Position
from connect4.book import MoveBook
from tests.gateway.conftest import DEAD, LOGS, Gateway, Proc, _base_env
from tests.gateway.helpers import error_of
from tests.gateway.test_watch_bridge_mcp import BridgeClient

G64 = Geometry(6, 4, 4)
THREW = "343425313"
MERIT = "24545424"


class Worker(Proc):
    """``c4 bookgen worker`` on the test Redis, writing the corrective book in ``book``."""

    def __init__(self, redis_url: str, book: Path):
        self.redis_url = redis_url
        super().__init__("bookgen-learn-worker", [sys.executable, "-m", "c4", "bookgen", "worker",
                                                  "--name", f"learn-{os.getpid()}@test"],
                         _base_env(REDIS_URL=redis_url, C4_BOOKGEN_CORRECTIVE_BOOK=book,
                                   C4_BOOKGEN_OPENING_BOOK=book.parent / "no-opening.txt",
                                   C4_BOOKGEN_WARM="6x4", C4_BOOKGEN_TT_LOG2=20))

    def start(self) -> Worker:
        super().start()
        from celery import Celery

        probe = Celery("probe", broker=self.redis_url)
        try:
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"worker exited with {self.proc.returncode}; see {LOGS}/{self.name}.log")
                if probe.control.ping(timeout=1):
                    return self
            raise TimeoutError("the bookgen worker did not answer a ping")
        finally:
            probe.close()


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("learn") / "6x4-corrective.txt"


@pytest.fixture(scope="module")
def learn_redis(tmp_path_factory):
    """A redis-server of this module's own: no Celery consumer of another test
    (the session server is shared) can take the learn tasks."""
    from tests.conftest import RedisServer

    server = RedisServer(tmp_path_factory.mktemp("learn-redis")).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def learn_gateway(learn_redis, book):
    gw = Gateway(learn_redis.url, DEAD, DEAD, name="gateway-learn", C4_GATEWAY_LEARN_TIMEOUT_S=120).start()
    worker = Worker(learn_redis.url, book).start()
    yield gw
    worker.stop()
    gw.stop()


@pytest.fixture(scope="module")
def lonely_gateway(learn_redis):
    """A gateway on another Redis database, where no bookgen worker listens. Its
    learn timeout is long: the answer must come from asking the workers first."""
    url = learn_redis.url.rsplit("/", 1)[0] + "/1"
    gw = Gateway(url, DEAD, DEAD, name="gateway-nolearn", C4_GATEWAY_LEARN_TIMEOUT_S=300).start()
    yield gw
    gw.stop()


def finished_game(c: httpx.Client, moves: str, engine_starts: bool) -> tuple[str, str, dict]:
    r = c.post("/api/v1/games", json={"width": 6, "height": 4, "opponent": "random", "engine_starts": engine_starts})
    assert r.status_code == 201, r.text
    gid, token = r.json()["state"]["id"], r.json()["token"]
    r = c.post(f"/api/v1/games/{gid}/replay", json={"moves": moves, "engine_starts": engine_starts},
               headers={"X-Player-Token": token})
    assert r.status_code == 200, r.text
    state = r.json()
    assert state["status"] == "over" and state["moves"] == [int(x) for x in moves]
    return gid, token, state


def book_lines(book: Path) -> list[str]:
    return book.read_text().splitlines() if book.exists() else []


def test_learn_books_the_thrown_wins_with_provenance(learn_gateway, book):
    with httpx.Client(base_url=learn_gateway.url, timeout=200) as c:
        gid, token, state = finished_game(c, THREW, engine_starts=False)
        assert state["result"]["winner"] == "red"  # the person; the engine (yellow) lost
        r = c.post(f"/api/v1/games/{gid}/learn")
        assert r.status_code == 403 and error_of(r) == "bad_token"
        r = c.post(f"/api/v1/games/{gid}/learn", headers={"X-Player-Token": token})
        assert r.status_code == 200, r.text
        out = r.json()
        report = out["report"]
        assert report["engine"] == "second" and report["result"] == "engine lost"
        assert [(v["ply"], v["threw"], v["booked"]) for v in report["threw"]] == [(4, "win", True), (6, "win", True)]
        assert "threw win at ply 4" in report["verdict"] and "2 new corrective entries" in report["verdict"]
        assert report["book"] == str(book) and report["unproved"] == []
        assert out["state"]["moves"] == state["moves"] and out["state"]["version"] == state["version"]

        lines = book_lines(book)
        for ply in (4, 6):
            comment = f"# learned from {THREW} (threw win at ply {ply})"
            assert comment in lines, lines
            entry = lines[lines.index(comment) + 1]
            assert not entry.startswith("#")
        # The entries are the perfect moves of the positions before the thrown plies.
        moves = [int(x) - 1 for x in THREW]
        booked = MoveBook.load(book, G64)
        for v in report["threw"]:
            pos = Position.from_moves(moves[:v["ply"] - 1], G64)
            found = booked.lookup(pos)
            assert found is not None, v
            assert found.column + 1 == v["best"] and found.score > 0  # a win for the engine to move
            assert v["played"] != v["best"]

        # Asked again: nothing new is booked, the book is unchanged.
        again = c.post(f"/api/v1/games/{gid}/learn", params={"token": token})
        assert again.status_code == 200, again.text
        assert [v["booked"] for v in again.json()["report"]["threw"]] == [False, False]
        assert book_lines(book) == lines
        assert c.get(f"/api/v1/games/{gid}").json()["version"] == state["version"]

        metrics = c.get("/metrics").text
        assert 'gateway_learn_requests_total{outcome="ok"}' in metrics


def test_learn_reports_a_game_won_on_merit(learn_gateway, book):
    with httpx.Client(base_url=learn_gateway.url, timeout=200) as c:
        gid, token, state = finished_game(c, MERIT, engine_starts=True)  # the engine plays red
        assert state["result"]["winner"] == "yellow" and state["you"] == "yellow"
        before = book_lines(book)
        r = c.post(f"/api/v1/games/{gid}/learn", headers={"X-Player-Token": token})
        assert r.status_code == 200, r.text
        report = r.json()["report"]
        assert report["engine"] == "first" and report["result"] == "engine lost"
        assert report["threw"] == [] and report["unproved"] == []
        assert report["verdict"].startswith("the opponent won on merit")
        assert [v["ply"] for v in report["plies"]] == [1, 3, 5, 7]
        assert book_lines(book) == before


def test_learn_needs_a_finished_game(learn_gateway):
    with httpx.Client(base_url=learn_gateway.url, timeout=60) as c:
        r = c.post("/api/v1/games", json={"width": 6, "height": 4, "opponent": "random"})
        gid, token = r.json()["state"]["id"], r.json()["token"]
        r = c.post(f"/api/v1/games/{gid}/replay", json={"moves": "3434"}, headers={"X-Player-Token": token})
        assert r.status_code == 200 and r.json()["status"] == "to_move"
        r = c.post(f"/api/v1/games/{gid}/learn", headers={"X-Player-Token": token})
        assert r.status_code == 409 and error_of(r) == "game_not_over"
        assert "finished game" in r.json()["error"]["message"]
        assert r.json()["state"]["moves"] == [3, 4, 3, 4]
        r = c.post(f"/api/v1/games/{gid}/moves", json={"column": 3}, headers={"X-Player-Token": token},
                   params={"wait": "false"})
        assert r.status_code == 200 and r.json()["moves"] == [3, 4, 3, 4, 3]  # the game goes on
        assert c.post("/api/v1/games/nope/learn", headers={"X-Player-Token": token}).status_code == 404


def test_learn_without_a_worker_is_a_clear_503_and_the_game_stays(lonely_gateway):
    with httpx.Client(base_url=lonely_gateway.url, timeout=60) as c:
        gid, token, state = finished_game(c, THREW, engine_starts=False)
        r = c.post(f"/api/v1/games/{gid}/learn", headers={"X-Player-Token": token})
        assert r.status_code == 503 and error_of(r) == "learning_unavailable"
        assert "no bookgen worker is running" in r.json()["error"]["message"]
        assert r.json()["state"]["moves"] == state["moves"]
        now = c.get(f"/api/v1/games/{gid}").json()
        assert (now["version"], now["moves"], now["result"]) == (state["version"], state["moves"], state["result"])
        assert 'gateway_learn_requests_total{outcome="learning_unavailable"}' in c.get("/metrics").text


def test_bridge_learn(learn_gateway, lonely_gateway, book):
    """Connect4-rs's learn: ``{"report": text}``, the worker's report beside it; a
    game need not be finished; a ``solver`` argument is answered, never run."""
    with httpx.Client(base_url=learn_gateway.url, timeout=60) as c:
        gid, token, state = finished_game(c, THREW, engine_starts=False)
    b = BridgeClient(learn_gateway.bridge_port)
    try:
        b.send({"cmd": "new"})
        fresh = b.send({"cmd": "learn"})  # the table's game, not begun
        assert fresh == {"report": "no engine mistake found - the opponent won on merit (or the engine was "
                                   "lost from the start)"}
        attached = b.send({"cmd": "attach", "game": gid, "token": token})
        assert attached["game"] == gid and attached["status"] == {"won": "human"}
        r = b.send({"cmd": "learn", "solver": "/usr/local/bin/c4solver -w"})
        assert "error" not in r, r
        lines = r["report"].splitlines()
        assert lines[0].startswith("solver '/usr/local/bin/c4solver -w' not used")
        assert lines[1].startswith("ply 4: engine threw the win") and lines[2].startswith("ply 6: ")
        assert [v["ply"] for v in r["learned"]["threw"]] == [4, 6] and r["learned"]["book"] == str(book)
        assert b.send({"cmd": "learn", "solver": 7}) == {"error": "solver must be a string (a solver command)"}
        assert b.send({"cmd": "state"})["history"] == [int(x) for x in THREW]  # the connection goes on
    finally:
        b.close()
    with httpx.Client(base_url=lonely_gateway.url, timeout=60) as c:
        gid, token, state = finished_game(c, MERIT, engine_starts=True)
    b = BridgeClient(lonely_gateway.bridge_port)
    try:
        b.send({"cmd": "attach", "game": gid, "token": token})
        r = b.send({"cmd": "learn"})
        assert r["error"].startswith("learning is unavailable") and r["state"]["history"] == state["moves"]
        assert b.send({"cmd": "state"})["history"] == state["moves"]
    finally:
        b.close()


def test_mcp_learn(learn_gateway):
    from mcp import Client

    with httpx.Client(base_url=learn_gateway.url, timeout=60) as c:
        gid, token, state = finished_game(c, THREW, engine_starts=False)

    def texts(res):
        return [c.text for c in res.content]

    async def go():
        async with Client(f"{learn_gateway.url}/mcp") as mcp:
            assert "connect4_learn" in {t.name for t in (await mcp.list_tools()).tools}
            missing = await mcp.call_tool("connect4_learn", {"game": "never-made"})
            assert missing.is_error and "no game named 'never-made'" in texts(missing)[0]
            # the 6x4 game made through REST, taken into this client's namespace with its token
            j = await mcp.call_tool("connect4_join", {"game_id": gid, "token": token, "game": "learn-me"})
            assert not j.is_error, texts(j)
            done = await mcp.call_tool("connect4_learn", {"game": "learn-me"})
            assert not done.is_error, texts(done)
            return done

    done = asyncio.run(go())
    assert texts(done)[0].startswith("Learned: the engine (second) threw win at ply 4")
    assert [v["ply"] for v in done.structured_content["learned"]["threw"]] == [4, 6]
    assert done.structured_content["report"].startswith("ply 4: engine threw the win")
    assert done.structured_content["game_id"] == gid


@pytest.fixture(scope="module")
def engine_gateway(learn_redis, engine_service, learn_gateway):
    """The real engine service as the opponent; the bookgen worker of ``learn_gateway`` on the same Redis."""
    gw = Gateway(learn_redis.url, engine_service.addr, DEAD, name="gateway-learn-engine",
                 C4_GATEWAY_LEARN_TIMEOUT_S=120).start()
    yield gw
    gw.stop()


def test_learn_from_a_game_played_against_the_engine_service(engine_gateway, book):
    """Red plays the solver's moves against the engine service's ``random`` player
    on 6x4 (a win for yellow, the engine's seat, with perfect play); when red wins,
    the engine threw its win somewhere, and learn must find and book it."""
    from books.bookgen.solving import BookSolver

    solver = BookSolver(G64)
    with httpx.Client(base_url=engine_gateway.url, timeout=120) as c:
        for _attempt in range(4):  # random finds yellow's win only with long odds; retry a lost game
            r = c.post("/api/v1/games", json={"width": 6, "height": 4, "opponent": "random"})
            assert r.status_code == 201, r.text
            gid, token = r.json()["state"]["id"], r.json()["token"]
            state = r.json()["state"]
            while state["status"] != "over":
                pos = Position.from_moves([m - 1 for m in state["moves"]], G64)
                wins = [col for col in pos.legal_moves() if pos.is_winning_move(col)]
                col = wins[0] if wins else solver.best_move(pos, lambda k: None).column
                r = c.post(f"/api/v1/games/{gid}/moves", json={"column": col + 1}, headers={"X-Player-Token": token})
                assert r.status_code == 200, r.text
                state = r.json()
            if state["result"]["winner"] == "red":
                break
        assert state["result"]["winner"] == "red", "the random engine player won four games in a row"
        yellow = state["seats"]["yellow"]
        assert (yellow["kind"], yellow["spec"], yellow["joined"]) == ("opponent", "random", True)
        before = book_lines(book)
        r = c.post(f"/api/v1/games/{gid}/learn", headers={"X-Player-Token": token})
        assert r.status_code == 200, r.text
        report = r.json()["report"]
    moves = "".join(str(m) for m in state["moves"])
    assert report["moves"] == moves and report["engine"] == "second" and report["result"] == "engine lost"
    assert report["threw"] and report["unproved"] == []
    cols = [m - 1 for m in state["moves"]]
    booked = MoveBook.load(book, G64)
    added = book_lines(book)[len(before):]
    for v in report["threw"]:
        pos = Position.from_moves(cols[:v["ply"] - 1], G64)
        best = solver.best_move(pos, lambda k: None)
        assert (best.score > 0) == (v["before"] == "win") and v["threw"] == v["before"]
        assert cols[v["ply"] - 1] + 1 == v["played"] != v["best"]
        if v["booked"]:
            assert f"# learned from {moves} (threw {v['threw']} at ply {v['ply']})" in added
            assert booked.lookup(pos).column + 1 == v["best"]
    assert any(v["booked"] for v in report["threw"]) or not added
