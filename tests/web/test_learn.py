"""The "Learn from this game" panel against a real gateway and a real bookgen
worker (the fixtures of tests/gateway/test_learn.py: 6x4 games set up with the
replay route, the worker's corrective book in a temporary folder), and against
a gateway with no worker (the clear "unavailable" message, the game intact)."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.gateway.test_learn import (THREW, book, book_lines, finished_game,  # noqa: F401 (fixtures)
                                      learn_gateway, learn_redis, lonely_gateway)
from tests.web.conftest import DESKTOP
from tests.web.helpers import shot


@pytest.fixture
def chromium(browser):
    """The session's browser (one sync Playwright per process: a second one
    inside the first one's loop is refused)."""
    return browser


def open_as_player(chromium, url: str, gid: str, token: str, seat: str):
    """A page holding this game's seat, as if this browser had created it."""
    ctx = chromium.new_context(viewport=DESKTOP, base_url=url)
    ctx.set_default_timeout(20000)
    saved = {gid: {"token": token, "seat": seat, "t": 1}}
    ctx.add_init_script(f"localStorage.setItem('c4.games', {json.dumps(json.dumps(saved))});"
                        f"localStorage.setItem('c4.last', {json.dumps(gid)});")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"/?game={gid}")
    page.wait_for_function("document.body.dataset.status !== undefined")
    return ctx, page, errors


def test_learn_button_shows_the_verdict_and_the_booked_plies(chromium, learn_gateway, book):  # noqa: F811 (fixtures)
    with httpx.Client(base_url=learn_gateway.url, timeout=60) as c:
        gid, token, state = finished_game(c, THREW, engine_starts=False)
        r = c.post("/api/v1/games", json={"width": 6, "height": 4, "opponent": "random"})
        open_id, open_token = r.json()["state"]["id"], r.json()["token"]
    ctx, page, errors = open_as_player(chromium, learn_gateway.url, gid, token, "red")
    try:
        assert page.evaluate("document.body.dataset.status") == "over"
        assert page.is_visible("#learn-panel") and page.inner_text("#learn") == "Learn from this game"
        page.click("#learn")
        page.wait_for_function("document.querySelector('#learn-verdict').dataset.kind === 'report'", timeout=120000)
        verdict = page.inner_text("#learn-verdict")
        assert verdict.startswith("The engine (second) threw win at ply 4"), verdict
        plies = page.locator("#learn-plies li").all_inner_texts()
        assert plies == ["Move 4: played 4, 3 keeps the win (booked)", "Move 6: played 5, 3 keeps the win (booked)"]
        assert f"# learned from {THREW} (threw win at ply 4)" in book_lines(book)
        assert page.inner_text("#learn") == "Learn again"
        shot(page, "learn-report")
        # a game that is not over has no Learn panel, even for its player (its token)
        ctx2, page2, errors2 = open_as_player(chromium, learn_gateway.url, open_id, open_token, "red")
        try:
            # the board takes its moves: the page holds the seat of open_token (a watcher's never does)
            page2.wait_for_function("document.querySelector('#board').classList.contains('interactive')")
            assert not page2.is_visible("#learn-panel")
            assert not errors2
        finally:
            ctx2.close()
        assert not errors
    finally:
        ctx.close()


def test_learn_button_says_when_learning_is_unavailable(chromium, lonely_gateway):  # noqa: F811 (a fixture)
    with httpx.Client(base_url=lonely_gateway.url, timeout=60) as c:
        gid, token, state = finished_game(c, THREW, engine_starts=False)
    ctx, page, errors = open_as_player(chromium, lonely_gateway.url, gid, token, "red")
    try:
        page.click("#learn")
        page.wait_for_function("document.querySelector('#learn-verdict').dataset.kind === 'error'", timeout=60000)
        assert page.inner_text("#learn-verdict").startswith("Learning is unavailable right now")
        assert "no bookgen worker is running" in page.get_attribute("#learn-verdict", "title")
        assert not page.is_disabled("#learn")
        with httpx.Client(base_url=lonely_gateway.url, timeout=60) as c:
            now = c.get(f"/api/v1/games/{gid}").json()
        assert (now["version"], now["moves"]) == (state["version"], state["moves"])
        shot(page, "learn-unavailable")
        assert not errors
    finally:
        ctx.close()
