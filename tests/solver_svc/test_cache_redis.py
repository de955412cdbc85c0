"""The Redis answer cache with a real redis-server: a second service process
(here: a second oracle with its own in-process cache) gets the answer without a
search; a Redis that goes away costs nothing but the cache."""

from __future__ import annotations

import redis

from connect4 import Position
from solver_svc.builtin import Budget, SolverPool
from solver_svc.cache import REDIS_PREFIX, Answer, AnswerCache
from solver_svc.oracle import Oracle
from solver_svc.settings import SolverSettings

from .support import KNOWN, TT_LOG2


def oracle_for(url: str | None) -> Oracle:
    return Oracle(SolverPool(1, TT_LOG2), cache=AnswerCache(1000, url))


def test_redis_shares_answers_between_services(redis_url):
    moves, expected = KNOWN[3]
    pos = Position.parse(moves)
    first = oracle_for(redis_url)
    a = first.analyze(pos, Budget())
    assert a.source == "solver" and a.nodes > 0
    client = redis.Redis.from_url(redis_url)
    canonical = min(pos.key(), pos.mirror_key())
    stored = client.hgetall(f"{REDIS_PREFIX}:7x6:{canonical:x}")
    assert stored[b"s"] == str(expected).encode()
    assert client.ttl(f"{REDIS_PREFIX}:7x6:{canonical:x}") > 0

    second = oracle_for(redis_url)  # an empty in-process cache
    again = second.analyze(pos, Budget())
    assert again.source == "cache" and again.nodes == 0 and again.scores == a.scores
    mirror = Position.from_moves([6 - c for c in pos.moves])
    assert second.analyze(mirror, Budget()).scores == tuple(reversed(a.scores))
    assert second.solve(pos, Budget()).score == expected


def test_weak_answers_are_kept_apart_from_strong_ones(redis_url):
    moves, expected = KNOWN[1]
    pos = Position.parse(moves)
    o = oracle_for(redis_url)
    assert o.solve(pos, Budget(), weak=True).score == 1
    fresh = oracle_for(redis_url)
    assert fresh.solve(pos, Budget(), weak=True).source == "cache"
    strong = fresh.solve(pos, Budget())  # a sign does not answer a strong question
    assert (strong.source, strong.score) == ("solver", expected)


def test_redis_going_away_is_not_an_error(redis_server):
    url = redis_server.url
    moves, expected = KNOWN[0]
    o = oracle_for(url)
    redis_server.stop()
    try:
        assert o.solve(Position.parse(moves), Budget()).score == expected
        # the in-process cache still works
        assert o.solve(Position.parse(moves), Budget()).source == "cache"
    finally:
        redis_server.start()


def test_settings_take_redis_url_from_either_variable(monkeypatch):
    monkeypatch.delenv("C4_SOLVER_REDIS_URL", raising=False)
    monkeypatch.setenv("REDIS_URL", "redis://shared:6379/0")
    assert SolverSettings().redis_url == "redis://shared:6379/0"
    monkeypatch.setenv("C4_SOLVER_REDIS_URL", "redis://own:6379/1")
    assert SolverSettings().redis_url == "redis://own:6379/1"


def test_answer_fields_round_trip():
    a = Answer(scores=(1, None, -2, 0, 3, None, 4), score=4, sign=1)
    assert Answer.from_fields(a.to_fields()) == a
    assert Answer.from_fields({b"s": b"-5"}) == Answer(score=-5)


def test_best_move_is_cached_without_a_full_analysis(redis_url):
    pos = Position.parse("444453337671776")  # the best move is not the centre column
    if pos.key() > pos.mirror_key():  # the orientation the cache stores best moves for
        pos = Position.from_moves([6 - c for c in pos.moves])
    o = oracle_for(redis_url)
    first = o.best_move(pos, Budget())
    assert first.proven and first.source == "solver" and first.nodes > 0
    from solver_svc.solver import Solver

    scores = Solver(tt_log2=TT_LOG2).analyze(pos)
    from connect4.bookset import best_of

    assert (first.column, first.score) == best_of(scores, pos.geometry)
    again = oracle_for(redis_url).best_move(pos, Budget())  # from Redis, no search
    assert (again.source, again.column, again.score, again.nodes) == ("cache", first.column, first.score, 0)
    # the children searched on the way are cached with their own values
    child = pos.played(first.column)
    assert o.solve(child, Budget()).source == "cache"
    assert o.solve(child, Budget()).score == -first.score
