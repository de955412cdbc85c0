"""A still layout and a clean accessibility report: whole games with alerts,
hint rings, the solution, a result banner and a resignation move nothing
(the cumulative layout shift is 0, PerformanceObserver 'layout-shift'), and
axe-core finds no violation in any state the page reaches."""

from __future__ import annotations

from tests.web.conftest import DESKTOP
from tests.web.helpers import (
    assert_accessible, game_state, layout_shifts, my_turn, open_new_game, seat_position, settled, shot, wait_status,
    watch_layout_shifts,
)
from tests.web.test_play import choose

PONS = [int(c) for c in "7422341735647741166133573473242566"]  # red to move wins (Pons' test set)


def best_column(page) -> int:
    """The column the page's solution marks best (its star)."""
    page.wait_for_selector("#board .solution .sol.best")
    return int(page.get_attribute("#board .solution .sol.best", "data-col"))


def test_a_whole_game_keeps_the_layout_still(page):
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    my_turn(page)
    settled(page)
    assert_accessible(page, "default, unused think slider")
    assert "unused" in page.get_attribute("label.think", "class")
    watch_layout_shifts(page)
    page.keyboard.press("h")
    page.wait_for_function("document.querySelector('#hints').getAttribute('aria-pressed') === 'true'")
    page.keyboard.press("x")  # the empty board: the solver's book knows it
    best_column(page)
    assert_accessible(page, "hints and solution")
    shot(page, "still_solution", full=False)
    page.keyboard.press("x")  # off again: early positions off the book take the solver long
    page.keyboard.press("9")  # not on the board: an alert over it
    page.wait_for_selector("#alert:not([hidden])")
    assert_accessible(page, "alert")
    for _ in range(30):
        if wait_status(page, "to_move", "over") == "over":
            break
        my_turn(page)
        settled(page)
        st = game_state(page)
        page.keyboard.press(str(choose(st["moves"])))
        page.wait_for_function("v => +document.body.dataset.version > v + 1 || document.body.dataset.status === 'over'",
                               arg=st["version"])
    wait_status(page, "over")
    page.wait_for_selector("#result:not([hidden])")
    shot(page, "still_finished", full=False)
    assert_accessible(page, "finished game with its result banner")
    page.keyboard.press("l")  # the share link: another alert, over the board
    page.wait_for_function("document.querySelector('#alert').textContent.includes('Share link')")
    shifts = layout_shifts(page)
    assert sum(s["value"] for s in shifts) == 0, shifts


def test_a_resignation_keeps_the_layout_still(page, stack):
    # red (the engine) blundered at 1; yellow's 1 leaves it lost, and it resigns
    seat_position(stack, page.context, PONS + [1], opponent="engine:500", think_ms=500, you="yellow")
    page.goto("/")
    my_turn(page)
    settled(page)
    watch_layout_shifts(page)
    page.keyboard.press("h")
    page.keyboard.press("x")
    assert best_column(page) == 1
    assert_accessible(page, "solution and hints, the engine's turn next")
    full = [c for c in range(1, 8) if PONS.count(c) + (c == 1) >= 6]
    page.keyboard.press(str(full[0]) if full else "9")  # refused: an alert over the board
    page.wait_for_selector("#alert:not([hidden])")
    page.keyboard.press("1")
    wait_status(page, "over")
    page.wait_for_selector("#result:not([hidden])")
    assert "resigned" in page.inner_text("#result-how")
    assert page.inner_text("#result-text") == "You win!"
    shot(page, "still_resigned", full=False)
    shifts = layout_shifts(page)
    assert sum(s["value"] for s in shifts) == 0, shifts


def test_an_opponent_list_that_arrives_late_moves_nothing(page, stack):
    # the list comes from the engine service and may arrive after the first paint (so it did in CI once)
    held = []
    page.route("**/api/v1/opponents", lambda route: held.append(route))
    seat_position(stack, page.context, PONS, opponent="engine:500", think_ms=500, you="yellow")
    page.goto("/")
    settled(page)
    assert page.evaluate("document.querySelectorAll('#opponent option').length") <= 2  # the page's default, the game's
    watch_layout_shifts(page)
    assert len(held) == 1
    held[0].continue_()
    page.wait_for_function("document.querySelectorAll('#opponent option').length > 5")
    page.wait_for_function("document.querySelector('#opponent').value === 'engine:500'")
    page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    shifts = layout_shifts(page)
    assert sum(s["value"] for s in shifts) == 0, shifts


def test_dark_mode_and_about_box_are_accessible(browser, stack):
    ctx = browser.new_context(viewport=DESKTOP, base_url=stack.url, color_scheme="dark")
    ctx.set_default_timeout(20000)
    page = ctx.new_page()
    try:
        open_new_game(page, opponent="engine:300", youStart=True, think=0.3)
        my_turn(page)
        settled(page)
        page.keyboard.press("4")
        wait_status(page, "to_move")
        settled(page)
        assert_accessible(page, "dark mode")
        shot(page, "dark")
        page.keyboard.press("?")
        page.wait_for_function("document.querySelector('#about').open")
        page.wait_for_selector("#levels tr")
        assert_accessible(page, "About box (dark)")
        shot(page, "about_dark")
    finally:
        ctx.close()
