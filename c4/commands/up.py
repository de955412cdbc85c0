"""``c4 up``: the whole stack on one machine, without Docker.

Starts Redis (or uses the running one given by ``REDIS_URL``), the engine and
solver services, the gateway and, with ``--workers K``, bookgen workers, as
supervised child processes; waits until every one is ready; prints where to
open the game, the bridge and the MCP endpoint; restarts a child that dies;
Ctrl-C stops everything and leaves no process behind.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from pathlib import Path

from c4 import argtypes

PORT = argtypes.int_in(0, 65535)


def register(sub) -> None:
    p = sub.add_parser(
        "up", help="run the whole stack on this machine (Redis, engine, solver, gateway, workers)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    env = os.environ.get
    p.add_argument("--host", default=env("C4_UP_HOST", "127.0.0.1"),
                   help="interface for HTTP and the bridge (default 127.0.0.1; 0.0.0.0 to share on a network)")
    # string defaults go through type= too: a bad C4_UP_* value is refused like a bad option
    p.add_argument("--http-port", type=PORT, default=env("C4_UP_HTTP_PORT", "8000"), help="default 8000; 0 for a free one")
    p.add_argument("--bridge-port", type=PORT, default=env("C4_UP_BRIDGE_PORT", "4444"),
                   help="default 4444; 0 turns the bridge off")
    p.add_argument("--public-url", default=env("C4_UP_PUBLIC_URL"),
                   help="the URL people open, for watch and invite links (default http://HOST:HTTP_PORT)")
    p.add_argument("--engine-port", type=PORT, default=0, help="engine gRPC port (default: a free one)")
    p.add_argument("--solver-port", type=PORT, default=0, help="solver gRPC port (default: a free one)")
    p.add_argument("--engine-metrics-port", type=PORT, default=0, help="default: a free one")
    p.add_argument("--solver-metrics-port", type=PORT, default=0, help="default: a free one")
    p.add_argument("--metrics-port", type=PORT, default=0,
                   help="port of this supervisor's /metrics: children up, restarts, bookgen queue length "
                        "(default: a free one)")
    p.add_argument("--redis-port", type=PORT, default=0, help="port of the Redis that c4 up starts (default: a free one)")
    p.add_argument("--redis-url", default=None,
                   help="use this running Redis instead of starting one (default: $REDIS_URL when set)")
    p.add_argument("--data-dir", type=Path, default=Path(env("C4_UP_DATA_DIR", "data/stack")),
                   help="Redis data, logs and the state file (default ./data/stack)")
    p.add_argument("--workers", type=argtypes.int_in(0, 64), default=1, metavar="K",
                   help="bookgen workers to run (default 1, which also serves learning from lost games; 0 for none)")
    p.add_argument("--redis-ping-timeout", type=argtypes.float_in(0, lo_open=True),
                   default=env("C4_UP_REDIS_PING_TIMEOUT_S", "1.0"), metavar="S",
                   help="seconds the stack's own Redis has to answer its liveness PING (default 1; "
                        "$C4_UP_REDIS_PING_TIMEOUT_S)")
    p.add_argument("--redis-hang-restart", type=argtypes.float_in(0), default=env("C4_UP_REDIS_HANG_RESTART_S", "15"),
                   metavar="S",
                   help="restart the stack's own Redis when it has not answered for S seconds (default 15; "
                        "0: only report it; $C4_UP_REDIS_HANG_RESTART_S)")
    p.add_argument("--redis-maxmemory-mb", type=argtypes.int_in(1, 1 << 20), default=env("C4_UP_REDIS_MAXMEMORY_MB", "1024"),
                   metavar="MB",
                   help="memory cap of the stack's own Redis, with the policy noeviction: a full Redis refuses writes "
                        "(the gateway answers 507) and never evicts a game or the bookgen queue (default 1024; "
                        "$C4_UP_REDIS_MAXMEMORY_MB)")
    p.add_argument("--start-timeout", type=argtypes.float_in(0, lo_open=True), default=900.0,
                   help="seconds a stage may take to become ready (a cold numba cache compiles first)")
    p.add_argument("--raw-logs", action="store_true", help="show the children's JSON log lines as they are")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.set_defaults(run=run)


def _recorded_pid(state_file: Path) -> int | None:
    """The pid the state file names, if that process is alive (for the message only:
    the lock says whether the folder is in use; a stale pid may belong to anything now)."""
    try:
        pid = int(json.loads(state_file.read_text())["pid"])
        os.kill(pid, 0)
    except PermissionError:
        return pid
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return pid


def _unusable_data_dir(data_dir: Path) -> str | None:
    """Make the data folder and its logs/; why it cannot be used, if it cannot."""
    try:
        (data_dir / "logs").mkdir(parents=True, exist_ok=True)
        probe = data_dir / ".c4-up-write-test"
        probe.write_text("")
        probe.unlink()
    except FileExistsError as err:
        return f"is not a folder ({err.filename} is a file)"
    except OSError as err:
        return f"cannot be used: {err.strerror or err}"
    return None


def _lock_data_dir(data_dir: Path):
    """An exclusive lock on the data folder for this process's life (two stacks
    started at once on one folder would share Redis's files); None when taken."""
    import fcntl

    handle = open(data_dir / "stack.lock", "a")  # noqa: SIM115 (held open past this block)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle


def run(args) -> int:
    from prometheus_client import start_http_server
    from prometheus_client.registry import CollectorRegistry

    from c4.stack import plan
    from c4.stack.queue_metrics import QueueCollector, bookgen_queues
    from c4.stack.child_metrics import SupervisorCollector
    from c4.stack.logsink import LogSink
    from c4.stack.supervisor import Supervisor

    data_dir: Path = args.data_dir.resolve()
    unusable = _unusable_data_dir(data_dir)
    if unusable:
        print(f"c4 up: --data-dir {data_dir} {unusable}", file=sys.stderr)
        return 2
    state_file = data_dir / "stack.json"
    lock = _lock_data_dir(data_dir)
    if lock is None:
        who = f" (pid {_recorded_pid(state_file)})" if _recorded_pid(state_file) else ""
        print(f"c4 up: another stack{who} uses {data_dir}; stop it or choose --data-dir", file=sys.stderr)
        return 2

    stack_id = uuid.uuid4().hex[:12]
    try:
        opts = plan.StackOptions(
            data_dir=data_dir, host=args.host, http_port=args.http_port, bridge_port=args.bridge_port,
            engine_port=args.engine_port, solver_port=args.solver_port,
            engine_metrics_port=args.engine_metrics_port, solver_metrics_port=args.solver_metrics_port,
            redis_url=args.redis_url or plan.redis_url_from_env(), redis_port=args.redis_port,
            public_url=args.public_url,
            workers=max(0, args.workers), stack_id=stack_id,
            redis_ping_timeout_s=args.redis_ping_timeout, redis_hang_restart_s=args.redis_hang_restart or None,
            redis_maxmemory_mb=args.redis_maxmemory_mb,
        )
        stack = plan.build(opts)
        metrics_port = args.metrics_port or plan.free_port()
        if not plan.port_is_free(metrics_port):
            raise plan.PlanError(f"the metrics port {metrics_port} is in use: choose another with --metrics-port")
    except plan.PlanError as err:
        print(f"c4 up: {err}", file=sys.stderr)
        return 2

    color = {"auto": None, "always": True, "never": False}[args.color]
    sink = LogSink(sys.stdout, file=data_dir / "logs" / "stack.log", color=color, raw=args.raw_logs)
    stack.metrics["stack"] = f"http://127.0.0.1:{metrics_port}/metrics"
    sup = Supervisor(stack.specs, sink, state_file=state_file, stack_id=stack_id,
                     start_timeout=args.start_timeout,
                     extra_state={**stack.summary(), "data_dir": str(data_dir), "ready": False})
    sup.install_signal_handlers()
    registry = CollectorRegistry()
    registry.register(SupervisorCollector(sup))
    registry.register(QueueCollector(stack.redis_url, bookgen_queues()))
    metrics_server, _ = start_http_server(metrics_port, addr="127.0.0.1", registry=registry)

    def on_ready() -> None:
        sup.extra_state["ready"] = True
        sup.write_state()
        lines = [
            "",
            "Connect Four is up.",
            f"  open      {stack.http_url}",
            f"  bridge    {stack.bridge}" + ("" if stack.bridge == "off" else "   (JSON lines: {\"cmd\":\"state\"})"),
            f"  MCP       {stack.mcp_url}   (streamable HTTP)",
            f"  metrics   {stack.metrics['gateway']}  engine {stack.metrics['engine']}  "
            f"solver {stack.metrics['solver']}",
            f"            stack (children, bookgen queue) {stack.metrics['stack']}",
            f"  redis     {stack.redis_url}" + ("" if stack.redis_external else f"   (data in {data_dir / 'redis'})"),
            f"  logs      {data_dir / 'logs' / 'stack.log'}",
            "Ctrl-C stops everything.",
            "",
        ]
        sink.announce("\n".join(lines))

    sink.note(f"stack {stack_id}: data in {data_dir}")
    try:
        return sup.run(on_ready=on_ready)
    finally:
        metrics_server.shutdown()
        sink.close()
        lock.close()  # the data folder is free again
