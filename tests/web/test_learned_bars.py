"""The learned opponent's bars on the real page: a game against `net` on the real stack
(services, gateway, Chromium), with the web suite's one browser (a second sync Playwright in
the same process would find the first one's event loop running)."""

import pytest

from tests.web.helpers import ARTIFACTS, open_new_game

pytestmark = pytest.mark.timeout(1800)


def test_a_learned_opponent_shows_its_probabilities_over_the_columns(page):
    open_new_game(page, opponent="net", youStart=False, think=0.05)
    page.wait_for_selector("#column-slot #learned-bars .lb-col", timeout=120000)
    cols = page.eval_on_selector_all("#learned-bars .lb-col", "els => els.map(e => e.title)")
    assert len(cols) == 7 and all(t.startswith(f"column {i + 1}: ") for i, t in enumerate(cols))
    assert page.eval_on_selector_all("#learned-bars .lb-col.played", "els => els.length") == 1
    assert page.text_content("#learned-bars .lb-value").startswith("v ")
    assert "p=a:" not in page.text_content("#detail")  # the raw probabilities stay out of the detail line
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "learned-bars.png"))
