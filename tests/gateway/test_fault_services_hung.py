"""An engine or a solver that does not answer: every gRPC call of the gateway
has a deadline (a quick call ``C4_GATEWAY_RPC_TIMEOUT_S``, an analysis its
``deadline_ms`` plus that, a move twice its think time plus that), so a request
answers within it, never a hang, and the game is intact and goes on.

Two real faults: the real services SIGSTOPped after the gateway's channel to
them is up (the connection stays open, nothing answers: only the call's
deadline ends the wait), and a black hole (a listening socket nobody reads,
so no HTTP/2 SETTINGS frame ever comes: gRPC gives up on the connection).
The answer is 504 ``timeout``, or 503 ``service_unavailable`` when gRPC
gives up on the connection first."""

from __future__ import annotations

import os
import signal
import socket
import time
from contextlib import contextmanager

import httpx

from tests.gateway.conftest import Gateway
from tests.gateway.helpers import error_of, new_pvp, play

RPC_TIMEOUT_S = 2
DOWN = {(504, "timeout"), (503, "service_unavailable")}
SLACK_S = 5  # a loaded machine's extra; a hang would run into the client's 30 s


def timed(call):
    start = time.monotonic()
    r = call()
    return r, time.monotonic() - start


@contextmanager
def stopped(service):
    os.kill(service.proc.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(service.proc.pid, signal.SIGCONT)


def people_who_allow_analysis(c):
    gid, red, yellow = new_pvp(c, allow_analysis=True)
    yes = c.post(f"/api/v1/games/{gid}/settings", json={"allow_analysis": True}, headers={"X-Player-Token": yellow})
    assert yes.status_code == 200, yes.text
    assert play(c, gid, red, 4).status_code == 200
    return gid, red, yellow


def test_a_stopped_solver_costs_an_analysis_its_deadline(redis_server, engine_service, solver_service):
    gw = Gateway(redis_server.db(5), engine_service.addr, solver_service.addr, name="gateway-stopped-services",
                 C4_GATEWAY_RPC_TIMEOUT_S=RPC_TIMEOUT_S).start()
    try:
        with httpx.Client(base_url=gw.url, timeout=30) as c:
            gid, _red, yellow = people_who_allow_analysis(c)

            def ask() -> httpx.Response:
                return c.get(f"/api/v1/games/{gid}/analysis", params={"deadline_ms": 1000},
                             headers={"X-Player-Token": yellow})
            assert ask().status_code == 200  # the channel to the solver is up
            with stopped(solver_service):
                r, took = timed(ask)
            assert (r.status_code, error_of(r)) in DOWN, r.text
            assert "solver" in r.json()["error"]["message"]
            assert took < 1 + RPC_TIMEOUT_S + SLACK_S, took
            assert ask().status_code == 200  # the solver goes on; so does the game
            assert play(c, gid, yellow, 5).json()["moves"] == [4, 5]

            # a move against the engine: its turn ends by the deadline, the person's move is kept
            made = c.post("/api/v1/games", json={"opponent": "engine:100"})
            assert made.status_code == 201, made.text
            egid, token = made.json()["state"]["id"], made.json()["token"]
            assert len(play(c, egid, token, 4).json()["moves"]) == 2  # the channel to the engine is up
            with stopped(engine_service):
                r, took = timed(lambda: play(c, egid, token, 4))
            assert r.status_code == 200 or (r.status_code, error_of(r)) in DOWN, r.text
            assert took < 2 * 0.1 + RPC_TIMEOUT_S + SLACK_S, took
            assert made_moves(c, egid)[2] == 4
    finally:
        gw.stop()


def made_moves(c, gid):
    return c.get(f"/api/v1/games/{gid}").json()["moves"]


def test_black_holed_services_cost_a_request_a_bounded_wait(redis_server):
    holes = []
    for _ in range(2):  # the kernel completes the TCP handshake; nothing ever reads or answers
        hole = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        hole.bind(("127.0.0.1", 0))
        hole.listen(64)
        holes.append(hole)
    engine, solver = (f"127.0.0.1:{h.getsockname()[1]}" for h in holes)
    gw = Gateway(redis_server.db(5), engine, solver, name="gateway-black-holed",
                 C4_GATEWAY_RPC_TIMEOUT_S=RPC_TIMEOUT_S).start()
    try:
        with httpx.Client(base_url=gw.url, timeout=30) as c:
            gid, _red, yellow = people_who_allow_analysis(c)
            r, took = timed(lambda: c.get(f"/api/v1/games/{gid}/analysis", params={"deadline_ms": 1000},
                                          headers={"X-Player-Token": yellow}))
            assert (r.status_code, error_of(r)) in DOWN, r.text
            assert took < 1 + RPC_TIMEOUT_S + SLACK_S, took
            # a game against a program is made without the engine's list of players
            r, took = timed(lambda: c.post("/api/v1/games", json={"opponent": "engine:100"}))
            assert r.status_code == 201, r.text
            assert took < RPC_TIMEOUT_S + SLACK_S, took
            egid, token = r.json()["state"]["id"], r.json()["token"]
            r, took = timed(lambda: play(c, egid, token, 4))
            assert r.status_code == 200 or (r.status_code, error_of(r)) in DOWN, r.text
            assert took < 2 * (RPC_TIMEOUT_S + SLACK_S), took  # the players' list, then the move
            assert made_moves(c, egid)[:1] == [4]
            r, took = timed(lambda: c.get("/readyz"))
            assert r.status_code == 503 and took < SLACK_S, (r.status_code, took)
            assert play(c, gid, yellow, 5).json()["moves"] == [4, 5]
    finally:
        gw.stop()
        for h in holes:
            h.close()
