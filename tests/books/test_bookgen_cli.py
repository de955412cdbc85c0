"""``c4 bookgen opening`` end to end: its own redis-server, local Celery
workers, the engine's guesses, and a book equal to the solver's."""

from __future__ import annotations

from pathlib import Path

import pytest

from connect4 import Geometry
from connect4.book import MoveBook
from connect4.keys import position_from_key
from books.bookgen.solving import BookSolver
from tests.c4cli import c4_process, run_c4



def _c4(*args, timeout=300):
    return c4_process(*args, timeout=timeout)


@pytest.mark.slow
def test_opening_command_writes_the_solvers_book(tmp_path):
    out = tmp_path / "5x4-opening.txt"
    r = _c4("bookgen", "opening", "--size", "5x4", "--plies", "6", "--local-workers", "2",
            "--start-redis", str(tmp_path / "redis"), "--out", str(out), "--worker-logs", str(tmp_path / "logs"))
    assert r.returncode == 0, r.stderr
    g = Geometry(5, 4)
    book = MoveBook.load(out, g)
    assert not book.problems and len(book) > 10
    bs = BookSolver(g, tt_log2=18)
    for key, e in book.entries.items():
        bm = bs.best_move(position_from_key(key, g))
        assert (bm.column, bm.score) == (e.column, e.score)
    assert not Path(str(out) + ".journal").exists()
    # the same command without guesses (roots first) writes the same bytes
    again = tmp_path / "again.txt"
    r = _c4("bookgen", "opening", "--size", "5x4", "--plies", "6", "--local-workers", "1", "--guess-depth", "0",
            "--start-redis", str(tmp_path / "redis2"), "--out", str(again), "--worker-logs", str(tmp_path / "logs2"))
    assert r.returncode == 0, r.stderr
    assert again.read_bytes() == out.read_bytes()


@pytest.mark.parametrize("args, message", [
    (["--plies", "0"], "--plies: must be at least 1"),
    (["--plies", "4", "--guess-depth", "-1"], "--guess-depth: must be in 0..42"),
    (["--plies", "4", "--size", "9x9"], "board 9x9 needs 90 bits: book generation (the exact solver) runs on boards"),
    (["--plies", "4", "--size", "17x6"], "width and height 1..16"),
])
def test_opening_command_rejects_bad_arguments(args, message):
    r = _c4("bookgen", "opening", *args, timeout=60)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


BAD = [
    (["bookgen", "corrective", "--stones", "-1"], "--stones"),
    (["bookgen", "corrective", "--stones", "0"], "--stones"),
    (["bookgen", "corrective", "--stones", "2", "--size", "9x9"], "board 9x9 needs 90 bits"),
    (["bookgen", "corrective", "--stones", "42"], "--stones must be in 1..41"),
    (["bookgen", "corrective", "--stones", "3", "--depths", "0"], "--depths"),
    (["bookgen", "corrective", "--stones", "3", "--depths", "-3"], "--depths"),
    (["bookgen", "corrective", "--stones", "3", "--depths", "12,x"], "--depths"),
    (["bookgen", "corrective", "--stones", "3", "--depths", ","], "--depths"),
    (["bookgen", "corrective", "--stones", "3", "--movetime-ms", "0"], "--movetime-ms"),
    (["bookgen", "corrective", "--stones", "3", "--movetime-ms", "2000,x"], "--movetime-ms"),
    (["bookgen", "corrective", "--stones", "3", "--along", "/no/such/book.txt"], "--along: no such file"),
    (["bookgen", "corrective", "--stones", "3", "--along", "{dir}"], "--along: not a file"),
    (["bookgen", "corrective", "--stones", "3", "--along", "{file}"], "plain-file has no 7x6 book entries"),
    (["bookgen", "corrective", "--stones", "3", "--books", "/no/such/book.txt"], "--books: no such file"),
    (["bookgen", "corrective", "--stones", "3", "--min-stones", "-1"], "--min-stones"),
    (["bookgen", "corrective", "--stones", "3", "--min-stones", "5"], "--min-stones must be in 0..3"),
    (["bookgen", "corrective", "--stones", "3", "--max-seconds", "-1"], "--max-seconds"),
    (["bookgen", "corrective", "--stones", "3", "--out", "{file}/book.txt"], "plain-file is not a folder"),
    (["bookgen", "opening", "--plies", "-2"], "--plies"),
    (["bookgen", "opening", "--plies", "4", "--local-workers", "-1"], "--local-workers"),
    (["bookgen", "opening", "--plies", "4", "--resend-after", "0"], "--resend-after"),
    (["bookgen", "opening", "--plies", "4", "--out", "{file}/book.txt"], "plain-file is not a folder"),
    (["bookgen", "opening", "--plies", "4", "--ties-from", "books/7x6-analysis.txt"], "--ties-from needs --all-ties"),
    (["bookgen", "opening", "--plies", "4", "--all-ties", "--ties-from", "{file}"], "is not a 7x6 analysis book"),
    (["bookgen", "opening", "--plies", "4", "--all-ties", "--ties-from", "/no/such/book"], "--ties-from: no such file"),
    (["bookgen", "worker", "--concurrency", "0"], "--concurrency"),
    (["learn", "4453", "--node-budget", "0"], "--node-budget"),
    (["learn", "4453", "--book", "{file}/book.txt"], "--book: "),
    (["bookview", "44", "--books", "/no/such/book.txt"], "--books: no such book"),
    (["bench", "bookgen", "--n", "0"], "--n"),
    (["bench", "bookgen", "--workers", "1,0"], "--workers"),
    (["bench", "bookgen", "--set", "/no/such/set"], "no test set"),
]


@pytest.mark.parametrize("argv,message", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_arguments_are_one_clear_error(argv, message, tmp_path, capsys):
    (tmp_path / "plain-file").write_text("x\n")
    argv = [a.replace("{dir}", str(tmp_path)).replace("{file}", str(tmp_path / "plain-file")) for a in argv]
    code, err = run_c4(argv, capsys)
    assert code == 2 and message in err and "Traceback" not in err, err


def test_learn_dry_run_says_what_it_would_write(tmp_path, capsys):
    """On 5x4 the second player throws the draw away at ply 6 of this game (2 instead of 4)."""
    from c4.main import main

    book = tmp_path / "5x4-corrective.txt"
    learn = ["learn", "333322421", "--size", "5x4", "--book", str(book)]
    assert main([*learn, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "threw draw at ply 6" in out and "dry run: 1 new corrective entry would be written, none was" in out
    assert "(dry run: not written)" in out and not book.exists()
    assert main(learn) == 0
    assert "; 1 new corrective entry" in capsys.readouterr().out and len(book.read_text().splitlines()) == 2
    assert main([*learn, "--dry-run"]) == 0  # booked now: nothing more to write
    assert "dry run: 0 new corrective entries would be written" in capsys.readouterr().out
