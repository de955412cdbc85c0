"""What the page shows of analysis the solver cannot finish: on a large board
against the real stack (a 9 x 7 board at its second move: the wide solver proves no column
within the deadline) the solver's first use of the size is said and asked again
by itself, then every playable column is drawn "?" (unknown), never guessed,
with no alert and no layout shift; a playable column that comes back without a
score is drawn "?" and no value or mistake is claimed from a position an unknown
column could change."""

from __future__ import annotations

from tests.web.helpers import (
    game_state, layout_shifts, my_turn, seat_position, settled, shot, watch_layout_shifts,
)

NOTHING_PROVEN = ("Solver: no column is proven yet (?): early positions of a big board take the solver longer. "
                  "The scores come a few moves later.")


def strip(page) -> list[str]:
    return page.evaluate("[...document.querySelectorAll('#board .solution text')].map(t => t.textContent)")


def test_a_large_board_the_solver_cannot_prove_yet(page, stack):
    seat_position(stack, page.context, [5, 5], opponent="human", width=9, height=7)
    page.goto("/")
    my_turn(page)
    settled(page)
    eval_before = page.evaluate("document.querySelector('.eval-col').style.visibility")
    watch_layout_shifts(page)
    page.keyboard.press("x")
    # the 9 x 7 kernels may still compile (warming up: the page asks again by itself)
    try:
        page.wait_for_function("document.querySelector('#detail').textContent.includes('(?)')", timeout=240_000)
    finally:
        said = page.inner_text("#detail")
    assert said == NOTHING_PROVEN, said
    assert strip(page) == ["?", "unknown"] * 9
    assert page.is_hidden("#alert")  # a message where the analysis goes, no alert over the board
    assert page.evaluate("document.querySelector('.eval-col').style.visibility") == eval_before
    shot(page, "analysis_unproven_large_board", full=False)
    assert game_state(page)["moves"] == [5, 5]  # the game is untouched
    settled(page)
    shifts = layout_shifts(page)
    assert sum(s["value"] for s in shifts) == 0, shifts


# Column scores as a gateway answers them when the solver proves some columns and
# not others (score null on a playable column); drawn by the page's own modules.
UNKNOWN_COLUMNS = """async ([scores, unknown, moves]) => {
  const v = document.querySelector('script[type=module]').src.replace(/js\\/main\\.js.*$/, '');
  const { BoardView } = await import(v + 'js/board.js');
  const { Game } = await import(v + 'js/game.js');
  const { provenBest } = await import(v + 'js/analysis.js');
  const panels = await import(v + 'js/panels.js');
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  document.body.append(svg);
  const view = new BoardView(svg, { onColumn() {} });
  const state = { width: 7, height: 6, k: 4, moves };
  const sol = { key: 'k', scores, unknown };
  view.render(Game.from(state), { solution: sol });
  const drawn = [...svg.querySelectorAll('.solution .sol')].map(g => ({
    col: +g.dataset.col, kind: g.getAttribute('class'), text: [...g.querySelectorAll('text')].map(t => t.textContent),
    title: g.querySelector('title').textContent }));
  svg.remove();
  return { drawn, best: provenBest(sol), said: unknown.length ? panels.unknownText(unknown) : '' };
}"""


def test_unknown_columns_are_drawn_as_unknown_and_claim_nothing(page, stack):
    seat_position(stack, page.context, [], opponent="human")
    page.goto("/")
    my_turn(page)
    full = [1, 1, 1, 1, 1, 1]  # column 1 full: no score, and not unknown
    # a proven draw and a proven loss beside two unknown columns: no best, no star
    out = page.evaluate(UNKNOWN_COLUMNS, [{"1": None, "2": 0, "3": None, "4": -2, "5": None, "6": 0, "7": 0},
                                          [3, 5], full])
    by_col = {d["col"]: d for d in out["drawn"]}
    assert sorted(by_col) == [2, 3, 4, 5, 6, 7]
    assert by_col[3]["text"] == ["?", "unknown"] and "unknown" in by_col[3]["kind"]
    assert by_col[3]["title"] == "Column 3: not proven (the solver could not decide it)"
    assert by_col[2]["text"] == ["0", "draw"]
    assert not any("best" in d["kind"] for d in out["drawn"]) and out["best"] is None
    assert out["said"] == "columns 3, 5 are not proven (?); the others are exact."
    # a proven win is the position's value even with a column unknown; still no star
    out = page.evaluate(UNKNOWN_COLUMNS, [{"1": None, "2": 3, "3": None, "4": 0, "5": 0, "6": 0, "7": 0},
                                          [3], full])
    assert out["best"] == 3 and not any("best" in d["kind"] for d in out["drawn"])
    assert out["said"] == "column 3 is not proven (?); the others are exact."
    # every playable column proven: the best is starred as before
    out = page.evaluate(UNKNOWN_COLUMNS, [{"1": None, "2": 3, "3": 1, "4": 0, "5": 0, "6": 0, "7": 0}, [], full])
    assert out["best"] == 3 and [d["col"] for d in out["drawn"] if "best" in d["kind"]] == [2]
