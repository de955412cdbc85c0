"""Settings apply on Start (size and line together; an invalid combination is
explained beside the fields and changes nothing), levels with names, and
bad input (a crafted watch link or invite, a too-large size, a gateway error)
that leaves the current game intact."""

from __future__ import annotations

import json

from tests.web.helpers import (
    discs, expected_discs, game_id, game_state, my_turn, open_new_game, settled, shot, wait_ply,
)


def test_size_fields_apply_together_on_start(page):
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    my_turn(page)
    first = game_id(page)
    saved = page.evaluate("localStorage.getItem('c4.settings')")
    page.fill("#width", "17")  # alone, this used to start a game at once
    page.fill("#height", "7")  # 17 x 7 is off the limits: said beside the fields, nothing else
    page.wait_for_function("document.querySelector('#size-error').textContent.includes('off the limits')")
    assert page.get_attribute("#width", "aria-invalid") == "true"
    page.click("#start")
    assert "1 to 16 columns and 1 to 16 rows" in page.inner_text("#size-error")
    assert game_id(page) == first and game_state(page)["width"] == 7
    assert page.evaluate("localStorage.getItem('c4.settings')") == saved
    shot(page, "settings_invalid")
    # a field keeps what is typed; Enter (Start) applies all three together
    page.fill("#width", "9")
    page.fill("#height", "6")
    page.fill("#k", "5")
    page.wait_for_function("document.querySelector('#size-error').textContent === ''")
    page.press("#k", "Enter")
    page.wait_for_function("id => !location.search.includes(id)", arg=first)
    st = game_state(page)
    assert (st["width"], st["height"], st["k"]) == (9, 6, 5)
    # the focus left the field: a column key plays, it does not type into Line
    my_turn(page)
    page.keyboard.press("9")
    wait_ply(page, 2)
    assert (9, 1, 0) in discs(page) and page.input_value("#k") == "5"


def test_a_too_large_size_typed_changes_nothing(page):
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    my_turn(page)
    page.keyboard.press("4")
    page.wait_for_function("+document.body.dataset.version >= 3")
    settled(page)
    before = game_state(page)
    page.fill("#width", "99")
    page.press("#width", "Enter")
    page.wait_for_function("document.querySelector('#size-error').textContent.includes('1 to 16 columns')")
    after = game_state(page)
    assert (after["id"], after["version"], after["moves"]) == (before["id"], before["version"], before["moves"])
    assert sorted(discs(page)) == expected_discs(before["moves"])


def test_levels_have_names_with_the_spec_in_the_tooltip(page):
    open_new_game(page, opponent="engine:1000", youStart=True, think=1)
    page.wait_for_function("document.querySelectorAll('#opponent option').length > 5")
    options = page.evaluate(
        "[...document.querySelectorAll('#opponent option')].map(o => [o.value, o.textContent, o.title])")
    names = {v: (t, title) for v, t, title in options}
    assert names["random"][0] == "Beginner" and names["random"][1].startswith("random: ")
    assert names["engine:1000"][0] == "Engine 1 s" and "engine:1000" in names["engine:1000"][1]
    assert names["perfect"][0] == "Perfect"
    # the ladder's counted and regime players (issue 25) are offered, named from their family
    assert names["search"][0] == "Search" and names["clairvoyant:greedy"][0] == "Clairvoyant greedy"
    assert {"solver", "alphabeta", "expectimax", "noisy_greedy"} <= set(names), names
    assert all(not t.startswith(("engine:", "mcts:", "minimax:")) for t, _ in names.values()), names
    # the About box lists each level with its spec
    page.keyboard.press("?")
    page.wait_for_selector("#levels tr")
    rows = page.locator("#levels tr").all_inner_texts()
    assert any(r.startswith("Engine 1 s") and "engine:1000" in r for r in rows), rows
    page.keyboard.press("Escape")
    # messages name the level in sentences
    my_turn(page)
    page.keyboard.press("4")
    page.wait_for_function("document.querySelector('#detail').textContent.startsWith('Engine 1 s played')",
                           timeout=30000)


def test_a_watch_link_to_a_missing_game_says_so_and_keeps_yours(page):
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    my_turn(page)
    page.keyboard.press("4")
    page.wait_for_function("+document.body.dataset.version >= 3")
    mine = game_state(page)
    page.goto("/?game=doesnotexist0")
    page.wait_for_function("document.body.dataset.status === 'missing'")
    assert "does not exist" in page.inner_text("#alert") and mine["id"] in page.inner_text("#alert")
    assert "There is no game" in page.inner_text("#status")
    shot(page, "missing_game")
    # a crafted invite for a missing game: the same, and the own game is still there
    page.goto("/?game=doesnotexist1&invite=forged")
    page.wait_for_function("document.body.dataset.status === 'missing'")
    assert "invite link" in page.inner_text("#alert")
    page.goto(f"/?game={mine['id']}")
    page.wait_for_function("id => document.body.dataset.status === 'to_move'", arg=mine["id"])
    st = game_state(page)
    assert (st["id"], st["moves"]) == (mine["id"], mine["moves"])
    assert page.evaluate("document.querySelector('#board').classList.contains('interactive')")


def test_a_gateway_error_answer_is_shown_and_the_game_kept(page):
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    my_turn(page)
    before = game_state(page)
    # a request the gateway refuses (a column it validates away), its error answer shown as it comes
    body = json.dumps({"column": 0, "version": before["version"], "wait": False})
    page.route("**/moves*", lambda route: route.continue_(post_data=body))
    page.keyboard.press("3")
    page.wait_for_selector("#alert:not([hidden])")
    text = page.inner_text("#alert")
    assert text[0].isupper() and text.rstrip().endswith((".", "!")), text
    page.unroute("**/moves*")
    st = game_state(page)
    assert (st["version"], st["moves"]) == (before["version"], before["moves"])
    my_turn(page)
    assert sorted(discs(page)) == expected_discs(game_state(page)["moves"])


def test_a_file_that_cannot_load_is_said_on_the_page(page):
    # one module of the page fails to arrive (a network drop while loading)
    page.route("**/js/api.js", lambda route: route.abort("internetdisconnected"))
    page.goto("/")
    page.wait_for_function("document.body.dataset.status === 'load_failed'")
    assert "reload it" in page.inner_text("#status")
    page.unroute("**/js/api.js")
