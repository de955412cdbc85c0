"""Results in Redis under the position key, shared by workers and coordinator.

Layout (``G`` is the board name, e.g. ``7x6``; keys are Pons' position keys
in hex, mirrored to the smaller of a position and its mirror image, so a
position and its mirror share one entry)::

    c4:bookgen:G:score     hash  key -> exact score of the position (Pons)
    c4:bookgen:G:analysis  hash  key -> "s1 .. sW": score of every column
                                 (``x`` = full), for the smaller orientation
    c4:bookgen:G:best      hash  key -> "column score": the perfect player's
                                 move (1-based, smaller orientation) and score
    c4:bookgen:G:ties      hash  key -> "c1,c2,.. score": every column of the
                                 best score (1-based, smaller orientation,
                                 centre first) and the score
    c4:bookgen:G:starts    hash  key -> how many times a task started on it
    c4:bookgen:running     hash  "host:pid" -> "G key": task in progress

Writing a value that is already there changes nothing (the values are exact
and unique), which is what makes every task idempotent.
"""

from __future__ import annotations

import socket
import os
from collections.abc import Sequence

import redis

from connect4 import Geometry, Position
from connect4.keys import canonical

PREFIX = "c4:bookgen"


def format_scores(scores: Sequence[int | None]) -> str:
    return " ".join("x" if s is None else str(s) for s in scores)


def _text(v: bytes | str) -> str:
    """A Redis reply as text (the client may or may not decode replies)."""
    return v.decode() if isinstance(v, bytes) else v


def parse_scores(text: str | bytes) -> list[int | None]:
    return [None if p == "x" else int(p) for p in _text(text).split()]


class ResultStore:
    """Exact scores and analyses by canonical position key, in Redis."""

    def __init__(self, client: redis.Redis, geometry: Geometry):
        self.r = client
        self.g = geometry
        base = f"{PREFIX}:{geometry.name}"
        self.k_score = f"{base}:score"
        self.k_analysis = f"{base}:analysis"
        self.k_best = f"{base}:best"
        self.k_ties = f"{base}:ties"
        self.k_starts = f"{base}:starts"
        self.k_running = f"{PREFIX}:running"

    @classmethod
    def from_url(cls, url: str, geometry: Geometry) -> ResultStore:
        return cls(redis.Redis.from_url(url, socket_timeout=30, health_check_interval=30), geometry)

    # -- scores ------------------------------------------------------------------
    def score(self, pos: Position) -> int | None:
        v = self.r.hget(self.k_score, f"{canonical(pos)[0]:x}")
        return None if v is None else int(v)

    def scores(self, keys: Sequence[int]) -> list[int | None]:
        """Scores of canonical keys, one round trip."""
        if not keys:
            return []
        vals = self.r.hmget(self.k_score, [f"{k:x}" for k in keys])
        return [None if v is None else int(v) for v in vals]

    def put_score(self, pos: Position, score: int) -> None:
        self.r.hset(self.k_score, f"{canonical(pos)[0]:x}", score)

    def all_scores(self) -> dict[int, int]:
        return {int(k, 16): int(v) for k, v in self.r.hgetall(self.k_score).items()}

    # -- analyses ----------------------------------------------------------------
    def analysis(self, pos: Position) -> list[int | None] | None:
        key, flipped = canonical(pos)
        v = self.r.hget(self.k_analysis, f"{key:x}")
        if v is None:
            return None
        scores = parse_scores(v)
        return scores[::-1] if flipped else scores

    def analyses(self, keys: Sequence[int]) -> list[tuple[int | None, ...] | None]:
        """Analyses of canonical keys (the smaller orientation's columns), one round trip."""
        if not keys:
            return []
        vals = self.r.hmget(self.k_analysis, [f"{k:x}" for k in keys])
        return [None if v is None else tuple(parse_scores(v)) for v in vals]

    def put_scores(self, scores: dict[int, int]) -> None:
        """Exact scores of canonical keys, one round trip."""
        if scores:
            self.r.hset(self.k_score, mapping={f"{k:x}": s for k, s in scores.items()})

    def put_analysis(self, pos: Position, scores: Sequence[int | None]) -> None:
        key, flipped = canonical(pos)
        oriented = list(scores)[::-1] if flipped else list(scores)
        self.r.hset(self.k_analysis, f"{key:x}", format_scores(oriented))

    # -- best moves -----------------------------------------------------------------
    def best(self, pos: Position) -> tuple[int, int] | None:
        """(0-based column for ``pos`` as given, score) or None."""
        key, flipped = canonical(pos)
        v = self.r.hget(self.k_best, f"{key:x}")
        return None if v is None else self._orient(v, flipped)

    def bests(self, keys: Sequence[int]) -> list[tuple[int, int] | None]:
        """Best moves of canonical keys (column in the smaller orientation)."""
        if not keys:
            return []
        vals = self.r.hmget(self.k_best, [f"{k:x}" for k in keys])
        return [None if v is None else self._orient(v, False) for v in vals]

    def put_best(self, pos: Position, column: int, score: int) -> None:
        """Store the move (0-based, for ``pos`` as given) and the position's
        score; the score also goes to the score hash."""
        key, flipped = canonical(pos)
        col = self.g.width - 1 - column if flipped else column
        pipe = self.r.pipeline()
        pipe.hset(self.k_best, f"{key:x}", f"{col + 1} {score}")
        pipe.hset(self.k_score, f"{key:x}", score)
        pipe.execute()

    # -- tied best moves ------------------------------------------------------------
    def ties_of(self, keys: Sequence[int]) -> list[tuple[tuple[int, ...], int] | None]:
        """(every 0-based column of the best score, centre first; the score) of
        canonical keys, in the smaller orientation; None where not known."""
        if not keys:
            return []
        vals = self.r.hmget(self.k_ties, [f"{k:x}" for k in keys])
        out: list[tuple[tuple[int, ...], int] | None] = []
        for v in vals:
            if v is None:
                out.append(None)
                continue
            cols, score = _text(v).split()
            out.append((tuple(int(c) - 1 for c in cols.split(",")), int(score)))
        return out

    def put_ties(self, pos: Position, columns: Sequence[int], score: int) -> None:
        """Store every column of the best score (0-based, for ``pos`` as given);
        the first in centre order of the smaller orientation is also its best
        move, and the score goes to the score hash."""
        key, flipped = canonical(pos)
        w = self.g.width
        cols = sorted({w - 1 - c if flipped else c for c in columns}, key=self.g.center_order().index)
        pipe = self.r.pipeline()
        pipe.hset(self.k_ties, f"{key:x}", f"{','.join(str(c + 1) for c in cols)} {score}")
        pipe.hset(self.k_best, f"{key:x}", f"{cols[0] + 1} {score}")
        pipe.hset(self.k_score, f"{key:x}", score)
        pipe.execute()

    def _orient(self, v: bytes | str, flipped: bool) -> tuple[int, int]:
        col, score = (int(x) for x in _text(v).split())
        col -= 1
        return (self.g.width - 1 - col if flipped else col), score

    # -- bookkeeping ---------------------------------------------------------------
    def task_started(self, key: int) -> None:
        pipe = self.r.pipeline()
        pipe.hincrby(self.k_starts, f"{key:x}", 1)
        pipe.hset(self.k_running, worker_id(), f"{self.g.name} {key:x}")
        pipe.execute()

    def task_finished(self) -> None:
        self.r.hdel(self.k_running, worker_id())

    def starts(self) -> dict[int, int]:
        return {int(k, 16): int(v) for k, v in self.r.hgetall(self.k_starts).items()}

    def running(self) -> dict[str, str]:
        return {_text(k): _text(v) for k, v in self.r.hgetall(self.k_running).items()}

    def clear(self) -> None:
        self.r.delete(self.k_score, self.k_analysis, self.k_best, self.k_ties, self.k_starts)


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"
