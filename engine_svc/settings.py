"""Settings of the engine service: environment variables ``C4_ENGINE_*``.

Every default works on a laptop (docs/services.md, docs/engine.md).
"""

from __future__ import annotations

from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict

from connect4.bookset import SHIPPED_MOVE_BOOKS


class EngineSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="C4_ENGINE_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 50051
    # Transposition table of each search, in megabytes.
    tt_mb: float = 64.0
    # Move books, comma separated; later files override earlier ones. Unset =
    # the shipped opening and corrective books (whichever exist); "none" = no book.
    books: str | None = None
    metrics_port: int = 9101
    # Boards past 64 bits whose kernels compile in a background thread after the
    # 7x6 warm-up (comma separated, e.g. "8x8,9x7"; "none"): their first move
    # then does not wait for tens of seconds of compiling.
    prewarm: str = "8x8"
    # Searches running at once; each has its own table from a pool.
    max_concurrent: int = 4
    # Time kept back from a gRPC deadline to send the answer.
    deadline_margin_ms: float = 20.0
    # On SIGTERM, running requests get this long before they are cancelled
    # (which stops their searches); the process then exits.
    shutdown_grace_s: float = 5.0
    log_level: str = "INFO"

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def book_paths(self) -> list[Path]:
        if self.books is None:
            return list(SHIPPED_MOVE_BOOKS)
        if self.books.strip().lower() in ("", "none"):
            return []
        return [Path(p.strip()) for p in self.books.split(",") if p.strip()]
