"""Offline in the browser's own sense (Playwright's offline mode): every action
taken offline is dropped and said so (never sent later), the badge and the
alert agree, and the game goes on when the connection is back."""

from __future__ import annotations

from tests.web.helpers import (discs, game_state, layout_shifts, my_turn, open_new_game, settled, shot, wait_ply,
                               watch_layout_shifts)
from tests.web.test_recovery import badge_and_alert_agree, conn_state


def test_actions_taken_offline_are_dropped_visibly(page):
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    my_turn(page)
    page.keyboard.press("4")
    page.wait_for_function("+document.body.dataset.version >= 3")
    settled(page)
    conn_state(page, "open")
    before = game_state(page)

    page.context.set_offline(True)
    conn_state(page, "offline")
    badge_and_alert_agree(page)
    my_turn(page)
    page.keyboard.press("3")
    page.wait_for_function("document.querySelector('#alert').textContent.includes('Not sent: your move in column 3')")
    badge_and_alert_agree(page)
    my_turn(page)  # the disc went away again: the board takes a move
    assert len(discs(page)) == 2
    page.keyboard.press("n")
    page.wait_for_function("document.querySelector('#alert').textContent.includes('the new game was not started')")
    page.keyboard.press("h")
    page.wait_for_function("document.querySelector('#alert').textContent.includes('the hint rings switch')")
    assert page.get_attribute("#hints", "aria-pressed") == "false"
    shot(page, "offline")

    page.context.set_offline(False)
    conn_state(page, "open")
    badge_and_alert_agree(page)
    # back: nothing of the above was sent (same game, same moves, no hints)
    st = game_state(page)
    assert (st["id"], st["moves"], st["hints_on"]) == (before["id"], before["moves"], False)
    assert page.evaluate("new URLSearchParams(location.search).get('game')") == before["id"]
    my_turn(page)
    page.keyboard.press("3")
    wait_ply(page, 4)
    st = game_state(page)
    assert st["id"] == before["id"] and st["moves"][:3] == [4, before["moves"][1], 3]


def test_the_badge_changing_state_moves_nothing(page):
    """'live', 'offline', 'reconnecting…' differ in width: the badge keeps one box, so no state
    change of the connection is a layout shift (a resignation test once saw it move by 61 px)."""
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    my_turn(page)
    conn_state(page, "open")
    box = page.locator("#conn").bounding_box()
    watch_layout_shifts(page)
    page.context.set_offline(True)
    conn_state(page, "offline")
    assert page.locator("#conn").bounding_box() == box
    page.evaluate("""() => { const t = document.querySelector('#conn .conn-text');
                          t.textContent = 'reconnecting…'; return t.offsetWidth; }""")
    assert page.locator("#conn").bounding_box() == box
    page.context.set_offline(False)
    conn_state(page, "open")
    assert page.locator("#conn").bounding_box() == box
    badge = {"conn", "dot", "conn-text"}
    assert [s for s in layout_shifts(page) if any(src["node"] in badge for src in s["sources"])] == []
