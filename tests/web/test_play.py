"""Playing in the browser: whole games by clicks and by keys, the ghost and the
drop, undo (also while the engine thinks), refused moves."""

from __future__ import annotations

from connect4.hints import hints
from connect4.position import Position

from tests.web.helpers import (
    discs, expected_discs, game_state, gateway_log, my_turn, open_new_game, seat_position, settled, shot, use_settings,
    wait_ply,
    wait_ply_at_least, wait_status,
)


def choose(moves: list[int], width: int = 7) -> int:
    """A sensible human: win now, else block, else the most central safe column (1-based)."""
    pos = Position.from_moves([m - 1 for m in moves])
    h = hints(pos)
    if h.winning_moves:
        return h.winning_moves[0] + 1
    if h.must_block:
        return h.must_block[0] + 1
    legal = sorted(pos.legal_moves(), key=lambda c: abs(c - (width - 1) / 2))
    safe = [c for c in legal if c not in h.losing_moves] or legal
    return safe[0] + 1


def play_to_end(page, press) -> dict:
    """Play until the game is over; `press(col)` makes one move on the page."""
    for _ in range(30):
        status = wait_status(page, "to_move", "over")
        if status == "over":
            break
        my_turn(page)
        st = game_state(page)
        press(choose(st["moves"]))
        wait_ply_at_least(page, st["ply"] + 1)
        # and the gateway took it (the disc is drawn before it answers)
        page.wait_for_function("v => Number(document.body.dataset.version) > v", arg=st["version"])
    assert wait_status(page, "over") == "over"
    return game_state(page)


def check_finished_board(page, st: dict) -> None:
    wait_ply(page, st["ply"])
    assert sorted(discs(page)) == expected_discs(st["moves"])
    status = page.inner_text("#status")
    winner = st["result"]["winner"]
    if winner is None:
        assert "Draw" in status
    else:
        assert ("You win!" in status) if winner == st["you"] else ("wins." in status)
        # the winning line is highlighted: a stroke and every cell of it
        assert page.locator("#board .win-line").count() == 1
        cells = page.evaluate("[...document.querySelectorAll('#board .win-cell')].map(c => [+c.dataset.col, +c.dataset.row])")
        assert sorted(map(tuple, cells)) == sorted(map(tuple, st["winning_cells"]))
        assert len(cells) >= 4
    # the move list has every move
    assert page.locator("#move-list li").count() == st["ply"]


def test_whole_game_by_clicks(page):
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    st = play_to_end(page, lambda col: page.click(f"#board .hit[data-col='{col}']"))
    st["you"] = "red"
    check_finished_board(page, st)
    # the board refuses further moves, with a message
    page.click("#board .hit[data-col='1']")
    assert "over" in page.inner_text("#alert")
    shot(page, "game_by_clicks")


def test_whole_game_by_keys_swap_and_think_time(page):
    open_new_game(page, opponent="random", youStart=True, think=1)
    first_game = page.evaluate("location.search")
    # + and - double and halve the think time
    assert page.inner_text("#think-value") == "1 s"
    assert "unused" in page.get_attribute("label.think", "class")  # random plays at once whatever the time
    page.keyboard.press("+")
    assert page.inner_text("#think-value") == "2 s"
    page.keyboard.press("-")
    page.keyboard.press("-")
    page.keyboard.press("-")
    assert page.inner_text("#think-value") == "250 ms"
    # Space and Enter on the focused slider are the slider's, not a drop
    page.focus("#think")
    page.keyboard.press(" ")
    page.keyboard.press("Enter")
    assert page.get_attribute("#board", "data-ply") == "0" and game_state(page)["ply"] == 0
    # S swaps who starts and restarts: the opponent (random) opens
    page.keyboard.press("s")
    page.wait_for_function("s => location.search !== s", arg=first_game)
    wait_ply(page, 1)
    assert page.input_value("#starts") == "them"
    st = game_state(page)
    assert st["seats"]["red"]["kind"] == "opponent" and st["think_ms"] == 250
    # the opponent's opening move is not yours to take back
    assert page.is_disabled("#undo")
    page.keyboard.press("u")
    assert "You have no move to take back" in page.inner_text("#alert")

    turn = {"n": 0}

    def press(col):  # alternate digits and letters
        turn["n"] += 1
        page.keyboard.press(str(col) if turn["n"] % 2 else "abcdefg"[col - 1])

    st = play_to_end(page, press)
    st["you"] = "yellow"
    wait_ply(page, st["ply"])
    assert sorted(discs(page)) == expected_discs(st["moves"])
    assert page.locator("#move-list li").count() == st["ply"]
    shot(page, "game_by_keys")


def test_ghost_and_drop(page):
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    my_turn(page)
    page.hover("#board .hit[data-col='3']")
    ghost = page.locator("#board .ghosts .ghost")
    assert ghost.count() == 1
    assert ghost.get_attribute("data-col") == "3" and ghost.get_attribute("data-row") == "1"
    opacity = float(page.evaluate("getComputedStyle(document.querySelector('#board .ghost')).opacity"))
    assert 0.2 < opacity < 0.8  # translucent
    shot(page, "ghost")
    # the drop: the new disc falls from above the board to its cell
    page.click("#board .hit[data-col='3']")
    falling = page.evaluate("""() => {
        const d = document.querySelector('#board .discs .disc[data-col="3"][data-row="1"]');
        return {animations: d.getAnimations().length, y: d.getBoundingClientRect().y};
    }""")
    assert falling["animations"] >= 1
    wait_ply(page, 2)
    page.wait_for_function("document.querySelector('#board .discs .disc[data-col=\"3\"][data-row=\"1\"]').getAnimations().length === 0")
    landed = page.evaluate("document.querySelector('#board .discs .disc[data-col=\"3\"][data-row=\"1\"]').getBoundingClientRect().y")
    assert falling["y"] < landed - 50  # it started well above its cell
    # the last move (the opponent's reply) is marked, once its disc has landed
    settled(page)
    st = game_state(page)
    last = st["moves"][-1]
    mark = page.evaluate("(() => { const c = document.querySelector('#board .last-move'); "
                         "return [+c.getAttribute('cx'), +c.getAttribute('cy')]; })()")
    assert abs(mark[0] - (last - 0.5) * 100) < 1
    # no ghost while it is not our turn, and it comes back on our turn
    my_turn(page)
    page.hover("#board .hit[data-col='5']")
    assert page.locator("#board .ghosts .ghost").get_attribute("data-col") == "5"


def test_undo_also_while_the_engine_thinks(page, stack):
    # out of the opening books, so the engine searches (and reports its depths)
    start = [1, 7, 1, 7]
    use_settings(page.context, opponent="engine:1000", youStart=True, think=4)
    seat_position(stack, page.context, start, opponent="engine:1000", think_ms=4000)
    page.goto("/")
    my_turn(page)
    assert "unused" not in page.get_attribute("label.think", "class")
    page.keyboard.press("4")
    wait_status(page, "thinking")
    page.wait_for_function("document.querySelector('#detail').textContent.includes('depth')", timeout=15000)
    log = gateway_log(stack)
    page.keyboard.press("u")
    wait_ply(page, 4)
    wait_status(page, "to_move")
    if log is not None:  # the gateway says it dropped the search (or its answer) for this game
        log.wait_for(f'"game": "{game_state(page)["id"]}"',
                     any_of=("opponent search stopped", "opponent answer discarded"))
    assert game_state(page)["moves"] == start and sorted(discs(page)) == expected_discs(start)
    # undo after the reply: back to our previous turn
    page.keyboard.press("-")
    page.keyboard.press("-")
    page.keyboard.press("-")
    page.keyboard.press("-")
    page.keyboard.press("-")
    page.keyboard.press("n")  # the think time applies from the next game
    page.wait_for_function("document.querySelector('#seats').textContent.includes('125 ms')")
    my_turn(page)
    page.click("#board .hit[data-col='4']")
    wait_ply(page, 2)
    wait_status(page, "to_move")
    page.click("#undo")
    wait_ply(page, 0)
    assert game_state(page)["ply"] == 0
    shot(page, "undo")


def test_hints_during_the_think_keep_its_live_progress(page, stack):
    # H makes a new version but the gateway keeps the search: its progress
    # messages still name the old version and were dropped, the detail went blank
    use_settings(page.context, opponent="engine:1000", youStart=True, think=6)
    seat_position(stack, page.context, [1, 7, 1, 7], opponent="engine:1000", think_ms=6000)
    page.goto("/")
    my_turn(page)
    page.keyboard.press("4")
    wait_status(page, "thinking")
    page.wait_for_function("document.querySelector('#detail').textContent.includes('depth')", timeout=15000)
    page.keyboard.press("h")
    page.wait_for_function("document.querySelector('#hints').getAttribute('aria-pressed') === 'true'")
    status, detail = page.evaluate("[document.body.dataset.status, document.querySelector('#detail').textContent]")
    assert status == "thinking", "the engine answered before the test could look"
    assert "depth" in detail
    # the live counts are not read out at every depth: the line is busy while they change
    assert page.get_attribute("#detail", "aria-busy") == "true"
    shot(page, "hints_during_think", still=False)
    page.keyboard.press("u")  # stop the search for the tests after this one
    wait_status(page, "to_move")
    assert page.get_attribute("#detail", "aria-busy") == "false"


def test_refused_moves_say_why_and_keep_the_game(page, stack):
    seat_position(stack, page.context, [4, 4, 4, 4, 4, 4], opponent="human")
    page.goto("/")
    my_turn(page)
    page.click("#board .hit[data-col='4']")  # full
    page.wait_for_selector("#alert:not([hidden])")
    assert "full" in page.inner_text("#alert")
    page.keyboard.press("9")  # not on a 7-column board
    page.wait_for_function("document.querySelector('#alert').textContent.includes('9')")
    assert game_state(page)["moves"] == [4, 4, 4, 4, 4, 4]
    assert sorted(discs(page)) == expected_discs([4, 4, 4, 4, 4, 4])
    shot(page, "refused_move")


PONS = [int(c) for c in "7422341735647741166133573473242566"]  # red to move wins (Pons' test set)


def test_engine_sees_a_forced_win(page, stack):
    seat_position(stack, page.context, PONS, opponent="engine:500", think_ms=500)
    page.goto("/")
    my_turn(page)
    page.click("#board .hit[data-col='1']")  # throws the win away
    wait_ply(page, len(PONS) + 2)
    wait_status(page, "to_move")
    page.wait_for_function("document.querySelector('#status').textContent.includes('Engine 500 ms sees a forced win!')")
    assert page.inner_text("#eval-text") == "#Y"  # a proven win for yellow fills the bar
    assert page.evaluate("parseFloat(document.querySelector('.eval-red').dataset.share)") == 0
    shot(page, "forced_win")


def test_a_won_game_drops_the_forecast(page, stack):
    # yellow (the engine) has 4, 5, 6 on the bottom row; red looks away and it wins at once
    seat_position(stack, page.context, [1, 4, 1, 5, 2, 6], opponent="engine:500", think_ms=500)
    page.goto("/")
    my_turn(page)
    page.keyboard.press("1")
    wait_status(page, "over")
    # "engine:500 wins. Engine sees a forced win!" read as if the game went on; the level has a name
    assert page.inner_text("#status").strip() == "Engine 500 ms wins."
    assert "proven win" in page.inner_text("#detail")
    shot(page, "engine_won")


def test_engine_notes_go_to_the_detail_line(page, stack):
    # greedy's note "blocks" is about its own move: on the status line it read "Your turn. blocks"
    seat_position(stack, page.context, [1, 7, 2, 7], opponent="greedy")
    page.goto("/")
    my_turn(page)
    page.keyboard.press("3")  # three in a row: greedy blocks at 4
    wait_ply(page, 6)
    wait_status(page, "to_move")
    assert (4, 1, 1) in discs(page)
    assert page.inner_text("#status").strip() == "Your turn."
    assert page.inner_text("#detail").endswith("blocks")
    shot(page, "engine_note")


def test_engine_resigns_when_it_proves_its_loss(page, stack):
    # red (the engine) is to move and lost: after Pons' position, red's blunder and yellow's best reply
    seat_position(stack, page.context, PONS + [1, 1], opponent="engine:1000", think_ms=500, you="yellow")
    page.goto("/")
    wait_status(page, "over")
    status = page.inner_text("#status")
    assert "You win!" in status and "resign" in status
    # named as on the status line, with the budget the think time gave it
    assert page.inner_text("#detail").startswith("Engine 1 s resigned instead of playing")
    assert "budget 500 ms" in page.inner_text("#detail")
    assert page.inner_text("#eval-text") == "#Y"
    shot(page, "resigns")


def test_board_size_and_line_length(page):
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    my_turn(page)
    # past 16 columns: refused with a reason naming the limits, the game stays
    page.fill("#width", "17")
    page.fill("#height", "7")
    page.click("#start")
    page.wait_for_function("document.querySelector('#size-error').textContent.includes('off the limits')")
    page.fill("#width", "8")
    page.fill("#k", "5")
    page.click("#start")
    page.wait_for_function("document.querySelector('#seats').textContent.includes('8 × 7, line 5')")
    assert page.locator("#board .hit").count() == 8
    # the strip of column numbers grows with the board: 34 units at 7 wide, x 8/7 here
    assert page.get_attribute("#board", "viewBox").split()[3] == str(70 + 7 * 100 + round(34 * 8 / 7))
    st = game_state(page)
    assert (st["width"], st["height"], st["k"]) == (8, 7, 5)
    my_turn(page)
    page.keyboard.press("8")
    wait_ply(page, 2)
    assert (8, 1, 0) in discs(page)
    shot(page, "board_8x7_line5")


def test_a_stored_board_too_big_says_what_to_do(page):
    # 17 x 7 is past the 16 x 16 limit: the page starts no game and says why, instead of "Loading…"
    use_settings(page.context, opponent="random", youStart=True, width=17, height=7, k=4, think=0.05)
    page.goto("/")
    page.wait_for_function("document.querySelector('#status').textContent.includes('Choose a smaller board')")
    assert "off the limits: 1 to 16 columns and 1 to 16 rows" in page.inner_text("#alert")
    page.fill("#width", "9")
    page.fill("#height", "6")
    page.press("#height", "Enter")
    page.keyboard.press("Escape")  # out of the field: the game's keys again
    page.keyboard.press("n")
    my_turn(page)
    assert (game_state(page)["width"], game_state(page)["height"]) == (9, 6)
    shot(page, "board_too_big_then_9x6")


def test_a_16x16_board_plays_and_fits_a_phone(page):
    page.set_viewport_size({"width": 390, "height": 844})
    use_settings(page.context, opponent="random", youStart=True, width=16, height=16, k=5, think=0.05)
    page.goto("/")
    my_turn(page)
    assert page.locator("#board .hit").count() == 16
    box = page.locator("#board").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box  # no overflow sideways
    cell = box["width"] / 16
    assert cell >= 18, box  # a cell is at least 18 CSS pixels wide on a 390-wide phone
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    label = page.locator("#board .col-labels text").last.bounding_box()
    assert label["height"] >= 9, label  # column numbers grow with the board: readable at 16 columns
    page.locator("#board .hit").nth(15).click()  # column 16 by a tap (keys: tests/web/test_wide_keys.py)
    wait_ply(page, 2)
    assert game_state(page)["moves"][0] == 16
    shot(page, "board_16x16_phone")
    page.set_viewport_size({"width": 1280, "height": 860})  # and on a desktop
    wide = page.locator("#board").bounding_box()
    assert wide["width"] / 16 >= 30 and page.evaluate("document.documentElement.scrollWidth") <= 1280, wide
    shot(page, "board_16x16_desktop", full=False)


def test_perfect_opponent_and_about_box(page, stack):
    seat_position(stack, page.context, PONS, opponent="perfect", think_ms=2000)
    page.goto("/")
    my_turn(page)
    page.keyboard.press("2")  # keeps the win
    wait_ply(page, len(PONS) + 2)
    page.wait_for_function("document.querySelector('#detail').textContent.includes('Perfect played')")
    # the About box: version and keys
    page.keyboard.press("?")
    page.wait_for_selector("#about[open]")
    ply = game_state(page)["ply"]
    page.keyboard.press("1")  # the game's keys wait while the box is open
    page.keyboard.press("n")
    assert game_state(page)["ply"] == ply and page.is_visible("#about")
    assert page.inner_text("#version").startswith("0.")
    keys = page.inner_text("#keys")
    for key in ("N", "S", "U", "H", "X", "M", "Home"):
        assert key in keys
    shot(page, "about")
    page.keyboard.press("Escape")
    page.wait_for_selector("#about:not([open])", state="attached")
