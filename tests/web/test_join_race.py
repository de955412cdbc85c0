"""A move pressed just as the other person joins: the page moves on the version
it saw, the join made a newer one, and the gateway answers conflict. The
position is the same, so the page sends the move again instead of dropping it
(seen under CI load: "1" on a 7 x 6 board between people was lost)."""

from __future__ import annotations

from tests.web.helpers import my_turn, saved_moves, seat_position, wait_ply


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
    page.keyboard.press("4")
    wait_ply(page, 1)
    assert saved_moves(page, 1) == [4]
