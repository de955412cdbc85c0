"""Real parts for the gateway tests: redis-server (tests/conftest.py), the engine
and solver services as subprocesses on free ports (waiting for gRPC health
SERVING), and the gateway itself under uvicorn on a free port."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.conftest import REPO, free_port, wait_port

LOGS = Path(os.environ.get("C4_TEST_LOGS", "/tmp/c4-gateway-tests"))


def wait_serving(addr: str, timeout: float, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(addr) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                raise RuntimeError(f"service at {addr} exited with {proc.returncode}")
            try:
                resp = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1)
                if resp.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            time.sleep(0.2)
    raise TimeoutError(f"{addr} not SERVING after {timeout}s")


class Proc:
    """A child process we started and stop ourselves (by its pid)."""

    def __init__(self, name: str, args: list[str], env: dict):
        self.name, self.args, self.env = name, args, env
        self.proc: subprocess.Popen | None = None

    def start(self) -> Proc:
        LOGS.mkdir(parents=True, exist_ok=True)
        with open(LOGS / f"{self.name}.log", "ab") as log:  # the child keeps its own copy of the file
            self.proc = subprocess.Popen(self.args, env=self.env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
        return self

    def stop(self, sig=signal.SIGTERM) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def kill(self) -> None:
        self.stop(signal.SIGKILL)


def _base_env(**extra) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO)
    env.update({k: str(v) for k, v in extra.items()})
    return env


class Service(Proc):
    def __init__(self, name: str, module: str, prefix: str, redis_url: str):
        self.port = free_port()
        super().__init__(name, [sys.executable, "-m", module], _base_env(**{
            f"{prefix}HOST": "127.0.0.1", f"{prefix}PORT": self.port, f"{prefix}METRICS_PORT": 0,
            "REDIS_URL": redis_url}))

    @property
    def addr(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 420) -> Service:
        super().start()
        wait_serving(self.addr, timeout, self.proc)
        return self


@pytest.fixture(scope="session")
def engine_service(redis_server):
    svc = Service("engine", "engine_svc", "C4_ENGINE_", redis_server.url).start()
    yield svc
    svc.stop()


@pytest.fixture(scope="session")
def solver_service(redis_server):
    svc = Service("solver", "solver_svc", "C4_SOLVER_", redis_server.url).start()
    yield svc
    svc.stop()


class Gateway(Proc):
    def __init__(self, redis_url: str, engine_addr: str, solver_addr: str, name: str = "gateway", **extra):
        self.port = free_port()
        self.bridge_port = free_port()
        env = dict(
            REDIS_URL=redis_url, C4_GATEWAY_HOST="127.0.0.1", C4_GATEWAY_PORT=self.port,
            C4_GATEWAY_BRIDGE_PORT=self.bridge_port, C4_GATEWAY_ENGINE_ADDR=engine_addr,
            C4_GATEWAY_SOLVER_ADDR=solver_addr, C4_GATEWAY_PUBLIC_URL=f"http://127.0.0.1:{self.port}",
            C4_GATEWAY_RPC_TIMEOUT_S=5, C4_GATEWAY_SWEEP_INTERVAL_S=0.3, C4_GATEWAY_BRIDGE_OPPONENT="random",
            C4_GATEWAY_DEFAULT_OPPONENT="random",
            # the suite makes games and analyses fast from one address: per-client limits off
            # here (0), tests/gateway/test_limits.py sets its own
            C4_GATEWAY_CREATES_PER_MINUTE=0, C4_GATEWAY_ANALYSES_PER_MINUTE=0, C4_GATEWAY_WS_PER_CLIENT=100000,
            C4_GATEWAY_PUBLIC_ANALYSIS_CONCURRENCY=1000)
        env.update(extra)  # a caller's settings win
        super().__init__(name, [sys.executable, "-m", "gateway"], _base_env(**env))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Gateway:
        super().start()
        deadline = time.monotonic() + 180  # imports and numba cache loads are slow on a busy machine
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gateway exited with {self.proc.returncode}; see {LOGS}/{self.name}.log")
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    wait_port(self.bridge_port)
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise TimeoutError("gateway did not start")

    def restart(self) -> None:
        self.stop()
        self.start()


DEAD = "127.0.0.1:1"  # nothing listens there: a service that is down


@pytest.fixture(scope="session")
def bare_gateway(redis_server):
    """A gateway whose engine and solver are down: games between people still work."""
    gw = Gateway(redis_server.db(1), DEAD, DEAD, name="gateway-bare").start()
    yield gw
    gw.stop()


@pytest.fixture(scope="session")
def solver_gateway(redis_server, solver_service):
    """The real solver service, the engine down."""
    gw = Gateway(redis_server.db(2), DEAD, solver_service.addr, name="gateway-solver").start()
    yield gw
    gw.stop()


@pytest.fixture(scope="session")
def gateway(redis_server, engine_service, solver_service):
    gw = Gateway(redis_server.url, engine_service.addr, solver_service.addr).start()
    yield gw
    gw.stop()


@pytest.fixture
def client(bare_gateway):
    with httpx.Client(base_url=bare_gateway.url, timeout=30) as c:
        yield c


@pytest.fixture
def api(gateway):
    with httpx.Client(base_url=gateway.url, timeout=60) as c:
        yield c
