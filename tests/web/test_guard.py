"""The page's "guard my moves" switch, in Debian's Chromium against the real
stack: a move into a trap is replaced by the gate's choice, the rejected
column is drawn amber and the played one green, the reasons are in words;
switched off, the same trap is played as clicked; while a seat is guarded the note's room is kept, so
showing it moves nothing."""

from __future__ import annotations

import pytest

from tests.web.helpers import (
    discs, expected_discs, game_state, layout_shifts, my_turn, saved_moves, seat_position, settled, shot, wait_ply,
    watch_layout_shifts,
)

# Red to move; yellow's c1 a2 b2 c2 make d2 its winning cell, right over the empty d1.
RED_TRAP = [7, 3, 1, 1, 2, 2, 7, 3]


def test_guard_my_moves_overrides_a_trap_and_says_why(page, stack):
    seat_position(stack, page.context, RED_TRAP, opponent="human")
    page.goto("/")
    my_turn(page)
    guard = page.locator("#guard")
    assert guard.get_attribute("aria-pressed") == "false" and guard.get_attribute("aria-label") == "Guard my moves"
    guard.click()
    page.wait_for_function("document.querySelector('#guard').getAttribute('aria-pressed') === 'true'")
    assert game_state(page)["seats"]["red"]["guarded"] is True
    page.click("#board .hit[data-col='4']")
    wait_ply(page, 9)
    page.wait_for_selector("#gate-note", state="visible")
    st = game_state(page)
    assert st["moves"] == RED_TRAP + [3] and st["override"]["proposed"] == 4
    page.wait_for_function("document.querySelectorAll('#board .discs .disc').length === 9")
    assert sorted(discs(page)) == expected_discs(RED_TRAP + [3])
    assert page.get_attribute("#board .gate-rejected", "data-col") == "4"
    assert page.get_attribute("#board .gate-played", "data-col") == "3"
    assert page.evaluate("getComputedStyle(document.querySelector('#board .gate-rejected')).stroke") == "rgb(255, 176, 0)"
    assert page.evaluate("getComputedStyle(document.querySelector('#board .gate-played')).stroke") == "rgb(0, 200, 83)"
    note = page.inner_text("#gate-note")
    board, shown = page.locator("#board").bounding_box(), page.locator("#gate-note").bounding_box()
    assert shown["y"] >= board["y"] + board["height"], (board, shown)  # under the board: it covers no cell
    assert note == ("Guard: you proposed d, the gate played c: d lands directly under the opponent's winning cell d2; "
                    "after d, the opponent wins at once with d.")
    shot(page, "guard_override", full=False)

    # the other player moves (REST): the override goes with the next person's move
    with stack.http() as http:
        gid = st["id"]
        r = http.post(f"/api/v1/games/{gid}/join", json={"invite": page.evaluate(
            f"JSON.parse(localStorage.getItem('c4.games'))['{gid}'].invite")})
        assert r.status_code == 200, r.text
        yellow = r.json()["token"]
        moved = http.post(f"/api/v1/games/{gid}/moves", json={"column": 6}, headers={"X-Player-Token": yellow})
        assert moved.status_code == 200, moved.text
    wait_ply(page, 10)
    page.wait_for_selector("#gate-note", state="hidden")
    assert page.locator("#board .gate-rejected").count() == 0

    # switched off, a move is played as clicked
    guard.click()
    page.wait_for_function("document.querySelector('#guard').getAttribute('aria-pressed') === 'false'")
    my_turn(page)
    page.click("#board .hit[data-col='1']")
    wait_ply(page, 11)
    assert saved_moves(page, 11)[-1] == 1 and game_state(page)["override"] is None


@pytest.mark.parametrize("viewport", [(1280, 860), (390, 844)], ids=["desktop", "phone"])
def test_the_guard_note_moves_nothing(page, stack, viewport):
    """A game nobody guards gives the board the note's room; once a seat is
    guarded the room is kept while the note is empty: the note shown and gone
    again shift no part of the page, and the buttons stay put."""
    page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    seat = seat_position(stack, page.context, RED_TRAP, opponent="human")
    page.goto("/")
    with stack.http() as http:  # the other player joins first (its invite row goes from the side panel)
        yellow = http.post(f"/api/v1/games/{seat['id']}/join", json={"invite": seat["invite"]}).json()["token"]
    page.wait_for_selector("#invite-row", state="hidden")
    my_turn(page)
    settled(page)
    note = page.locator("#gate-note")
    assert note.get_attribute("hidden") is not None  # nobody guards: no room kept under the board
    page.click("#guard")
    page.wait_for_function("document.querySelector('#guard').getAttribute('aria-pressed') === 'true'")
    page.wait_for_function("!document.querySelector('#gate-note').hidden")
    settled(page)
    bar = page.locator("#actions").bounding_box()
    assert not note.is_visible() and note.inner_text() == ""
    watch_layout_shifts(page)
    page.click("#board .hit[data-col='4']")
    wait_ply(page, 9)
    page.wait_for_selector("#gate-note", state="visible")
    assert note.inner_text().startswith("Guard: you proposed d, the gate played c")
    box, board = note.bounding_box(), page.locator("#board").bounding_box()
    assert box["y"] >= board["y"] + board["height"] and box["y"] + box["height"] <= bar["y"], (board, box, bar)
    # the whole note can be read: it fits its room or scrolls inside it
    assert page.evaluate("(n => n.scrollHeight <= n.clientHeight || getComputedStyle(n).overflowY === 'auto')"
                         "(document.querySelector('#gate-note'))")
    settled(page)
    shot(page, f"guard_note_{viewport[0]}", full=False)
    with stack.http() as http:  # the other player's move: the note goes
        moved = http.post(f"/api/v1/games/{seat['id']}/moves", json={"column": 6}, headers={"X-Player-Token": yellow})
        assert moved.status_code == 200, moved.text
    wait_ply(page, 10)
    page.wait_for_selector("#gate-note", state="hidden")
    settled(page)
    assert page.locator("#actions").bounding_box() == bar
    shifts = layout_shifts(page)
    assert sum(s["value"] for s in shifts) == 0, shifts
