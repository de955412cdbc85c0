"""A move pressed just as the game changed elsewhere: the page moves on the version
it saw, the gateway answers conflict with the newer game in the answer.
- The other person joined: the position is the same, so the page sends the move
  again instead of dropping it (seen under CI load: "1" on a 7 x 6 board between
  people was lost).
- More changes that keep the position race the move sent again (the other person
  switched a hint, the page's own "H"): sent again each time, within a bound
  (seen under CI load: "1" then "h" on a 7 x 6 board between people, lost).
- The same seat moved from another tab: the position changed, the move is not sent
  again and the page shows the newer game.
Either way the page uses the state the conflict answer carries: it loads nothing."""

from __future__ import annotations

import time

from tests.web.helpers import my_turn, saved_moves, seat_position, wait_ply


def record_calls(page, gid: str) -> list[str]:
    """'GET' / 'MOVE' for every load of the game and every move the page sends, in order."""
    calls: list[str] = []
    game = f"/api/v1/games/{gid}"

    def seen(request) -> None:
        path = request.url.split("?")[0]
        if request.method == "GET" and path.endswith(game):
            calls.append("GET")
        elif request.method == "POST" and path.endswith(game + "/moves"):
            calls.append("MOVE")
    page.on("request", seen)
    return calls


def test_a_move_pressed_as_the_other_person_joins_is_played(page, stack):
    seat = seat_position(stack, page.context, [], opponent="human", width=7, height=6)
    page.route_web_socket("**/ws", lambda ws: None)  # open and silent: the join's state never reaches the page
    page.goto("/")
    my_turn(page)
    seen = page.evaluate("+document.body.dataset.version")
    with stack.http() as http:
        r = http.post(f"/api/v1/games/{seat['id']}/join", json={"invite": seat["invite"]})
        assert r.status_code == 200, r.text
        assert r.json()["state"]["version"] > seen  # the page's version is stale now
    calls = record_calls(page, seat["id"])
    page.keyboard.press("4")
    wait_ply(page, 1)
    deadline = time.monotonic() + 30
    while calls.count("MOVE") < 2 and time.monotonic() < deadline:  # the move sent again (saved_moves' own
        page.wait_for_timeout(50)                                    # loads below would be recorded too)
    assert calls[:2] == ["MOVE", "MOVE"], calls  # sent again on the conflict's own state, nothing loaded between
    assert saved_moves(page, 1) == [4]


def test_a_move_raced_again_while_it_is_sent_again_is_played(page, stack):
    seat = seat_position(stack, page.context, [], opponent="human", width=7, height=6)
    page.route_web_socket("**/ws", lambda ws: None)  # open and silent: the page learns only from its answers
    held = []

    def hold_the_second_send(route) -> None:
        held.append(route)
        if len(held) != 2:
            route.continue_()
    page.route("**/moves*", hold_the_second_send)
    page.goto("/")
    my_turn(page)
    with stack.http() as http:
        r = http.post(f"/api/v1/games/{seat['id']}/join", json={"invite": seat["invite"]})
        assert r.status_code == 200, r.text
        yellow = r.json()["token"]
        page.keyboard.press("4")  # sent on the version before the join: conflict, sent again
        deadline = time.monotonic() + 30
        while len(held) < 2 and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        assert len(held) == 2, held
        before = r.json()["state"]["version"]
        r = http.post(f"/api/v1/games/{seat['id']}/hints", json={"on": True}, headers={"X-Player-Token": yellow})
        assert r.status_code == 200, r.text
        assert (r.json().get("state") or r.json())["version"] > before  # the second send's version is stale too now
    held[1].continue_()
    assert saved_moves(page, 1) == [4]
    assert len(held) == 3, held  # sent a third time, on the second conflict's own state


def test_a_move_pressed_after_the_same_seat_moved_elsewhere_shows_the_newer_game(page, stack):
    seat = seat_position(stack, page.context, [], opponent="human", width=7, height=6)
    page.route_web_socket("**/ws", lambda ws: None)  # open and silent: the other tab's move never reaches the page
    page.goto("/")
    my_turn(page)
    with stack.http() as http:
        r = http.post(f"/api/v1/games/{seat['id']}/moves", json={"column": 3},
                      headers={"X-Player-Token": seat["token"]})
        assert r.status_code == 200, r.text
        newer = (r.json().get("state") or r.json())["version"]
    calls = record_calls(page, seat["id"])
    page.keyboard.press("4")
    page.wait_for_function("v => +document.body.dataset.version >= v", arg=newer)
    page.wait_for_function("document.getElementById('alert').textContent.includes('changed at the same moment')")
    loaded_by_then = list(calls)
    assert loaded_by_then == ["MOVE"], loaded_by_then  # the conflict's state shown, not loaded, the move not sent again
    assert saved_moves(page, 1) == [3]
