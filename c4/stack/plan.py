"""What ``c4 up`` runs: Redis, the engine and solver services, the gateway and
bookgen workers, with their addresses and settings (the names of
docs/services.md), as :class:`~c4.stack.supervisor.ChildSpec` lists.
"""

from __future__ import annotations

import errno
import functools
import os
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from servicekit.redis_binary import INSTALL_HINT, redis_server_binary

from . import probe
from .supervisor import ChildSpec

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


def free_port(host: str = "127.0.0.1") -> int:
    family, kind, proto, _, addr = socket.getaddrinfo(host, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    with socket.socket(family, kind, proto) as s:
        s.bind(addr)
        return s.getsockname()[1]


def bind_error(port: int, host: str = "127.0.0.1") -> OSError | None:
    """Why a server could not listen on host:port now (None: it could), for
    IPv4 and IPv6 hosts and names alike."""
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                          flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as err:
        return err
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(addr)
        except OSError as err:
            return err
    return None


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    return bind_error(port, host) is None


def redis_title_args(binary: str) -> list[str]:
    """``--set-proc-title no`` where Redis knows it (6.2+): its process title would
    overwrite the memory of its environment, and with it the C4_STACK_ID that
    finds the processes of a stack."""
    import re
    import subprocess

    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    found = re.search(r"v=(\d+)\.(\d+)", out)
    return ["--set-proc-title", "no"] if found and tuple(map(int, found.groups())) >= (6, 2) else []


def hostport(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def url_host(host: str) -> str:
    """The host to put in a URL a person opens: a wildcard bind is reached on loopback."""
    if host in ("0.0.0.0", "", "::"):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


@dataclass
class StackOptions:
    data_dir: Path
    host: str = "127.0.0.1"  # where the gateway's HTTP and bridge listen
    http_port: int = 8000
    bridge_port: int = 4444
    engine_port: int = 0  # 0: a free port
    solver_port: int = 0
    engine_metrics_port: int = 0
    solver_metrics_port: int = 0
    redis_url: str | None = None  # a running server to use instead of starting one
    redis_port: int = 0
    workers: int = 0
    public_url: str | None = None  # the URL people use (watch links); default from host and port
    stack_id: str = "stack"
    redis_ping_timeout_s: float = 1.0  # liveness ping of the stack's own Redis
    redis_hang_restart_s: float | None = 15.0  # restart it after this long without an answer (None: only report)
    redis_maxmemory_mb: int = 1024  # its memory cap; noeviction: full means writes refused, nothing evicted
    python: str = field(default_factory=lambda: sys.executable)


@dataclass
class Stack:
    specs: list[ChildSpec]
    redis_url: str
    http_url: str
    bridge: str
    mcp_url: str
    metrics: dict[str, str]
    redis_external: bool

    def summary(self) -> dict:
        return {
            "http_url": self.http_url,
            "bridge": self.bridge,
            "mcp_url": self.mcp_url,
            "redis_url": self.redis_url,
            "redis_external": self.redis_external,
            "metrics": self.metrics,
        }


class PlanError(RuntimeError):
    """The stack cannot be planned as asked (busy port, no redis-server, ...)."""


def build(opts: StackOptions) -> Stack:
    """Choose ports, check they are free, and describe every child."""
    loop = "127.0.0.1"
    given: dict[int, str] = {}
    for option, port in (("--http-port", opts.http_port), ("--bridge-port", opts.bridge_port),
                         ("--engine-port", opts.engine_port), ("--solver-port", opts.solver_port),
                         ("--engine-metrics-port", opts.engine_metrics_port),
                         ("--solver-metrics-port", opts.solver_metrics_port), ("--redis-port", opts.redis_port)):
        if port and port in given:  # each would pass the free-port check, then one child could never bind
            raise PlanError(f"{given[port]} and {option} are both {port}: give each its own port")
        given.setdefault(port, option)
    for label, port, host in (("HTTP", opts.http_port, opts.host), ("bridge", opts.bridge_port, opts.host)):
        err = bind_error(port, host) if port or label == "HTTP" else None
        if isinstance(err, OSError) and err.errno == errno.EADDRINUSE:
            raise PlanError(f"the {label} port {hostport(host, port)} is in use "
                            f"(another stack?): choose another with --{label.lower()}-port")
        if err:  # not a local address, an unknown name, a port below 1024 without the right
            raise PlanError(f"cannot listen on {hostport(host, port)} for {label} (--host {host}): "
                            f"{err.strerror or err}")
    http_port = opts.http_port or free_port(opts.host)  # 0: a free one (the gateway's URL must be known)
    engine_port = opts.engine_port or free_port()
    solver_port = opts.solver_port or free_port()
    engine_metrics = opts.engine_metrics_port or free_port()
    solver_metrics = opts.solver_metrics_port or free_port()
    for label, port in (("engine", engine_port), ("solver", solver_port),
                        ("engine metrics", engine_metrics), ("solver metrics", solver_metrics)):
        if not port_is_free(port, loop):
            raise PlanError(f"the {label} port {port} is in use")

    data = opts.data_dir
    specs: list[ChildSpec] = []
    py = opts.python

    # Stage 0: Redis, unless a running one is given.
    if opts.redis_url:
        ok, why = probe.redis_ping(opts.redis_url)
        if not ok:
            raise PlanError(f"REDIS_URL {opts.redis_url} does not answer ({why}); "
                            "unset it to let `c4 up` start its own Redis")
        redis_url, redis_external = opts.redis_url, True
    else:
        binary = redis_server_binary()
        if not binary:
            raise PlanError(f"no redis-server found: {INSTALL_HINT}")
        redis_port = opts.redis_port or free_port()
        if not port_is_free(redis_port, loop):
            raise PlanError(f"the Redis port {redis_port} is in use: choose another with --redis-port")
        redis_dir = data / "redis"
        redis_dir.mkdir(parents=True, exist_ok=True)
        redis_url, redis_external = f"redis://{loop}:{redis_port}/0", False
        specs.append(ChildSpec(
            name="redis",
            argv=[binary, "--port", str(redis_port), "--bind", loop, "--dir", str(redis_dir.resolve()),
                  "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
                  "--maxmemory", f"{opts.redis_maxmemory_mb}mb", "--maxmemory-policy", "noeviction",
                  "--daemonize", "no", "--protected-mode", "yes", "--loglevel", "notice",
                  *redis_title_args(binary)],
            ready=functools.partial(probe.redis_ping, redis_url, 1.0),
            alive=functools.partial(probe.redis_answers, redis_url, opts.redis_ping_timeout_s),
            hang_restart_s=opts.redis_hang_restart_s,
            stage=0, stop_timeout=30.0,
            info={"url": redis_url, "dir": str(redis_dir.resolve())},
        ))

    common = {"REDIS_URL": redis_url}
    engine_addr, solver_addr = hostport(loop, engine_port), hostport(loop, solver_port)

    # Stage 1: engine and solver warm up side by side.
    specs.append(ChildSpec(
        name="engine", argv=[py, "-m", "engine_svc"], stage=1,
        env={**common, "C4_ENGINE_HOST": loop, "C4_ENGINE_PORT": str(engine_port),
             "C4_ENGINE_METRICS_PORT": str(engine_metrics)},
        ready=functools.partial(probe.grpc_health, engine_addr, "", 1.0),
        info={"address": engine_addr, "metrics": f"http://{loop}:{engine_metrics}/metrics"},
    ))
    specs.append(ChildSpec(
        name="solver", argv=[py, "-m", "solver_svc"], stage=1,
        env={**common, "C4_SOLVER_HOST": loop, "C4_SOLVER_PORT": str(solver_port),
             "C4_SOLVER_METRICS_PORT": str(solver_metrics), "C4_SOLVER_REDIS_URL": redis_url},
        ready=functools.partial(probe.grpc_health, solver_addr, "", 1.0),
        info={"address": solver_addr, "metrics": f"http://{loop}:{solver_metrics}/metrics"},
    ))

    # Stage 2: the gateway, ready when Redis and both services answer its /readyz.
    bridge = f"{url_host(opts.host)}:{opts.bridge_port}" if opts.bridge_port else "off"
    local = f"http://{url_host(opts.host)}:{http_port}"
    public = (opts.public_url or local).rstrip("/")
    readyz = local + "/readyz"
    specs.append(ChildSpec(
        name="gateway", argv=[py, "-m", "gateway"], stage=2,
        env={**common, "C4_GATEWAY_HOST": opts.host, "C4_GATEWAY_PORT": str(http_port),
             "C4_GATEWAY_BRIDGE_HOST": opts.host, "C4_GATEWAY_BRIDGE_PORT": str(opts.bridge_port),
             "C4_GATEWAY_ENGINE_ADDR": engine_addr, "C4_GATEWAY_SOLVER_ADDR": solver_addr,
             "C4_GATEWAY_PUBLIC_URL": public, **_learn_queue_of_the_workers()},
        ready=functools.partial(probe.http_ok, readyz, 1.0),
        info={"url": public + "/", "bridge": bridge, "mcp": public + "/mcp", "metrics": local + "/metrics"},
    ))

    # Stage 3: bookgen workers.
    for i in range(1, opts.workers + 1):
        node = f"worker-{i}.{opts.stack_id}@{socket.gethostname()}"
        specs.append(ChildSpec(
            name=f"worker-{i}", argv=[py, "-m", "c4.main", "bookgen", "worker", "--name", node], stage=3,
            env={**common}, stop_timeout=30.0,
            ready=functools.partial(celery_ping, redis_url, node), info={"node": node},
        ))

    metrics = {"gateway": local + "/metrics",
               "engine": f"http://{loop}:{engine_metrics}/metrics",
               "solver": f"http://{loop}:{solver_metrics}/metrics"}
    return Stack(specs=specs, redis_url=redis_url, http_url=public + "/", bridge=bridge, mcp_url=public + "/mcp",
                 metrics=metrics, redis_external=redis_external)


def _learn_queue_of_the_workers() -> dict[str, str]:
    """The gateway sends learn requests where the workers take them: a
    C4_BOOKGEN_LEARN_QUEUE in the environment moves both (unless the gateway's own is set)."""
    queue = os.environ.get("C4_BOOKGEN_LEARN_QUEUE")
    if queue and "C4_GATEWAY_LEARN_QUEUE" not in os.environ:
        return {"C4_GATEWAY_LEARN_QUEUE": queue}
    return {}


_celery_apps: dict = {}


def celery_ping(redis_url: str, node: str, timeout: float = 1.0) -> tuple[bool, str]:
    """Does the bookgen worker called `node` answer a Celery control ping?"""
    try:
        if redis_url not in _celery_apps:
            from books.bookgen.app import make_app

            _celery_apps[redis_url] = make_app(redis_url)
        replies = _celery_apps[redis_url].control.ping(destination=[node], timeout=timeout)
    except Exception as err:  # broker down, bookgen missing: not ready, say why
        return False, f"{type(err).__name__}: {err}"
    return (True, "pong") if replies else (False, "no pong")


def redis_url_from_env() -> str | None:
    url = os.environ.get("REDIS_URL")
    if url and urlparse(url).scheme not in ("redis", "rediss", "unix"):
        raise PlanError(f"REDIS_URL must be a redis:// URL, not {url!r}")
    return url or None
