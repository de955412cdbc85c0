"""A phone-sized viewport: the whole board fits, nothing scrolls sideways, a
tap drops a disc and the settings stay reachable."""

from __future__ import annotations

import pytest

from tests.web.helpers import discs, my_turn, open_new_game, shot, wait_ply, wait_status

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}


@pytest.fixture
def phone(browser, stack):
    ctx = browser.new_context(base_url=stack.url, **PHONE)
    ctx.set_default_timeout(20000)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    ctx.close()
    assert not errors, errors


def test_phone_viewport(phone):
    page = phone
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    my_turn(page)
    # nothing wider than the screen
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    box = page.locator("#board").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert box["width"] > 300  # and the board uses the width it has
    # every column can be tapped: hit strips at least 40 px wide
    hit = page.locator("#board .hit[data-col='1']").bounding_box()
    assert hit["width"] >= 40
    page.tap("#board .hit[data-col='4']")
    wait_ply(page, 2)
    wait_status(page, "to_move")
    assert (4, 1, 0) in discs(page)
    # the page stays where the player is: a move never scrolls the board away
    # (the move list below follows the game inside its own box)
    for ply, col in ((4, 3), (6, 5), (8, 3)):
        page.tap(f"#board .hit[data-col='{col}']")
        page.wait_for_function(f"+document.body.dataset.version >= {ply + 1} && document.body.dataset.status !== 'thinking'")
        assert page.evaluate("window.scrollY") == 0, ply
        if page.evaluate("document.body.dataset.status") == "over":
            break  # random found four in a row: the page stayed put all the same
    # the settings are on screen
    for sel in ("#new-game", "#undo", "#hints", "#solution", "#opponent", "#think"):
        b = page.locator(sel).bounding_box()
        assert b and b["x"] >= 0 and b["x"] + b["width"] <= 390, sel
    shot(page, "phone")


def test_phone_held_sideways(browser, stack):
    # 844 x 390: the settings strip is one row that scrolls sideways and the
    # whole board fits below it (it was pushed below the screen)
    ctx = browser.new_context(base_url=stack.url, **dict(PHONE, viewport={"width": 844, "height": 390}))
    ctx.set_default_timeout(20000)
    page = ctx.new_page()
    try:
        open_new_game(page, opponent="random", youStart=True, think=0.05)
        my_turn(page)
        box = page.locator("#board").bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= 390, box
        assert page.evaluate("document.documentElement.scrollWidth") <= 844
        page.locator("#solution").scroll_into_view_if_needed()  # the strip scrolls to its last button
        page.tap("#solution")
        page.wait_for_function("document.querySelector('#solution').getAttribute('aria-pressed') === 'true'")
        page.tap("#board .hit[data-col='4']")
        wait_ply(page, 2)
        shot(page, "phone_sideways")
        # the About box is taller than the screen: it opens at its top (title, version), not at Close
        page.tap("#about-btn")
        page.wait_for_function("document.querySelector('#about').open")
        assert page.evaluate("document.querySelector('#about').scrollTop") == 0
        assert page.locator("#version").is_visible() and page.locator("#version").bounding_box()["y"] >= 0
    finally:
        ctx.close()
