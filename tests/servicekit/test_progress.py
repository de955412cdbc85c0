"""The one progress line of long jobs: a line every tenth into a file, a
line redrawn in place on a terminal, the same format for both."""

from __future__ import annotations

import io

from servicekit.progress import Progress, clock


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_into_a_file_one_line_every_tenth_and_at_the_end():
    out = io.StringIO()
    bar = Progress("games", 40, out, every_s=3600)
    for i in range(40):
        bar.advance(f"game {i + 1}")
    bar.finish()
    lines = out.getvalue().splitlines()
    assert [line.split()[1] for line in lines] == [f"{n}/40" for n in (1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 40)]
    assert lines[-1].startswith("█" * 24 + " 40/40 games 100%") and lines[-1].endswith("game 40")
    assert "elapsed 0:0" in lines[-1] and "/s" in lines[-1]


def test_on_a_terminal_the_line_is_redrawn_in_place_and_ends_with_a_newline():
    out = Terminal()
    bar = Progress("positions", stream=out)
    bar.update(3, 12, "solved 3")
    bar.finish(12, 12, "done")
    text = out.getvalue()
    assert text.startswith("\r\x1b[2K") and text.endswith("\n") and text.count("\n") == 1
    assert "12/12 positions 100%" in text and text.rstrip().endswith("done")


def test_a_rerun_counts_its_rate_from_its_own_work_and_a_growing_total():
    out = io.StringIO()
    bar = Progress("positions", stream=out, every_s=3600)
    bar.update(500, 1000)  # half was done by an earlier run
    assert bar._done0 == 500
    bar.update(1000, 2000, force=True)  # the tree grew
    last = out.getvalue().splitlines()[-1]
    assert " 1000/2000 positions  50%" in last


def test_clock():
    assert (clock(0), clock(61), clock(3600 + 62), clock(-5)) == ("0:00", "1:01", "1:01:02", "0:00")
