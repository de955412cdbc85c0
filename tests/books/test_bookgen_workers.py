"""Distributed opening-book generation with real redis-server and real
Celery worker processes: SIGKILL a worker mid-task, rerun, journal."""

from __future__ import annotations

import os
import signal

import pytest

from connect4 import Position
from connect4.book import MoveBook
from books.bookgen.app import make_app
from books.bookgen.opening import OpeningCoordinator, book_header, write_book
from books.bookgen.solving import BookSolver
from books.bookgen.store import ResultStore
from books.bookgen.workers import LocalWorkers

# A 7x6 position of Pons' set L1_R2 (score -2): a tree of 8 positions whose
# best moves take about a second each to prove.
START = "35612337464"
PLIES = 4


def _run(url, workers, out, tmp_path, on_poll=None, journal=None):
    g = Position().geometry
    store = ResultStore.from_url(url, g)
    app = make_app(url)

    def submit(pos):
        app.send_task("bookgen.best", args=[g.name, [c + 1 for c in pos.moves]], queue="c4.bookgen")

    start = Position.parse(START)
    coord = OpeningCoordinator(g, store, submit, plies=PLIES, start=start, poll_s=0.05,
                               resend_after_s=600, on_poll=on_poll, journal=journal)
    result = coord.run()
    write_book(out, result.entries, book_header(g, start, PLIES, len(result.entries)))
    return result, store


@pytest.mark.slow
def test_sigkill_mid_task_gives_the_same_book(redis_url, tmp_path):
    import redis

    env = {"C4_BOOKGEN_WARM": "7x6"}
    with LocalWorkers(1, redis_url, tmp_path / "logs1", extra_env=env):
        single, _ = _run(redis_url, None, tmp_path / "single.txt", tmp_path)
    assert single.solved_now == len(single.entries) >= 5

    redis.Redis.from_url(redis_url).flushall()
    killed: list[tuple[int, int]] = []
    with LocalWorkers(2, redis_url, tmp_path / "logs2", extra_env=env) as workers:
        g = Position().geometry
        store = ResultStore.from_url(redis_url, g)

        def kill_one():
            workers.check()
            if killed:
                return
            for wid, what in store.running().items():
                pid = int(wid.rsplit(":", 1)[1])
                key = int(what.split()[1], 16)
                if store.bests([key])[0] is None:  # still working on it: kill it now
                    os.kill(pid, signal.SIGKILL)
                    killed.append((pid, key))
                    return

        double, store = _run(redis_url, workers, tmp_path / "double.txt", tmp_path, on_poll=kill_one)
    assert killed, "no task was seen running"
    pid, key = killed[0]
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    # the killed task ran again to the end (requeued), and the book is the same, byte for byte
    assert store.starts()[key] >= 2
    assert store.bests([key])[0] is not None
    assert (tmp_path / "double.txt").read_bytes() == (tmp_path / "single.txt").read_bytes()

    # every entry is the solver's perfect move
    book = MoveBook.load(tmp_path / "double.txt")
    assert len(book) == len(single.entries) and not book.problems
    bs = BookSolver(g, tt_log2=20)
    from connect4.keys import position_from_key

    for key, e in list(book.entries.items())[:3]:
        bm = bs.best_move(position_from_key(key))
        assert (bm.column, bm.score) == (e.column, e.score)

    # a rerun finds everything in Redis and sends no task
    sent = []
    g = Position().geometry
    coord = OpeningCoordinator(g, ResultStore.from_url(redis_url, g), sent.append, plies=PLIES,
                               start=Position.parse(START), poll_s=0.05)
    again = coord.run()
    assert sent == [] and again.entries == double.entries


def test_journal_lets_a_rerun_skip_what_was_solved(redis_url, tmp_path):
    """An interrupted run's journal is read back: nothing solved twice."""
    g = Position().geometry
    store = ResultStore.from_url(redis_url, g)
    bs = BookSolver(g, tt_log2=20)
    start = Position.parse("52753311433677442422121")  # a small, fast tree
    journal = tmp_path / "book.txt.journal"

    def solve_here(pos):  # an in-process "worker": the task body, no Celery
        bm = bs.best_move(pos)
        store.put_best(pos, bm.column, bm.score)

    first = OpeningCoordinator(g, store, solve_here, plies=3, start=start, journal=journal, poll_s=0.01).run()
    assert first.solved_now == len(first.entries) > 1
    assert len(MoveBook.load(journal)) == len(first.entries)
    store.clear()  # Redis lost everything; the journal remains
    sent = []
    second = OpeningCoordinator(g, store, sent.append, plies=3, start=start, journal=journal, poll_s=0.01).run()
    assert sent == [] and second.entries == first.entries


def test_guessed_trees_are_sent_deepest_first_and_give_the_same_book(redis_url, tmp_path):
    """Expanding below guessed moves changes the order of work, never the book."""
    import redis

    g = Position().geometry
    bs = BookSolver(g, tt_log2=20)
    start = Position.parse("52753311433677442422121")
    plies = 6

    def build(guess):
        redis.Redis.from_url(redis_url).flushall()
        store = ResultStore.from_url(redis_url, g)
        sent = []

        def solve_here(pos):
            sent.append(pos.ply)
            bm = bs.best_move(pos)
            store.put_best(pos, bm.column, bm.score)

        result = OpeningCoordinator(g, store, solve_here, plies=plies, start=start, guess=guess, poll_s=0.01).run()
        return result, sent

    plain, plain_sent = build(None)
    assert plain_sent[0] == start.ply and len(set(plain_sent)) == 3  # the root first, then down
    assert plain.solved_now == len(plain.entries)

    perfect, perfect_sent = build(lambda pos: bs.best_move(pos).column)
    assert perfect.entries == plain.entries
    assert perfect_sent == sorted(perfect_sent, reverse=True)  # every node sent before its ancestors
    assert len(perfect_sent) == len(plain.entries)  # right guesses waste nothing

    leftmost, leftmost_sent = build(lambda pos: pos.legal_moves()[0])
    assert leftmost.entries == plain.entries  # wrong guesses cost work only
    assert leftmost_sent[0] == start.ply + plies - 2
    assert len(leftmost_sent) > len(plain.entries)
