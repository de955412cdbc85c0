"""The result moment: the status, the last-move mark and the result appear
only once the disc has landed, a program's reply falls after the player's
disc, a result banner (a win with its line, or a draw) offers Rematch and
Swap and rematch by keyboard, sound is off until switched on, and reduced
motion drops the animation."""

from __future__ import annotations

from tests.web.conftest import DESKTOP
from tests.web.helpers import discs, game_state, my_turn, open_new_game, seat_position, settled, shot, wait_status

# Every change of the status line and the marks layer, with whether a disc was
# still falling at that moment, and when each disc's fall ended.
RECORD = """() => {
  window.__seen = [];
  const falling = () => document.getAnimations()
      .filter(a => a.playState === 'running' && a.effect?.target?.classList?.contains('disc'));
  const note = (what) => window.__seen.push({what, falling: falling().length,
      text: what === 'marks' ? document.querySelector('#board .marks').childElementCount
                             : document.querySelector('#' + what).textContent});
  for (const id of ['status', 'detail'])
    new MutationObserver(() => note(id))
      .observe(document.querySelector('#' + id), {childList: true, subtree: true, characterData: true});
  new MutationObserver(() => note('marks')).observe(document.querySelector('#board .marks'), {childList: true});
  window.__falls = [];
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) if (n.classList?.contains('disc')) {
      const a = n.getAnimations()[0];
      // on the animations' own timeline: when the fall begins (after its delay) and ends
      if (a) a.finished.then(() => { const t = a.effect.getTiming();
          window.__falls.push({col: +n.dataset.col, player: +n.dataset.player,
            begin: a.startTime + t.delay, end: a.startTime + t.delay + t.duration}); });
    }
  }).observe(document.querySelector('#board .discs'), {childList: true});
}"""


def test_status_and_marks_wait_for_the_disc_to_land(page):
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    my_turn(page)
    settled(page)
    page.evaluate(RECORD)
    for col in (4, 3, 5):
        v = page.evaluate("+document.body.dataset.version")
        page.keyboard.press(str(col))
        page.wait_for_function(
            "v => +document.body.dataset.version >= v + 2 && document.body.dataset.settled === 'true'", arg=v)
        if page.evaluate("document.body.dataset.status") == "over":
            break
    seen = page.evaluate("window.__seen")
    assert any(s["what"] == "detail" and "played" in s["text"] for s in seen), seen
    assert any(s["what"] == "marks" and s["text"] for s in seen), seen
    # nothing about a move was written while a disc fell (the marks are only taken away then)
    early = [s for s in seen if s["falling"] and (s["what"] != "marks" or s["text"])]
    assert not early, early
    # the reply started falling only after the player's disc had landed
    falls = page.evaluate("window.__falls")
    mine = [f for f in falls if f["player"] == 0]
    theirs = [f for f in falls if f["player"] == 1]
    assert mine and theirs, falls
    for m, t in zip(mine, theirs, strict=False):  # the last reply may be missing: the game ended
        assert t["begin"] >= m["end"] - 1, (m, t)  # 1 ms: rounding of the timeline


def test_a_falling_disc_starts_inside_the_drawing(page):
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    my_turn(page)
    settled(page)
    # the keyframe's start: the disc's centre one radius (41) below the drawing's top edge, or lower
    page.evaluate("""() => { window.__starts = [];
      new MutationObserver((rs) => { for (const r of rs) for (const n of r.addedNodes)
        if (n.classList?.contains('disc')) { const a = n.getAnimations()[0]; if (!a) continue;
          const m = /translate\\(0px, (-?[\\d.]+)px\\)/.exec(a.effect.getKeyframes()[0].transform);
          const cy = +n.querySelector('g').getAttribute('transform').split(' ')[1].replace(')', '');
          window.__starts.push(cy + Number(m[1])); } })
      .observe(document.querySelector('#board .discs'), {childList: true}); }""")
    page.keyboard.press("4")
    page.wait_for_function("window.__starts.length >= 2")
    starts = page.evaluate("window.__starts")
    viewbox_top = float(page.get_attribute("#board", "viewBox").split()[1])
    assert all(y - 41 >= viewbox_top for y in starts), starts


def test_result_banner_rematch_and_swap_by_keyboard(page, stack):
    # yellow (random) cannot stop red's open three on the bottom row from both ends
    seat_position(stack, page.context, [2, 2, 3, 3], opponent="random", you="red")
    page.goto("/")
    my_turn(page)
    settled(page)
    page.keyboard.press("4")
    wait_status(page, "to_move", "over")
    if page.evaluate("document.body.dataset.status") != "over":
        # 1 or 5, whichever bottom cell random left free, completes 1-4 or 2-5
        st = game_state(page)
        my_turn(page)
        page.keyboard.press("5" if 5 not in st["moves"] else "1")
    wait_status(page, "over")
    page.wait_for_selector("#result:not([hidden])")
    st = game_state(page)
    assert page.inner_text("#result-text") == "You win!", st
    assert page.inner_text("#result-how").startswith("Four in a row across, from ")
    # the banner takes the focus: Enter on Rematch starts the same game again
    assert page.evaluate("document.activeElement.id") == "rematch"
    shot(page, "result_banner")
    old = st["id"]
    page.keyboard.press("Enter")
    page.wait_for_function("id => !location.search.includes(id)", arg=old)
    new = game_state(page)
    assert (new["width"], new["height"], new["k"]) == (7, 6, 4)
    assert new["seats"]["yellow"]["kind"] == "opponent" and new["seats"]["yellow"]["spec"] == "random"
    assert new["ply"] == 0
    assert page.is_hidden("#result")
    # Swap and rematch, reached by Tab from Rematch: the other side starts
    page.goto(f"/?game={old}")
    page.wait_for_selector("#result:not([hidden])")
    page.focus("#rematch")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "swap-rematch"
    page.keyboard.press("Enter")
    page.wait_for_function("id => !location.search.includes(id)", arg=old)
    swapped = game_state(page)
    assert swapped["seats"]["red"]["kind"] == "opponent" and swapped["seats"]["red"]["spec"] == "random"
    # Esc hides a banner to look at the board
    assert page.is_hidden("#result")


def test_sound_is_off_until_switched_on(page):
    open_new_game(page, opponent="random", youStart=True, think=0.05)
    my_turn(page)
    settled(page)
    assert page.get_attribute("#sound", "aria-pressed") == "false"
    page.keyboard.press("4")
    page.wait_for_function("+document.body.dataset.version >= 3 && document.body.dataset.settled === 'true'")
    assert page.evaluate("document.body.dataset.sounds") is None
    page.click("#sound")
    assert page.get_attribute("#sound", "aria-pressed") == "true"
    assert page.evaluate("localStorage.getItem('c4.sound')") == "on"
    my_turn(page)
    page.keyboard.press("3")
    page.wait_for_function("+document.body.dataset.version >= 5 && document.body.dataset.settled === 'true'")
    assert int(page.evaluate("document.body.dataset.sounds")) >= 1


def test_reduced_motion_places_the_disc_at_once(browser, stack):
    ctx = browser.new_context(viewport=DESKTOP, base_url=stack.url, reduced_motion="reduce")
    ctx.set_default_timeout(20000)
    page = ctx.new_page()
    try:
        open_new_game(page, opponent="random", youStart=True, think=0.05)
        my_turn(page)
        page.evaluate("window.__anims = 0;"
                      "new MutationObserver(() => { window.__anims += document.getAnimations().length; })"
                      ".observe(document.querySelector('#board .discs'), {childList: true})")
        page.keyboard.press("4")
        page.wait_for_function("+document.body.dataset.version >= 3 && document.body.dataset.settled === 'true'")
        assert page.evaluate("window.__anims") == 0
        assert (4, 1, 0) in discs(page)
    finally:
        ctx.close()


def test_people_get_no_learn_panel_and_clicks_no_focus_frame(page, stack):
    # red's row 1-2-3 and then 4: a finished game between two people has no program move to learn from
    seat_position(stack, page.context, [1, 1, 2, 2, 3, 3, 4], opponent="human", you="red")
    page.goto("/")
    wait_status(page, "over")
    page.wait_for_selector("#result:not([hidden])")
    assert page.is_hidden("#learn-panel")
    # keys show the board's focus frame; a click on the board takes it away again
    page.keyboard.press("Escape")  # the banner goes, the focus is on the board
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("getComputedStyle(document.querySelector('#board')).outlineStyle") != "none"
    page.click("#board .hit[data-col='2']")
    assert page.evaluate("document.activeElement.id") == "board"
    assert page.evaluate("getComputedStyle(document.querySelector('#board')).outlineStyle") == "none"


def test_a_draw_has_its_banner_too(page, stack):
    # a 2 x 1 board, line 2: red's 1 and yellow's 2 fill it with no line
    seat_position(stack, page.context, [1, 2], opponent="human", width=2, height=1, k=2, you="red")
    page.goto("/")
    wait_status(page, "over")
    page.wait_for_selector("#result:not([hidden])")
    assert page.inner_text("#result-text") == "Draw."
    assert page.inner_text("#result-how") == "The board is full and nobody has a line."
    assert page.evaluate("document.activeElement.id") == "rematch"
    shot(page, "result_draw")
