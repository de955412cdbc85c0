"""Readiness probes, usable as functions and as a container health check.

    python -m c4.stack.probe grpc 127.0.0.1:50051      # gRPC health: SERVING?
    python -m c4.stack.probe http http://127.0.0.1:8000/readyz
    python -m c4.stack.probe redis redis://127.0.0.1:6379/0
    python -m c4.stack.probe tcp 127.0.0.1:4444

Exit code 0 when ready, 1 when not (the reason goes to stderr), as Docker's
HEALTHCHECK expects. Each probe answers within its timeout and never raises.
"""

from __future__ import annotations

import argparse
import socket
import sys
import urllib.error
import urllib.request
from collections.abc import Callable


def grpc_health(address: str, service: str = "", timeout: float = 2.0) -> tuple[bool, str]:
    """Standard gRPC health check: (True, "SERVING") when the server says SERVING."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    try:
        with grpc.insecure_channel(address) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
    except grpc.RpcError as err:
        code = err.code() if hasattr(err, "code") else None
        return False, f"{getattr(code, 'name', 'ERROR')}: {err.details() if hasattr(err, 'details') else err}"
    name = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    return reply.status == health_pb2.HealthCheckResponse.SERVING, name


def http_ok(url: str, timeout: float = 2.0) -> tuple[bool, str]:
    """GET url: ready when the answer is 2xx."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            return 200 <= reply.status < 300, f"HTTP {reply.status}"
    except urllib.error.HTTPError as err:
        return False, f"HTTP {err.code}"
    except (OSError, ValueError) as err:
        return False, f"{type(err).__name__}: {err}"


def redis_ping(url: str, timeout: float = 2.0) -> tuple[bool, str]:
    """PING the Redis server named by a redis:// URL."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        try:
            return bool(client.ping()), "PONG"
        finally:
            client.close()
    except (redis.RedisError, OSError, ValueError) as err:
        return False, f"{type(err).__name__}: {err}"


def redis_answers(url: str, timeout: float = 2.0) -> tuple[bool, str]:
    """Liveness, not readiness: does the Redis server answer a PING at all within
    ``timeout``? An error reply (LOADING while it reads its append-only file)
    is an answer; a timeout or a refused connection is not."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        try:
            client.ping()
            return True, "PONG"
        finally:
            client.close()
    except (redis.exceptions.BusyLoadingError, redis.ResponseError) as err:  # LOADING and the like: it answered
        return True, f"answers: {err}"
    except (redis.RedisError, OSError, ValueError) as err:
        return False, f"{type(err).__name__}: {err}"


def tcp_open(address: str, timeout: float = 2.0) -> tuple[bool, str]:
    """Something accepts connections on host:port."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=timeout):
            return True, "open"
    except (OSError, ValueError) as err:
        return False, f"{type(err).__name__}: {err}"


Probe = Callable[[str, float], tuple[bool, str]]  # (target, timeout) -> (ready, why)

# grpc_health also takes a service name: main calls it by name.
PROBES: dict[str, Probe] = {"http": http_ok, "redis": redis_ping, "tcp": tcp_open}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m c4.stack.probe", description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=sorted([*PROBES, "grpc"]))
    parser.add_argument("target", help="host:port for grpc and tcp, a URL for http and redis")
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument("--service", default="", help="gRPC service name to check (default: the whole server)")
    args = parser.parse_args(argv)
    if args.kind == "grpc":
        ok, why = grpc_health(args.target, args.service, args.timeout)
    else:
        ok, why = PROBES[args.kind](args.target, args.timeout)
    if not ok:
        print(f"{args.kind} {args.target}: not ready ({why})", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
