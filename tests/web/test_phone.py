"""A phone-sized viewport: the board starts within the first 120 px and fits,
nothing scrolls sideways, a tap drops a disc, every control (a column's tap
strip too, the About box's) is at least 44 x 44 px, the settings are in a
drawer; the same phone held sideways."""

from __future__ import annotations

import pytest

from tests.web.helpers import assert_accessible, discs, my_turn, open_new_game, shot, wait_ply, wait_status

# every control a finger can reach: its bounding box, when it is shown
SMALL_CONTROLS = """() => [...document.querySelectorAll(
      'button, select, input, a[href], [tabindex]:not([tabindex="-1"])')]
  .filter(e => e.id !== 'board' && e.checkVisibility({visibilityProperty: true}))
  .map(e => { const r = e.getBoundingClientRect();
              return {id: e.id || e.textContent.trim().slice(0, 20), w: r.width, h: r.height}; })
  .filter(b => b.w > 0 && (b.w < 44 || b.h < 44))"""

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
    assert hit["width"] >= 44 and hit["height"] >= 44, hit
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
    # the board starts near the top; every control is big enough for a finger
    assert page.locator("#board").bounding_box()["y"] <= 120
    assert page.evaluate(SMALL_CONTROLS) == []
    for sel in ("#new-game", "#undo", "#hints", "#solution"):
        b = page.locator(sel).bounding_box()
        assert b and b["x"] >= 0 and b["x"] + b["width"] <= 390, sel
    shot(page, "phone")
    # the settings are in a drawer: closed, nothing of it is reachable; open, all of it is, at 44 px
    assert not page.locator("#opponent").is_visible()
    page.tap("#settings-btn")
    page.wait_for_function("document.querySelector('#settings').classList.contains('open')")
    page.wait_for_function("document.getAnimations().every(a => a.playState !== 'running')")
    for sel in ("#opponent", "#starts", "#width", "#height", "#k", "#think", "#start", "#sound"):
        b = page.locator(sel).bounding_box()
        assert b and b["x"] >= 0 and b["x"] + b["width"] <= 390 and b["height"] >= 44, (sel, b)
    assert page.evaluate(SMALL_CONTROLS) == []
    assert_accessible(page, "phone, settings drawer open")
    shot(page, "phone_drawer")
    page.keyboard.press("Escape")
    page.wait_for_function("!document.querySelector('#settings').classList.contains('open')")
    # the About box: its controls at 44 px too
    page.tap("#about-btn")
    page.wait_for_function("document.querySelector('#about').open")
    assert page.evaluate(SMALL_CONTROLS) == []
    shot(page, "phone_about")


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
        assert page.evaluate(SMALL_CONTROLS) == []
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
