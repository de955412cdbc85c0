"""Run a round robin: every pair from the same paired openings, optionally in worker processes."""

from __future__ import annotations

import multiprocessing as mp
import os
import platform
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from connect4 import STANDARD, Geometry
from connect4.openings import random_openings

from .match import GameRecord, play_game
from .openings import GameSlot, schedule
from .players import PlayerFactory, Via
from servicekit.progress import Progress


class ArenaError(RuntimeError):
    """The run could not finish."""


@dataclass
class ArenaConfig:
    players: list[str]
    games: int  # per pair, even
    opening_plies: int
    seed: int
    workers: int = 1
    via: Via = Via()
    geometry: Geometry = STANDARD
    books: str | None = None  # perfect player's books (in-process), a connect4.bookset.book_files spec
    engine_books: str | None = "default"  # engine players' books: "default", "none" or paths
    gauntlet: bool = False  # the first player against each other one, instead of a round robin

    def to_json(self) -> dict:
        return {
            "players": self.players,
            "games_per_pair": self.games,
            "opening_plies": self.opening_plies,
            "seed": self.seed,
            "workers": self.workers,
            "via_grpc": None if self.via.in_process else {"engine": self.via.engine_addr, "solver": self.via.solver_addr},
            "gauntlet": self.gauntlet,
            "books": self.books,
            "engine_books": self.engine_books,
            "board": {"width": self.geometry.width, "height": self.geometry.height, "k": self.geometry.k},
        }


# -- worker side -------------------------------------------------------------
_factory: PlayerFactory | None = None


def _init_worker(geometry: Geometry, via: Via, books: str | None, engine_books: str | None) -> None:
    global _factory
    from connect4.bookset import load_setting

    _factory = PlayerFactory(geometry, via, load_setting(books), engine_books=engine_books)


def _play_slot(slot: GameSlot, opening: list[int]) -> GameRecord:
    assert _factory is not None
    first = _factory.make(slot.first, seed=slot.seed, opponent=slot.second)
    second = _factory.make(slot.second, seed=slot.seed ^ 0x5BD1E995, opponent=slot.first)
    rec = play_game(first, second, opening, _factory.geometry)
    rec.pair, rec.opening_index, rec.seed = slot.pair, slot.opening, slot.seed
    return rec


# -- driver --------------------------------------------------------------------
def run_arena(cfg: ArenaConfig, progress_stream=None) -> dict:
    """Play every game; returns the raw results (config, openings, games) as a dict.
    Progress goes to ``progress_stream``, default the ``sys.stderr`` of the call."""
    if len(cfg.players) < 2:
        raise ValueError("an arena needs at least two players")
    openings = random_openings(cfg.games // 2, cfg.opening_plies, cfg.seed, cfg.geometry)
    slots = schedule(cfg.players, cfg.games, openings, cfg.seed, cfg.gauntlet)
    progress = Progress("games", len(slots), progress_stream or sys.stderr)
    started = time.time()
    records: list[GameRecord | None] = [None] * len(slots)
    if cfg.workers <= 1:
        _init_worker(cfg.geometry, cfg.via, cfg.books, cfg.engine_books)
        try:
            for i, slot in enumerate(slots):
                records[i] = _play_slot(slot, openings[slot.opening])
                progress.advance(_label(records[i]))
        finally:
            if _factory is not None:
                _factory.close()
    else:
        # spawn: no forked gRPC or numba state; each worker compiles (or loads
        # the numba cache) once and keeps its players' tables between games.
        ctx = mp.get_context("spawn")
        with ProcessPoolExecutor(cfg.workers, mp_context=ctx, initializer=_init_worker,
                                 initargs=(cfg.geometry, cfg.via, cfg.books, cfg.engine_books)) as pool:
            pending = {pool.submit(_play_slot, slot, openings[slot.opening]): i for i, slot in enumerate(slots)}
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    i = pending.pop(fut)
                    try:
                        records[i] = fut.result()
                    except BrokenProcessPool:
                        raise ArenaError("a worker process died while playing "
                                         f"{slots[i].first} vs {slots[i].second} (a crash inside a player?); "
                                         "rerun with --workers 1 to see it") from None
                    progress.advance(_label(records[i]))
    progress.finish()
    return {
        "config": cfg.to_json(),
        "openings": [[c + 1 for c in o] for o in openings],
        "games": [r.to_json() for r in records if r is not None],  # every slot was played
        "run": {
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
            "elapsed_s": round(time.time() - started, 2),
            "python": platform.python_version(),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        },
    }


def _label(rec: GameRecord | None) -> str:
    assert rec is not None and rec.result is not None  # a game played to its end
    verdict = {1.0: "1-0", 0.0: "0-1", 0.5: "½-½"}[rec.result]
    return f"{rec.first} vs {rec.second} {verdict}"
