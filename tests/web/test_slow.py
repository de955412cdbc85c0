"""Slow solutions and one evaluation: a solution the solver cannot prove in
time shows its progress, can be cancelled, and says what is proven; First
mistake says when the first moves are unproven; a known value replaces the
engine's estimate on the bar and the detail line."""

from __future__ import annotations

from tests.web.helpers import my_turn, seat_position, settled, shot, wait_status

# Past the analysis book (every position to 4 stones) and off its tree: the solver takes minutes on it
SLOW = [1, 1, 1, 1, 1]
RED_WINS_AT_9 = [1, 1, 1, 1, 2, 2, 3, 3, 4]  # red takes the bottom row
PONS = [int(c) for c in "7422341735647741166133573473242566"]  # red to move wins (Pons' test set)


def test_a_slow_solution_shows_progress_and_can_be_cancelled(page, stack):
    seat_position(stack, page.context, SLOW, opponent="human", you="yellow")
    page.goto("/")
    my_turn(page)
    page.keyboard.press("x")
    page.wait_for_selector("#solve-cancel:not([hidden])")
    page.wait_for_function("/Solving this position… [1-9]\\d* s/.test(document.querySelector('#detail').textContent)")
    assert page.locator("#board .sol-loading").text_content().startswith("solving…")
    shot(page, "solving")
    with page.expect_event("requestfailed", lambda r: "/analysis" in r.url):
        page.click("#solve-cancel")
    page.wait_for_function("document.querySelector('#detail').textContent.includes('solving cancelled')")
    assert page.is_hidden("#solve-cancel")
    assert page.locator("#board .sol-loading").text_content() == "solving cancelled"
    # X twice asks again; this time the gateway's 10 s pass, and the page says what is proven
    page.keyboard.press("x")
    page.keyboard.press("x")
    page.wait_for_function("document.querySelector('#detail').textContent.includes('could not prove this position')",
                           timeout=60000)
    detail = page.get_attribute("#detail", "title")
    # [1, 1, 1, 1, 1]: nothing wins or loses at once, so the rules prove nothing more
    assert "Nothing is proven beyond the rules" in detail, detail
    assert page.is_hidden("#solve-cancel")
    # the position and the game are as they were
    assert page.evaluate("document.querySelector('#board').dataset.ply") == "5"


def test_first_mistake_says_when_the_first_moves_are_unproven(page, stack):
    # red wins on the bottom row at move 9; the positions from 5 stones on are off the books
    seat_position(stack, page.context, RED_WINS_AT_9, opponent="human")
    page.goto("/")
    wait_status(page, "over")
    page.wait_for_function("document.querySelector('#analysis-state').textContent.startsWith('verdicts from move')",
                           timeout=90000)
    first = int(page.inner_text("#analysis-state").split("verdicts from move ")[1].split()[0])
    page.keyboard.press("Escape")  # the result banner
    page.keyboard.press("m")
    page.wait_for_selector("#alert:not([hidden])")
    text = page.inner_text("#alert")
    assert f"Moves 1–{first - 1} are not proven" in text and "earlier mistake is possible" in text, text


def test_a_known_value_replaces_the_estimate(page, stack):
    seat_position(stack, page.context, PONS, opponent="engine:300", think_ms=300)
    page.goto("/")
    my_turn(page)
    settled(page)
    page.keyboard.press("x")
    page.wait_for_selector("#board .solution .sol.best")
    settled(page)
    # the status says the value, the detail line where it comes from; no estimate beside it
    status, detail = page.inner_text("#status"), page.inner_text("#detail")
    n = int(status.split("You win in ")[1].rstrip("."))
    labels = page.evaluate("[...document.querySelectorAll('#board .sol.best .sol-text')].map(t => t.textContent)")
    assert f"win {n}" in labels, (status, labels)  # the same count as the solution's best column
    assert detail.startswith("Exact: the solver, your ") and "stone from now wins" in detail, detail
    assert "estimate" not in detail
    assert page.inner_text("#eval-text").startswith("#R")
    assert page.evaluate("parseFloat(document.querySelector('.eval-red').dataset.share)") == 100
    # every column's label is coloured by its verdict, the best stands out
    kinds = page.evaluate("[...document.querySelectorAll('#board .sol')].map(g => g.getAttribute('class'))")
    assert all(any(k in c for k in ("win", "draw", "loss")) for c in kinds) and any("best" in c for c in kinds)
    shot(page, "known_value")
