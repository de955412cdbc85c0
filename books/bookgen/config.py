"""Bookgen settings: environment variables, defaults usable on a laptop."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

BOOK_DIR = Path(__file__).resolve().parent.parent


class BookgenSettings(BaseSettings):
    """``REDIS_URL`` is shared by every process; the rest is ``C4_BOOKGEN_*``."""

    model_config = SettingsConfigDict(env_prefix="C4_BOOKGEN_", extra="ignore")

    redis_url: str = Field("redis://127.0.0.1:6379/0", validation_alias="REDIS_URL")
    # Seconds the broker waits for an ack before handing a task to another
    # worker when the worker holding it vanished with its connection (machine
    # lost). Must exceed the longest task; a task whose pool process dies
    # under a living worker is requeued at once (task_reject_on_worker_lost).
    visibility_timeout: int = 4 * 3600
    # Worker heartbeats (books/bookgen/heartbeat.py): a worker's heartbeat every
    # heartbeat_s, dead after heartbeat_ttl_s without one; its taken tasks are
    # then put back in their queue by a living worker. A task taken and not
    # started within unheld_grace_s is put back too.
    heartbeat_s: float = 5.0
    heartbeat_ttl_s: float = 20.0
    unheld_grace_s: float = 60.0
    queue: str = "c4.bookgen"
    learn_queue: str = "c4.learn"
    tt_log2: int = 23  # solver table per worker process: 2**23 entries of 8 bytes
    corrective_book: Path = BOOK_DIR / "7x6-corrective.txt"
    opening_book: Path = BOOK_DIR / "7x6-opening.txt"
    engine_depths: str = "12,13"
    # Boards whose solver kernels a worker compiles before it takes tasks.
    warm: str = "7x6"
    # /healthz (the consumer's liveness, books.bookgen.liveness) and /metrics; 0: off
    health_port: int = 0
    health_host: str = "127.0.0.1"


def settings() -> BookgenSettings:
    return BookgenSettings()
