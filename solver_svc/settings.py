"""Settings of the solver service: environment variables ``C4_SOLVER_*``.

Every default works on a laptop (docs/services.md, docs/solver-service.md).
"""

from __future__ import annotations

import os

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class SolverSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="C4_SOLVER_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 50052
    metrics_port: int = 9102
    # "builtin" (the numba solver) or "external" (a process speaking Pascal
    # Pons' line protocol, with the built-in solver answering when it fails).
    backend: str = "builtin"
    # The external solver's command line, split like a shell does; "-a" is
    # added when missing. Extra arguments are passed through unchanged.
    external_cmd: str = "c4solver -a"
    external_pool: int = 2
    # Book files or folders (comma separated); unset = the shipped books/,
    # "none" = no books.
    books: str | None = None
    # Answers kept in process (positions); 0 turns the in-process cache off.
    cache_size: int = 100_000
    # Redis for the shared answer cache; C4_SOLVER_REDIS_URL, else REDIS_URL,
    # else no Redis cache.
    redis_url: str | None = Field(
        default=None, validation_alias=AliasChoices("C4_SOLVER_REDIS_URL", "REDIS_URL")
    )
    redis_ttl_s: int = 30 * 24 * 3600
    # Built-in solvers working at once (each with its own transposition table).
    workers: int = Field(default_factory=lambda: max(2, min(4, os.cpu_count() or 2)))
    # Boards past 64 bits whose kernels are compiled in the background at start
    # (comma separated, e.g. "8x8,9x7"; "none": none); others compile on first use.
    prewarm: str = "8x8"
    # log2 of transposition-table entries per solver; unset = the solver's default.
    tt_log2: int | None = None
    # Time kept back from a gRPC deadline to send the answer.
    deadline_margin_ms: float = 5.0
    # On SIGTERM, running requests get this long before they are cancelled
    # (which stops their searches); the process then exits.
    shutdown_grace_s: float = 5.0
    log_level: str = "INFO"

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"
