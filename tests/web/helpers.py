"""Helpers of the web tests: screenshots, known positions, waiting on the page, a bridge client."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

from tests.conftest import REPO

ARTIFACTS = REPO / "artifacts" / "web"


def shot(page, name: str, still: bool = True, full: bool = True) -> Path:
    """Keep a screenshot as a test artifact, once axe-core finds no violation in
    that state: every state a test keeps a picture of is checked. `full=False`: the
    window only (a full-page shot of a page taller than the window resizes it for
    a moment: a layout shift)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    if still:  # let falling discs land first
        page.wait_for_function("document.getAnimations().every(a => a.playState !== 'running')")
    assert_accessible(page, name)
    page.screenshot(path=str(path), full_page=full)
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


def saved_moves(page, ply: int, timeout_s: float = 30.0) -> list[int]:
    """The gateway's moves once it holds `ply` of them (the board draws a move
    before its save is answered): waits on that state, then returns them."""
    deadline = time.monotonic() + timeout_s
    while True:
        moves = game_state(page)["moves"]
        if len(moves) >= ply or time.monotonic() > deadline:
            return moves
        page.wait_for_timeout(100)


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
    """Wait until the page shows one of `statuses` (its discs landed: the panels show the position)."""
    page.wait_for_function("s => s.includes(document.body.dataset.status) && document.body.dataset.settled !== 'false'",
                           arg=list(statuses), timeout=timeout)
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


# ---- accessibility and layout ----------------------------------------------------------
def axe_violations(page) -> list[dict]:
    """axe-core's violations on the page as it is now (axe.min.js as the
    axe-playwright-python package ships it, injected into the page)."""
    import axe_playwright_python

    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(path=str(Path(axe_playwright_python.__file__).parent / "axe.min.js"))
    return page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']})).violations
        .map(v => ({id: v.id, impact: v.impact, help: v.help,
                    nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary)}))""")


def assert_accessible(page, state: str) -> None:
    found = axe_violations(page)
    assert not found, f"axe-core in state {state!r}: {found}"


WATCH_SHIFTS = """() => {
  window.__shifts = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__shifts.push({value: e.value, input: e.hadRecentInput,
      sources: (e.sources || []).map(s => ({
        node: s.node ? (s.node.id || s.node.getAttribute?.('class') || s.node.nodeName) : '?',
        from: [s.previousRect.x, s.previousRect.y, s.previousRect.width, s.previousRect.height].map(Math.round),
        to: [s.currentRect.x, s.currentRect.y, s.currentRect.width, s.currentRect.height].map(Math.round)}))});
  }).observe({type: 'layout-shift'});
}"""


def watch_layout_shifts(page) -> None:
    """From now on, every layout shift of the page is recorded (PerformanceObserver 'layout-shift')."""
    page.evaluate(WATCH_SHIFTS)


def layout_shifts(page) -> list[dict]:
    return page.evaluate("window.__shifts")


def settled(page, timeout: float = 30000) -> None:
    """Wait until every falling disc has landed and the panels show the position."""
    page.wait_for_function("document.body.dataset.settled === 'true'", timeout=timeout)


class LogWatch:
    """Lines a process writes to its log from now on (a test waits on one)."""

    def __init__(self, path: Path):
        self.path = path
        self.offset = path.stat().st_size if path.exists() else 0

    def wait_for(self, *needles: str, any_of: tuple[str, ...] = (), timeout: float = 30) -> str:
        """The first new line holding every one of `needles` and one of `any_of` (if given)."""
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                for line in f.read().decode(errors="replace").splitlines():
                    if all(n in line for n in needles) and (not any_of or any(a in line for a in any_of)):
                        return line
            time.sleep(0.1)
        raise TimeoutError(f"no line with {needles} and one of {any_of} in {self.path}")


def gateway_log(stack) -> LogWatch | None:
    """The log of the gateway these tests started (None against a running stack)."""
    from tests.gateway.conftest import LOGS

    gw = getattr(stack, "gateway", None)
    return LogWatch(LOGS / f"{gw.name}.log") if gw is not None else None
