"""Gateway settings from environment variables (``C4_GATEWAY_*`` and ``REDIS_URL``)."""

from __future__ import annotations

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class GatewaySettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="C4_GATEWAY_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 8000
    bridge_host: str = "127.0.0.1"
    bridge_port: int = 4444  # 0 turns the bridge off
    engine_addr: str = "127.0.0.1:50051"
    solver_addr: str = "127.0.0.1:50052"
    game_ttl_s: int = 7 * 24 * 3600  # a game expires after this many idle seconds
    public_url: str = "http://127.0.0.1:8000"
    redis_url: str = Field(
        default="redis://127.0.0.1:6379/0",
        validation_alias=AliasChoices("REDIS_URL", "C4_GATEWAY_REDIS_URL"),
    )
    web_dir: str = ""  # default: the repository's web/ folder
    bridge_opponent: str = "engine:1000"  # opponent of games the bridge and MCP create
    default_opponent: str = "engine:1000"
    rpc_timeout_s: float = 10.0  # deadline of quick RPCs; a think gets think time + this
    rpc_retries: int = 4  # attempts on UNAVAILABLE (gRPC retry policy)
    sweep_interval_s: float = 1.0  # how often orphaned opponent turns are looked for
    learn_timeout_s: float = 120.0  # wait for a bookgen worker's learn report, then learning_unavailable
    learn_queue: str = "c4.learn"  # the queue bookgen workers take bookgen.learn from
    max_body_bytes: int = 1 << 20  # a request body over this is refused with 413 too_large
    workers: int = 1  # HTTP + bridge processes sharing the ports (all state is in Redis)
    log_level: str = "INFO"
    # -- agents: the bridge's table, MCP, authentication (docs/api.md) --
    bridge_table: str = ""  # name of the bridge's shared game (default bridge-PORT); watch it at /tables/NAME
    bridge_hints: bool = True  # hints of the table's first game (Connect4-rs's default); `new` keeps the setting
    secret: str = ""  # seals the table's seat token in Redis; empty: a random one kept in Redis (c4:secret)
    auth_tokens_sha256: str = ""  # comma-separated SHA-256 hex digests of accepted bearer tokens; empty: no auth
    auth_loopback: bool = False  # require a token from loopback clients too
    mcp_output: str = "structured"  # or "connect4-rs": tool text as Connect4-rs's connect4-mcp renders it
