"""Helpers of the web tests: screenshots, known positions, waiting on the page, a bridge client."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from tests.conftest import REPO

ARTIFACTS = REPO / "artifacts" / "web"


def shot(page, name: str, still: bool = True) -> Path:
    """Keep a screenshot as a test artifact."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    if still:  # let falling discs land first
        page.wait_for_function("document.getAnimations().every(a => a.playState !== 'running')")
    page.screenshot(path=str(path), full_page=True)
    return path


def use_settings(context, **settings) -> None:
    """What the settings strip would have saved: opponent, youStart, width, height, k, think (s)."""
    context.add_init_script(f"localStorage.setItem('c4.settings', {json.dumps(json.dumps(settings))});")


def open_new_game(page, **settings):
    use_settings(page.context, **settings)
    page.goto("/")
    page.wait_for_function("document.body.dataset.version !== undefined")
    return game_state(page)


def game_id(page) -> str:
    return page.evaluate("new URLSearchParams(location.search).get('game')")


def game_state(page) -> dict:
    """The game as the gateway holds it (GET /api/v1/games/{id})."""
    return page.evaluate(
        "async () => (await fetch('/api/v1/games/' + new URLSearchParams(location.search).get('game'))).json()")


def discs(page) -> list[tuple[int, int, int]]:
    """(column, row, player) of every disc drawn on the board."""
    return [tuple(d) for d in page.evaluate(
        "[...document.querySelectorAll('#board .discs .disc')].map(d => [+d.dataset.col, +d.dataset.row, +d.dataset.player])")]


def expected_discs(moves: list[int]) -> list[tuple[int, int, int]]:
    heights: dict[int, int] = {}
    out = []
    for i, col in enumerate(moves):
        heights[col] = heights.get(col, 0) + 1
        out.append((col, heights[col], i % 2))
    return sorted(out)


def wait_status(page, *statuses: str, timeout: float = 30000) -> str:
    page.wait_for_function("s => s.includes(document.body.dataset.status)", arg=list(statuses), timeout=timeout)
    return page.evaluate("document.body.dataset.status")


def wait_ply(page, ply: int, timeout: float = 30000) -> None:
    """Wait until the board shows exactly `ply` moves."""
    page.wait_for_function("n => Number(document.querySelector('#board').dataset.ply) === n", arg=ply, timeout=timeout)


def wait_ply_at_least(page, ply: int, timeout: float = 30000) -> None:
    page.wait_for_function("n => Number(document.querySelector('#board').dataset.ply) >= n", arg=ply, timeout=timeout)


def my_turn(page, timeout: float = 30000) -> None:
    """Wait until the board takes a move from this page."""
    page.wait_for_function("document.querySelector('#board').classList.contains('interactive')", timeout=timeout)


def seat_position(stack, context, moves: list[int], *, opponent: str = "human", width: int = 7,
                  height: int = 6, k: int = 4, think_ms: int = 200, you: str = "red") -> dict:
    """A game at a known position: created and replayed through the REST API,
    its player token handed to the browser the way the page stores its own."""
    with stack.http() as http:
        reply = http.post("/api/v1/games", json={"width": width, "height": height, "k": k, "opponent": opponent,
                                                 "think_ms": think_ms, "you": you})
        assert reply.status_code == 201, reply.text
        created = reply.json()
        gid, token = created["state"]["id"], created["token"]
        if moves:
            r = http.post(f"/api/v1/games/{gid}/replay", json={"moves": moves, "engine_starts": you == "yellow"},
                          headers={"X-Player-Token": token})
            assert r.status_code == 200, r.text
    stored = {gid: {"token": token, "seat": created["seat"], "invite": created.get("invite"),
                    "inviteUrl": created.get("invite_url"), "t": 1}}
    context.add_init_script(
        f"localStorage.setItem('c4.games', {json.dumps(json.dumps(stored))}); localStorage.setItem('c4.last', '{gid}');")
    return {"id": gid, "token": token, "invite": created.get("invite")}


class Bridge:
    """A JSON-lines client of the gateway's TCP bridge (one game a connection)."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.file = self.sock.makefile("rwb")

    def send(self, **cmd) -> dict:
        self.file.write((json.dumps(cmd) + "\n").encode())
        self.file.flush()
        line = self.file.readline()
        assert line, "the bridge closed the connection"
        return json.loads(line)

    def close(self) -> None:
        try:
            self.file.close()
        finally:
            self.sock.close()
