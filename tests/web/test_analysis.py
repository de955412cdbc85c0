"""Hint rings and the solver's view in the browser, checked against the game
library's hints and the exact solver run in this process."""

from __future__ import annotations

import pytest

from connect4.hints import hints
from connect4.position import Position

from tests.web.helpers import discs, expected_discs, game_state, my_turn, seat_position, shot, wait_ply, wait_status

MINUS = "\u2212"


@pytest.fixture(scope="module")
def solver():
    from solver_svc.solver import Solver

    return Solver(tt_log2=20)


def rings(page) -> dict[str, list[int]]:
    found = page.evaluate("""[...document.querySelectorAll('#board .hint')].map(g => [
        +g.dataset.col, !!g.querySelector('.ring-win'), !!g.querySelector('.ring-block'), !!g.querySelector('.cross')])""")
    return {
        "win": sorted(c for c, w, _, _ in found if w),
        "block": sorted(c for c, _, b, _ in found if b),
        "lose": sorted(c for c, _, _, x in found if x),
    }


def test_hint_rings_in_a_known_position(page, stack):
    moves = [6, 4, 1, 6, 1, 4, 5, 3, 1, 5]
    seat_position(stack, page.context, moves, opponent="human")
    page.goto("/")
    my_turn(page)
    assert rings(page) == {"win": [], "block": [], "lose": []}
    page.keyboard.press("h")
    page.wait_for_selector("#board .hint")
    h = hints(Position.from_moves([m - 1 for m in moves]))
    want = {"win": [c + 1 for c in h.winning_moves], "block": [c + 1 for c in h.must_block],
            "lose": [c + 1 for c in h.losing_moves if c not in h.winning_moves]}
    assert want["win"] and want["block"] and want["lose"]  # all three kinds are on the board
    assert rings(page) == want
    assert page.get_attribute("#hints", "aria-pressed") == "true"
    # the rings sit on the landing cells
    pos = Position.from_moves([m - 1 for m in moves])
    for g in page.query_selector_all("#board .hint"):
        col = int(g.get_attribute("data-col"))
        cy = float(g.query_selector("circle").get_attribute("cy"))
        row = pos.height(col - 1) + 1
        assert abs(cy - (70 + (6 - row + 0.5) * 100)) < 1
    shot(page, "hint_rings")
    page.keyboard.press("h")
    page.wait_for_function("document.querySelectorAll('#board .hint').length === 0")
    # a watcher's H draws the same rings, computed in the page (web/js/game.js)
    watcher = page.context.browser.new_page(base_url=stack.url)
    try:
        watcher.goto(page.url)
        watcher.wait_for_function("document.body.dataset.version !== undefined")
        assert watcher.inner_text("#mode") == "watching"
        watcher.keyboard.press("h")
        watcher.wait_for_selector("#board .hint")
        assert rings(watcher) == want
    finally:
        watcher.close()


def column_scores(page) -> dict[int, tuple[int, str, str]]:
    return {c: (s, a, b) for c, s, a, b in page.evaluate("""[...document.querySelectorAll('#board .solution .sol')].map(g => [
        +g.dataset.col, +g.dataset.score, g.querySelector('.sol-score').textContent, g.querySelector('.sol-text').textContent])""")}


def expected_scores(solver, moves) -> dict[int, int]:
    pos = Position.from_moves([m - 1 for m in moves])
    return {c + 1: s for c, s in enumerate(solver.analyze(pos)) if s is not None}


def check_solution(page, solver, moves) -> None:
    want = expected_scores(solver, moves)
    page.wait_for_function("n => document.querySelectorAll('#board .solution .sol').length === n", arg=len(want))
    shown = column_scores(page)
    assert {c: v[0] for c, v in shown.items()} == want
    # the page's "win n" / "loss n" agree with the gateway's own verdicts
    gateway = page.evaluate("""async () => (await (await fetch('/api/v1/games/' +
        new URLSearchParams(location.search).get('game') + '/analysis')).json()).columns""")
    for col in gateway:
        if col["score"] is not None:
            assert shown[col["column"]][2] == col["verdict"].replace(" in ", " "), (col, shown[col["column"]])
    ply = len(moves)
    for score, big, small in shown.values():
        if score < 0:
            assert big == f"{MINUS}{-score}"  # a real minus sign, never a lost hyphen
            n = (42 - ply) // 2 + score + 1
            assert small == f"loss {n}"
        elif score > 0:
            assert big == f"+{score}"
            assert small == f"win {(43 - ply) // 2 - score + 1}"
        else:
            assert (big, small) == ("0", "draw")


def test_show_solution_kept_across_moves(page, stack, solver):
    # Pons' end-game test set line: "7422341735647741166133573473242566 1"
    moves = [int(c) for c in "7422341735647741166133573473242566"]
    seat_position(stack, page.context, moves, opponent="random", think_ms=50)
    page.goto("/")
    my_turn(page)
    page.keyboard.press("x")
    check_solution(page, solver, moves)
    assert max(column_scores(page).values())[0] == 1  # the test set's value of the position
    # a win ("win N") and losses with a minus sign are on the board
    assert any(MINUS in v[1] for v in column_scores(page).values())
    shot(page, "show_solution")
    # still on after our move and the opponent's reply: the new position's scores
    best = max(expected_scores(solver, moves).items(), key=lambda kv: kv[1])[0]
    page.click(f"#board .hit[data-col='{best}']")
    wait_ply(page, len(moves) + 2)
    st = game_state(page)
    if st["status"] != "over":
        check_solution(page, solver, st["moves"])
    assert page.get_attribute("#solution", "aria-pressed") == "true"
    page.keyboard.press("x")
    page.wait_for_function("document.querySelectorAll('#board .solution .sol').length === 0")


def test_move_list_steps_through_the_game(page, stack):
    moves = [4, 4, 3, 5, 2]
    seat_position(stack, page.context, moves + [6], opponent="human")
    page.goto("/")
    wait_status(page, "to_move")
    assert page.locator("#move-list li").count() == 6
    page.keyboard.press(",")
    page.keyboard.press(",")
    wait_ply(page, 4)
    assert sorted(discs(page)) == expected_discs(moves[:4])
    assert "Move 4 of 6" in page.inner_text("#history-banner")
    # the status speaks of the position shown, the game's own turn goes below it
    assert page.inner_text("#status").startswith("Looking back at move 4 of 6")
    assert "In the game:" in page.inner_text("#detail")
    banner, board = page.locator("#history-banner").bounding_box(), page.locator("#board").bounding_box()
    # over the board, where the player looks, without moving it
    assert board["y"] <= banner["y"] and banner["y"] + banner["height"] <= board["y"] + board["height"]
    page.click("#move-list li[data-ply='2'] button")
    wait_ply(page, 2)
    # a move is refused while looking back; End returns to the game
    page.keyboard.press("1")
    assert "earlier position" in page.inner_text("#alert")
    page.keyboard.press("Home")
    wait_ply(page, 0)
    page.keyboard.press("End")
    wait_ply(page, 6)
    assert page.is_hidden("#history-banner")
    assert "Looking back" not in page.inner_text("#status")
    shot(page, "move_list")


def test_move_verdicts_and_first_mistake(page, stack, solver):
    # Pons' position (red to move wins) and then red's blunder in column 1
    pons = [int(c) for c in "7422341735647741166133573473242566"]
    assert expected_scores(solver, pons)[1] < 0 < max(expected_scores(solver, pons).values())
    moves = pons + [1, 2]
    seat_position(stack, page.context, moves, opponent="human")
    page.goto("/")
    wait_status(page, "to_move")
    page.click("#analyse")
    blunder = page.locator("#move-list li[data-ply='35']")
    page.wait_for_function("document.querySelector(\"#move-list li[data-ply='35'] .v\").textContent !== ''", timeout=30000)
    assert "mistake" in blunder.get_attribute("class")
    assert blunder.locator(".v").inner_text() == "win → loss"
    # the reply's verdict agrees with the solver too
    after = expected_scores(solver, pons + [1])
    kind = lambda s: "win" if s > 0 else "loss" if s < 0 else "draw"  # noqa: E731
    before, played = kind(max(after.values())), kind(after[2])
    reply = page.locator("#move-list li[data-ply='36']")
    page.wait_for_function("document.querySelector(\"#move-list li[data-ply='36'] .v\").textContent !== ''")
    assert reply.locator(".v").inner_text() == (f"{before} → {played}" if before != played else played)
    assert ("mistake" in reply.get_attribute("class")) == (before != played)
    # M jumps to the first move marked as a mistake
    page.keyboard.press("m")
    page.wait_for_function("document.querySelector('#history-banner').hidden === false")
    current = page.locator("#move-list li.current")
    assert "mistake" in current.get_attribute("class")
    ply = int(current.get_attribute("data-ply"))
    assert ply <= 35
    wait_ply(page, ply)
    # every verdict is there to read, whole, inside its move (it was cut to "win → l…")
    assert page.evaluate("""[...document.querySelectorAll('#move-list .v')].filter(v => v.textContent).every(v => {
        const r = v.getBoundingClientRect(), b = v.closest('button').getBoundingClientRect();
        return v.scrollWidth <= v.clientWidth && r.left >= b.left && r.right <= b.right + 0.5 && r.bottom <= b.bottom + 0.5; })""")
    shot(page, "first_mistake")


def test_verdicts_of_a_finished_game_come_by_themselves(page, stack):
    # a finished game opened from its link: the verdicts start at once, and the
    # WebSocket's first state (same version) must not silence them
    moves = [1, 1, 2, 2, 3]  # red's row of three on a 4 x 4 board, line 3
    seat_position(stack, page.context, moves, opponent="human", width=4, height=4, k=3)
    page.goto("/")
    wait_status(page, "over")
    page.wait_for_function("document.querySelector('#analysis-state').textContent === 'solver verdicts'")
    verdicts = page.eval_on_selector_all("#move-list .v", "vs => vs.map(v => v.textContent)")
    assert len(verdicts) == len(moves) and all(verdicts), verdicts
    shot(page, "verdicts_by_themselves")
