"""A replica that appears later gets the gateway's calls within seconds:
``gateway.services`` re-resolves a ``dns:///name:port`` address on a short
period (gRPC's own resolver looks again only when a connection fails, which
left a new ``docker compose --scale`` replica idle for minutes).

Real parts: two gRPC servers on two loopback addresses and one port, the
gateway's own ``Services`` client in a child process, and the C library's
resolver reading a hosts file: the child runs in a mount namespace of its own
(``unshare -m``; not as root, in a user namespace of its own too, ``unshare -r -m``)
with this test's hosts file bound over /etc/hosts, so the test changes what the
name resolves to exactly as DNS would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from c4.stack.plan import free_port
from tests.deploy.health_replica import serve_health

REPO = Path(__file__).resolve().parents[2]
NAME = "engines.c4test"


def unshare_mount() -> list[str]:
    """The command that runs a child in a mount namespace of its own: as root
    directly, else inside a user namespace (unprivileged, where the kernel allows it)."""
    if not shutil.which("unshare"):
        pytest.fail("no unshare: util-linux is part of every Debian system")
    if os.geteuid() == 0:
        return ["unshare", "--mount"]
    argv = ["unshare", "--map-root-user", "--mount"]
    if subprocess.run([*argv, "true"], capture_output=True).returncode != 0:
        pytest.skip("not root, and this kernel refuses unprivileged user namespaces (no mount namespace)")
    return argv


CLIENT = textwrap.dedent("""
    import asyncio, sys, time
    from pathlib import Path
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    from gateway.services import Services
    from servicekit.logs import configure_logging

    configure_logging("gateway", "INFO")  # the gateway's own logging: its log lines must work too
    port, stop = int(sys.argv[1]), Path(sys.argv[2])

    async def main():
        addr = f"dns:///{NAME}:{port}"
        services = Services(engine_addr=addr, solver_addr=addr, timeout_s=5, resolve_interval_s=0.5)
        try:
            deadline = time.monotonic() + 240
            first = True
            while not stop.exists() and time.monotonic() < deadline:
                reply = await health_pb2_grpc.HealthStub(services.engine_channel).Check(
                    health_pb2.HealthCheckRequest(service=""), timeout=5)
                assert reply.status == health_pb2.HealthCheckResponse.SERVING
                if first:
                    print("first call answered", flush=True)
                    first = False
                await asyncio.sleep(0.02)
        finally:
            await services.close()

    asyncio.run(main())
""").replace("{NAME}", NAME)


def serve(host: str, port: int):
    server, servicer, _ = serve_health(f"{host}:{port}")
    return server, servicer


def wait_for(predicate, what: str, timeout: float, proc: subprocess.Popen, errors) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        if proc.poll() is not None:
            raise AssertionError(f"the client exited ({proc.returncode}) while waiting for {what}: "
                                 f"{errors()}")
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


def test_second_replica_gets_calls_after_it_appears(tmp_path):
    port = free_port()
    hosts, stop = tmp_path / "hosts", tmp_path / "stop"
    hosts.write_text(f"127.0.0.1 localhost\n127.0.0.2 {NAME}\n")
    first, first_counts = serve("127.0.0.2", port)
    second = None
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    client_log = open(tmp_path / "client.log", "w")  # noqa: SIM115 - the child writes it while we wait
    proc = subprocess.Popen(
        [*unshare_mount(), "sh", "-c", 'mount --bind "$1" /etc/hosts && exec "$2" -c "$3" "$4" "$5"', "sh",
         str(hosts), sys.executable, CLIENT, str(port), str(stop)],
        stdout=subprocess.PIPE, stderr=client_log, text=True, env=env, cwd=REPO)
    errors = (tmp_path / "client.log").read_text
    try:
        assert proc.stdout.readline().strip() == "first call answered", errors()
        wait_for(lambda: first_counts.calls >= 20, "calls to the first replica", 60, proc, errors)
        second, second_counts = serve("127.0.0.3", port)  # a new replica: healthy, not yet in DNS
        with open(hosts, "a") as f:  # in place: the bind mount keeps showing this file
            f.write(f"127.0.0.3 {NAME}\n")
        appeared = time.monotonic()
        wait_for(lambda: second_counts.calls >= 20, "calls to the second replica", 60, proc, errors)
        took = time.monotonic() - appeared
        before = first_counts.calls
        wait_for(lambda: first_counts.calls >= before + 20, "calls to the first replica again", 60, proc, errors)
        print(f"second replica called {second_counts.calls} times, the first {first_counts.calls} times; "
              f"its first 20 calls within {took:.1f} s of its name appearing")
        stop.touch()
        assert proc.wait(60) == 0, errors()
        assert "service addresses changed" in errors()
    finally:
        stop.touch()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        client_log.close()
        first.stop(0)
        if second:
            second.stop(0)
