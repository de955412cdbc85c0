"""The page recovers by itself: the gateway restarts under it, the engine
service goes down and comes back. The game is never lost."""

from __future__ import annotations

import pytest

from tests.web.helpers import discs, game_state, my_turn, open_new_game, shot, wait_ply, wait_status


@pytest.fixture
def own_stack(stack):
    if not hasattr(stack, "engine"):
        pytest.skip("needs a stack these tests started (not C4_WEB_URL)")
    yield stack
    # whatever happened in the test, the next one finds the whole stack up
    for proc in (stack.engine, stack.gateway):
        if proc.proc is None or proc.proc.poll() is not None:
            proc.start()
    stack.wait_ready(120)


def conn_state(page, state: str, timeout: float = 30000) -> None:
    page.wait_for_function("s => document.querySelector('#conn').dataset.state === s", arg=state, timeout=timeout)


def badge_and_alert_agree(page) -> None:
    """The badge says offline exactly when the alert says the gateway cannot be reached."""
    state = page.get_attribute("#conn", "data-state")
    alert = page.inner_text("#alert") if page.is_visible("#alert") else ""
    assert (state == "offline") == ("cannot be reached" in alert), (state, alert)


def test_gateway_restart(page, own_stack):
    # the gateway really stopped and started again: what the player does meanwhile
    # is dropped and said so, never sent later
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    my_turn(page)
    page.keyboard.press("4")
    wait_ply(page, 2)
    wait_status(page, "to_move")
    conn_state(page, "open")
    before = game_state(page)

    own_stack.gateway.kill()  # a crash, not a clean stop
    conn_state(page, "offline")
    page.wait_for_function("document.querySelector('#alert').textContent.includes('cannot be reached')")
    badge_and_alert_agree(page)
    with page.expect_event("requestfailed", lambda r: r.method == "POST" and "/moves" in r.url):
        page.keyboard.press("3")
    page.wait_for_function("document.querySelector('#alert').textContent.includes('Not sent: your move in column 3')")
    my_turn(page)
    assert len(discs(page)) == 2 and page.evaluate("document.querySelector('#board').dataset.ply") == "2"
    with page.expect_event("requestfailed", lambda r: r.method == "POST" and r.url.split("?")[0].endswith("/games")):
        page.keyboard.press("n")
    page.wait_for_function("document.querySelector('#alert').textContent.includes('the new game was not started')")
    badge_and_alert_agree(page)
    shot(page, "gateway_down")

    own_stack.gateway.start()
    conn_state(page, "open", timeout=30000)  # the WebSocket came back by itself
    badge_and_alert_agree(page)
    # nothing was sent on the way back: the same game, the same moves
    st = game_state(page)
    assert (st["id"], st["moves"]) == (before["id"], before["moves"])
    my_turn(page)
    page.keyboard.press("3")
    wait_ply(page, 4)
    st = game_state(page)
    assert st["id"] == before["id"] and st["moves"][:3] == [4, before["moves"][1], 3]
    assert page.is_hidden("#alert")


def test_engine_down_then_back(page, own_stack):
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    my_turn(page)
    own_stack.engine.stop()
    page.keyboard.press("4")
    # the move is kept; the page says the engine is unavailable
    page.wait_for_function("document.querySelector('#alert').textContent.toLowerCase().includes('unavailable')", timeout=30000)
    assert game_state(page)["moves"] == [4]
    shot(page, "engine_down")
    own_stack.engine.start()
    # the engine answers when it is back, and the page shows it without a reload
    wait_ply(page, 2, timeout=120000)
    wait_status(page, "to_move")
    page.wait_for_selector("#alert", state="hidden", timeout=30000)
    my_turn(page)


def test_without_websocket_the_page_still_follows(page):
    # a proxy that refuses WebSockets: every attempt is closed at once
    page.route_web_socket("**/ws", lambda ws: ws.close())
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    my_turn(page, timeout=10000)
    conn_state(page, "reconnecting")
    page.keyboard.press("4")
    wait_ply(page, 2, timeout=15000)  # the reply arrives by asking for the state
    my_turn(page, timeout=10000)
    assert len(discs(page)) == 2


def test_a_deaf_websocket_does_not_stall_the_page(page):
    # the socket stays open and passes the first state and pongs, then nothing
    # (as when the gateway's subscription to the game's channel has failed)
    sockets = []

    def deaf(ws):
        sockets.append(ws)
        server = ws.connect_to_server()
        passed = []

        def from_server(message):
            if not passed or '"pong"' in str(message):
                passed.append(message)
                ws.send(message)
        server.on_message(from_server)

    page.route_web_socket("**/ws", deaf)
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    my_turn(page, timeout=10000)
    conn_state(page, "open")
    page.keyboard.press("4")
    wait_ply(page, 2, timeout=20000)  # the reply the socket never passed on
    my_turn(page, timeout=10000)
    assert len(discs(page)) == 2
    for _ in range(100):  # the socket that missed the reply is replaced (0.5 s back-off)
        if len(sockets) >= 2:
            break
        page.wait_for_timeout(100)
    assert len(sockets) >= 2
    shot(page, "deaf_websocket")
