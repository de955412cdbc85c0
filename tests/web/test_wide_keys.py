"""Keys for the columns past 9, in Debian's Chromium against the real stack: the
column's number typed as two digits ("1" "2": column 12), "1" alone plays column
1 after a moment or at once with Enter; keys typed into a settings field neither
play nor are lost; a 7 x 6 board keeps its one-key digits; the About box says it."""

from __future__ import annotations

from tests.web.helpers import my_turn, saved_moves, seat_position, wait_ply


def people_game(page, stack, width: int):
    """A game between people at `width` x 6: the page is red, yellow plays over REST."""
    seat = seat_position(stack, page.context, [], opponent="human", width=width, height=6)
    page.goto("/")
    my_turn(page)
    with stack.http() as http:
        r = http.post(f"/api/v1/games/{seat['id']}/join", json={"invite": seat["invite"]})
        assert r.status_code == 200, r.text
    yellow = r.json()["token"]

    def answer(col: int, ply: int) -> None:
        """Wait for the page's move `ply` to be saved, then yellow plays `col`."""
        wait_ply(page, ply)
        assert len(saved_moves(page, ply)) == ply  # drawn before its save is answered: wait for the save
        with stack.http() as http:
            moved = http.post(f"/api/v1/games/{seat['id']}/moves", json={"column": col},
                              headers={"X-Player-Token": yellow})
            assert moved.status_code == 200, moved.text
        wait_ply(page, ply + 1)
        my_turn(page)

    return answer


def test_two_digits_reach_columns_10_to_16(page, stack):
    answer = people_game(page, stack, width=16)
    page.keyboard.press("1")
    page.keyboard.press("6")
    answer(8, 1)
    page.keyboard.press("1")
    page.keyboard.press("0")
    answer(8, 3)
    page.keyboard.press("1")
    page.keyboard.press("Enter")  # column 1 at once
    answer(8, 5)
    page.keyboard.press("1")  # column 1 after the pause
    answer(9, 7)
    page.keyboard.press("9")  # past 1 a digit is its column at once
    wait_ply(page, 9)
    assert saved_moves(page, 9) == [16, 8, 10, 8, 1, 8, 1, 9, 9]


def test_a_second_digit_off_the_board_plays_column_1_then_itself(page, stack):
    answer = people_game(page, stack, width=12)
    page.keyboard.press("1")
    page.keyboard.press("3")  # no column 13 on 12: column 1; the 3 finds yellow to move and is not played
    answer(5, 1)
    page.keyboard.press("1")
    page.keyboard.press("2")
    wait_ply(page, 3)
    assert saved_moves(page, 3) == [1, 5, 12]


def test_keys_typed_in_a_settings_field_neither_play_nor_are_lost(page, stack):
    answer = people_game(page, stack, width=12)
    page.focus("#k")
    page.fill("#k", "")
    page.keyboard.type("11")  # into the field, not a column
    assert page.input_value("#k") == "11"
    page.evaluate("document.activeElement.blur()")  # out of the field without a key
    page.keyboard.press("3")
    wait_ply(page, 1)
    assert saved_moves(page, 1) == [3]
    answer(4, 1)
    # a "1" waiting for its second digit is let go when a field takes the keys
    page.keyboard.press("1")
    page.focus("#k")
    page.keyboard.type("2")
    assert page.input_value("#k") == "112"
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("5")  # column 5, not 12 (the "1" and the field's "2") nor column 1 (the pause)
    wait_ply(page, 3)
    assert saved_moves(page, 3) == [3, 4, 5]


def test_a_7x6_board_keeps_its_one_key_digits_and_the_about_box_says_it(page, stack):
    people_game(page, stack, width=7)
    page.keyboard.press("1")
    page.keyboard.press("h")  # would let a waiting "1" go: on 7 columns it played at once
    wait_ply(page, 1)
    assert saved_moves(page, 1) == [1]
    page.keyboard.press("?")
    page.wait_for_selector("#about[open]")
    keys = page.inner_text("#keys")
    assert "1 0 … 1 6" in keys and "past 9 columns: type the column's number" in keys
