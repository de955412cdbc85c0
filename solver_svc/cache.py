"""The answer cache: in process (LRU) and, when configured, in Redis.

Answers are stored under the position's canonical key (the smaller of its key
and its mirror's), so a position and its mirror image share one entry; column
scores are stored for the canonical orientation and mirrored back on the way
out. Three kinds of answer are kept per position:

- ``a``: the exact score of every column (``x`` for full) — answers Analyze,
  Solve and BestMove;
- ``s``: the exact score — answers Solve (strong and weak);
- ``w``: the sign of the score — answers weak Solve;
- ``b``: the perfect player's column (0-based) — with ``s``, answers BestMove.

Redis holds a hash ``c4:solver:v1:<board>:<key hex>`` with those fields. A
Redis that fails is skipped for a few seconds (logged once), so the cache never
turns a working answer into an error.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from .metrics import CACHE_HITS, CACHE_MISSES, CACHE_ERRORS

log = logging.getLogger(__name__)

REDIS_PREFIX = "c4:solver:v1"


@dataclass
class Answer:
    """What is known about a position, in the canonical orientation."""

    scores: tuple[int | None, ...] | None = None
    score: int | None = None
    sign: int | None = None
    best: int | None = None

    def merge(self, other: Answer) -> None:
        self.scores = self.scores if other.scores is None else other.scores
        self.score = self.score if other.score is None else other.score
        self.sign = self.sign if other.sign is None else other.sign
        self.best = self.best if other.best is None else other.best

    def to_fields(self) -> dict[str, str]:
        out = {}
        if self.scores is not None:
            out["a"] = " ".join("x" if s is None else str(s) for s in self.scores)
        if self.score is not None:
            out["s"] = str(self.score)
        if self.sign is not None:
            out["w"] = str(self.sign)
        if self.best is not None:
            out["b"] = str(self.best)
        return out

    @classmethod
    def from_fields(cls, fields: dict) -> Answer:
        def text(name):
            v = fields.get(name) if name in fields else fields.get(name.encode())
            return v.decode() if isinstance(v, bytes) else v

        a, s, w, b = text("a"), text("s"), text("w"), text("b")
        return cls(
            scores=tuple(None if p == "x" else int(p) for p in a.split()) if a else None,
            score=int(s) if s is not None else None,
            sign=int(w) if w is not None else None,
            best=int(b) if b is not None else None,
        )


def orient(pos) -> tuple[int, bool]:
    """(canonical key, whether ``pos`` is the mirror image of it)."""
    key, mirror = pos.key(), pos.mirror_key()
    return (key, False) if key <= mirror else (mirror, True)


class AnswerCache:
    def __init__(self, size: int = 100_000, redis_url: str | None = None, ttl_s: int = 30 * 24 * 3600):
        self.size = size
        self.ttl_s = ttl_s
        self._lru: OrderedDict[tuple[str, int], Answer] = OrderedDict()
        self._lock = threading.Lock()
        self._redis = None
        self._redis_down_until = 0.0
        self.redis_url = redis_url
        if redis_url:
            import redis

            self._redis = redis.Redis.from_url(
                redis_url, socket_timeout=0.5, socket_connect_timeout=0.5, health_check_interval=30
            )

    # -- public ------------------------------------------------------------------
    def get(self, pos) -> Answer | None:
        """The cached answer for ``pos`` in its own orientation, or None."""
        if not self.enabled:
            return None
        key, mirrored = orient(pos)
        name = pos.geometry.name
        with self._lock:
            found = self._lru.get((name, key))
            if found is not None:
                self._lru.move_to_end((name, key))
        if found is not None:
            CACHE_HITS.labels("memory").inc()
            return _oriented(found, mirrored, pos.geometry.width)
        found = self._redis_get(name, key)
        if found is not None:
            CACHE_HITS.labels("redis").inc()
            self._remember(name, key, found)
            return _oriented(found, mirrored, pos.geometry.width)
        CACHE_MISSES.inc()
        return None

    def put(self, pos, answer: Answer) -> None:
        """Store what was proved about ``pos`` (given in its own orientation)."""
        if not self.enabled:
            return
        key, mirrored = orient(pos)
        name = pos.geometry.name
        canonical = _oriented(answer, mirrored, pos.geometry.width)
        merged = self._remember(name, key, canonical)
        self._redis_put(name, key, merged)

    @property
    def enabled(self) -> bool:
        return self.size > 0 or self._redis is not None

    def clear_memory(self) -> None:
        with self._lock:
            self._lru.clear()

    def __len__(self) -> int:
        return len(self._lru)

    # -- in process ----------------------------------------------------------------
    def _remember(self, name: str, key: int, answer: Answer) -> Answer:
        if self.size <= 0:
            return answer
        with self._lock:
            old = self._lru.get((name, key))
            if old is not None:
                merged = Answer(old.scores, old.score, old.sign, old.best)
                merged.merge(answer)
                self._lru.move_to_end((name, key))
            else:
                merged = Answer(answer.scores, answer.score, answer.sign, answer.best)
            self._lru[(name, key)] = merged
            while len(self._lru) > self.size:
                self._lru.popitem(last=False)
        return merged

    # -- Redis ----------------------------------------------------------------------
    def _redis_key(self, name: str, key: int) -> str:
        return f"{REDIS_PREFIX}:{name}:{key:x}"

    def _redis_ok(self) -> bool:
        return self._redis is not None and time.monotonic() >= self._redis_down_until

    def _redis_failed(self, exc: Exception) -> None:
        CACHE_ERRORS.inc()
        if time.monotonic() >= self._redis_down_until:
            log.warning("redis cache unavailable, skipping it for 5 s", extra={"error": str(exc)})
        self._redis_down_until = time.monotonic() + 5.0

    def _redis_get(self, name: str, key: int) -> Answer | None:
        if not self._redis_ok():
            return None
        assert self._redis is not None  # _redis_ok
        try:
            fields = self._redis.hgetall(self._redis_key(name, key))
        except Exception as exc:  # redis errors of any kind: answer without the cache
            self._redis_failed(exc)
            return None
        if not fields:
            return None
        try:
            return Answer.from_fields(fields)
        except (ValueError, AttributeError) as exc:
            log.warning("bad redis cache entry ignored", extra={"key": self._redis_key(name, key), "error": str(exc)})
            return None

    def _redis_put(self, name: str, key: int, answer: Answer) -> None:
        if not self._redis_ok():
            return
        fields = answer.to_fields()
        if not fields:
            return
        assert self._redis is not None  # _redis_ok
        try:
            pipe = self._redis.pipeline(transaction=False)
            rk = self._redis_key(name, key)
            pipe.hset(rk, mapping=fields)  # type: ignore[arg-type]  # the stubs' Mapping key is invariant
            if self.ttl_s:
                pipe.expire(rk, self.ttl_s)
            pipe.execute()
        except Exception as exc:
            self._redis_failed(exc)


def _oriented(answer: Answer, mirrored: bool, width: int) -> Answer:
    """The answer for the mirror image when ``mirrored`` (columns reflected).

    A best move crosses the mirror only when it is the centre column: ties go
    left first, so the reflection of a best move is not always the best move
    of the reflection (of two equal columns 3 and 5 it is 3 on both sides)."""
    if not mirrored:
        return Answer(answer.scores, answer.score, answer.sign, answer.best)
    centre = answer.best is not None and 2 * answer.best == width - 1
    return Answer(
        None if answer.scores is None else tuple(reversed(answer.scores)),
        answer.score, answer.sign, answer.best if centre else None,
    )
