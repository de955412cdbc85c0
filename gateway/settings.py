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
    finished_ttl_s: int = 24 * 3600  # a finished game expires this long after its last change
    # Redis: every wait bounded; a Redis that does not answer gives 503 with Retry-After
    redis_connect_timeout_s: float = 2.0
    redis_socket_timeout_s: float = 2.0  # one command's answer
    redis_max_connections: int = 64  # the pool every request shares (a request waits for a free one)
    redis_pool_timeout_s: float = 1.0  # the longest wait for a free pooled connection
    retry_after_s: int = 1  # Retry-After of a 503 or 429
    # WebSockets
    ws_max_bytes: int = 64 * 1024  # a larger frame closes the socket (1009)
    ws_per_client: int = 50  # open WebSockets per client address (process-wide); more get 429
    # per client address, per gateway process: token buckets (a burst of N, then N a minute)
    creates_per_minute: int = 120
    analyses_per_minute: int = 120
    # analysis by callers who are not players of the game
    public_analysis_concurrency: int = 2  # at once per process; more get 429
    public_analysis_max_deadline_ms: int = 10000  # a longer deadline_ms is cut to this
    # HTTP connections
    max_header_bytes: int = 16 * 1024  # request line and headers over this: 431
    header_timeout_s: float = 10.0  # a connection that has not sent its headers by then is closed
    keep_alive_timeout_s: float = 5.0  # an idle kept-alive connection is closed after this
    limit_concurrency: int = 2048  # connections + requests at once; more get 503
    workers: int = 1  # HTTP + bridge processes sharing the ports (all state is in Redis)
    log_level: str = "INFO"
    # -- agents: the bridge's table, MCP, authentication (docs/api.md) --
    bridge_table: str = ""  # name of the bridge's shared game (default bridge-PORT); watch it at /tables/NAME
    bridge_hints: bool = True  # hints of the table's first game (Connect4-rs's default); `new` keeps the setting
    secret: str = ""  # seals the table's seat token in Redis; empty: a random one kept in Redis (c4:secret)
    auth_tokens_sha256: str = ""  # comma-separated SHA-256 hex digests of accepted bearer tokens; empty: no auth
    auth_loopback: bool = False  # require a token from loopback clients too
    mcp_output: str = "structured"  # or "connect4-rs": tool text as Connect4-rs's connect4-mcp renders it
