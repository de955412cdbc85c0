"""Share links: a page watching a game another client plays over the JSON
socket bridge sees the moves and the engine's thinking as they happen."""

from __future__ import annotations

import threading

from tests.web.helpers import Bridge, discs, expected_discs, settled, shot, wait_ply


def test_watcher_sees_a_bridge_game_live(page, stack):
    bridge = Bridge(stack.bridge_port)
    try:
        reply = bridge.send(cmd="new", engine_starts=False, opponent="engine:1000", think_ms=2500)
        assert "error" not in reply, reply
        # out of the opening books, so the engine really searches
        reply = bridge.send(cmd="replay", moves=[1, 7, 1, 7], engine_starts=False)
        assert reply.get("history") == [1, 7, 1, 7], reply
        watch_url = reply["game_url"]  # this game's page (watch_url is the table's, which follows its games)
        assert reply["game"] in watch_url and reply["watch_url"].endswith(f"/tables/bridge-{stack.bridge_port}")
        page.goto(watch_url)
        page.wait_for_function("document.body.dataset.version !== undefined")
        assert page.is_visible("#mode") and page.inner_text("#mode") == "watching"
        assert not page.evaluate("document.querySelector('#board').classList.contains('interactive')")
        assert watch_url.endswith(page.evaluate("location.search"))

        # a move over the bridge waits for the engine: send it from a thread and
        # record what the page shows meanwhile (the move, the engine thinking
        # with its depth and nodes, its reply), however short the think is
        page.evaluate("""() => {
            window.seen = [];
            const note = () => window.seen.push(document.querySelector('#status').textContent + ' | ' +
                                                document.querySelector('#detail').textContent);
            new MutationObserver(note).observe(document.querySelector('.play'), {subtree: true, childList: true, characterData: true});
        }""")
        done: dict = {}
        mover = threading.Thread(target=lambda: done.update(bridge.send(cmd="move", col=4)))
        mover.start()
        wait_ply(page, 5, timeout=15000)
        try:  # a picture of the thinking, when the engine thinks long enough to take one
            page.wait_for_function("document.querySelector('#status').textContent.includes('thinking')"
                                   " && document.querySelector('#detail').textContent.includes('depth')", timeout=3000)
            shot(page, "watch_thinking", still=False)
        except Exception:
            pass
        mover.join(30)
        assert done.get("history") and len(done["history"]) == 6, done
        wait_ply(page, 6)
        settled(page)  # the panels speak of the reply once its disc has landed
        assert sorted(discs(page)) == expected_discs(done["history"])
        # the eval bar: the engine (yellow) scored its move; red's side is the opposite
        score = -done["last_search"]["score"]
        if abs(score) < 100000:
            sign = "+" if score > 0 else "\u2212" if score < 0 else ""
            assert page.inner_text("#eval-text") == f"\u2248{sign}{abs(score)}"  # ≈: an estimate
            red_share = page.evaluate("parseFloat(document.querySelector('.eval-red').dataset.share)")
            assert (red_share > 50) == (score > 0) or score == 0
        seen = page.evaluate("window.seen")
        thinking = [s for s in seen if "thinking" in s]
        assert thinking, seen
        assert any("depth" in s and "nodes" in s for s in thinking), seen
        assert "played" in page.inner_text("#detail")

        # a second move, the reply again without reloading
        reply = bridge.send(cmd="move", col=3)
        assert len(reply["history"]) == 8, reply
        wait_ply(page, 8)
        assert sorted(discs(page)) == expected_discs(reply["history"])
        # the watcher cannot move
        page.click("#board .hit[data-col='1']")
        assert "watching" in page.inner_text("#alert")
        shot(page, "watch_live")

        # the agent starts a new game: the watcher follows it on
        fresh = bridge.send(cmd="new", engine_starts=False, opponent="random")
        assert fresh["game"] != reply["game"], fresh
        assert page.wait_for_function("document.body.dataset.nextGame").json_value() == "following"
        page.wait_for_function("id => location.search.includes(id)", arg=fresh["game"], timeout=15000)
        wait_ply(page, 0)
        assert page.inner_text("#mode") == "watching"
        # opened later, the old game stays put and says where the player went
        page.goto(watch_url)
        page.wait_for_function("id => document.querySelector('#alert').textContent.includes(id)", arg=fresh["game"])
        # the page decided to name the new game, not to follow it (no move to it is scheduled)
        assert page.evaluate("document.body.dataset.nextGame") == "named"
        assert reply["game"] in page.evaluate("location.search")
    finally:
        bridge.close()


def test_two_people_through_an_invite_link(page, browser, stack):
    from tests.web.helpers import my_turn, open_new_game, wait_status

    open_new_game(page, opponent="human", youStart=True)
    page.wait_for_selector("#invite-row:not([hidden])")
    invite = page.input_value("#invite-link")
    assert "invite=" in invite
    # L gives the share link (copied, or shown to copy by hand)
    watch = page.input_value("#watch-link")
    assert watch.endswith(page.evaluate("location.search")) and "invite" not in watch
    page.keyboard.press("l")
    page.wait_for_function("u => document.querySelector('#alert').textContent.includes(u)", arg=watch)
    my_turn(page)
    page.click("#board .hit[data-col='4']")
    wait_ply(page, 1)  # drawn at once; the status follows when the gateway has taken the move
    page.wait_for_function("document.querySelector('#status').textContent.includes('Waiting for the invited player')")
    # this browser opening its own invite (another tab) keeps its seat and leaves
    # the invite to the friend (it took yellow, and red's token was lost)
    same = page.context.new_page()
    same.goto(invite)
    same.wait_for_function("document.querySelector('#alert').textContent.includes('your own game')")
    same.wait_for_function("document.querySelector('#seats').textContent.startsWith('Red: you')")
    same.close()

    other = browser.new_context(base_url=stack.url, viewport={"width": 1000, "height": 800})
    try:
        friend = other.new_page()
        friend.goto(invite)
        friend.wait_for_function("document.body.dataset.version !== undefined")
        # the invite is spent: the address bar now holds the plain share link
        assert "invite" not in friend.evaluate("location.search")
        my_turn(friend)
        assert "Your turn" in friend.inner_text("#status")
        friend.keyboard.press("d")
        wait_ply(friend, 2)
        wait_ply(page, 2)  # the first player sees it live
        my_turn(page)
        assert page.is_hidden("#invite-row")
        page.keyboard.press("3")
        wait_ply(friend, 3)
        wait_status(friend, "to_move")
        assert sorted(discs(friend)) == expected_discs([4, 4, 3])
        shot(friend, "invited_player")
        # Between people: only your own last move, before the other replied, comes back.
        assert page.is_enabled("#undo") and friend.is_disabled("#undo")
        friend.keyboard.press("u")
        friend.wait_for_function("document.querySelector('#alert').textContent.includes('own last move')")
        page.click("#undo")
        wait_ply(friend, 2)
        wait_ply(page, 2)
        friend.wait_for_function("!document.querySelector('#undo').disabled")
        assert page.is_disabled("#undo")
    finally:
        other.close()


def test_watcher_sees_an_llm_playing_over_mcp(page, stack):
    """What an LLM's MCP tool result links to: the page, following the game live."""
    import asyncio
    import queue

    from mcp import Client

    to_page: queue.Queue = queue.Queue()
    go = [threading.Event(), threading.Event()]  # one per move: the page has seen what came before

    async def agent():
        async with Client(f"{stack.url}/mcp") as mcp:
            r = await mcp.call_tool("connect4_new", {"engine_starts": False, "game": "web-llm", "opponent": "random"})
            to_page.put((r.structured_content, r.structured_content["watch_url"]))
            for col, turn in zip((4, 4), go, strict=True):
                turn.wait(30)
                r = await mcp.call_tool("connect4_move", {"col": col, "game": "web-llm"})
                to_page.put(r.structured_content)

    errors: list[BaseException] = []
    llm = threading.Thread(target=lambda: _run(asyncio, agent, errors))
    llm.start()
    try:
        state, url = to_page.get(timeout=30)
        watch = url  # the structured result's watch_url: http://.../?game=ID
        assert watch.endswith(f"/?game={state['game_id']}")
        page.goto(watch)
        page.wait_for_function("document.body.dataset.version !== undefined")
        assert page.inner_text("#mode") == "watching"
        assert "Red: LLM" in page.inner_text("#seats")
        go[0].set()
        first = to_page.get(timeout=30)
        wait_ply(page, len(first["history"]))
        go[1].set()
        second = to_page.get(timeout=30)
        wait_ply(page, len(second["history"]))
        assert sorted(discs(page)) == expected_discs(second["history"])
        shot(page, "watch_mcp")
    finally:
        for turn in go:
            turn.set()
        llm.join(30)
    assert not errors, errors


def _run(asyncio, agent, errors):
    try:
        asyncio.run(agent())
    except BaseException as exc:  # reported by the test
        errors.append(exc)
