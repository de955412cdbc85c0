"""gRPC serving: request ids, metrics, health, reflection, clean shutdown.

A service calls :func:`run_service` with a function that adds its servicers
and a warm-up function; the health status is SERVING only after warm-up.

Stopping (SIGTERM, SIGINT): health goes NOT_SERVING, new RPCs are refused,
running ones get ``grace_s`` to finish and are then cancelled, which ends
their searches through the services' termination callbacks. A handler that
still runs ``exit_timeout_s`` later is left behind: the process exits anyway
(the executor's threads are not daemons and would keep it alive).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from concurrent import futures
from collections.abc import Callable, Iterable

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from prometheus_client import Counter, Histogram

from .logs import REQUEST_ID, REQUEST_ID_HEADER, new_request_id
from .metrics import start_metrics_server

log = logging.getLogger(__name__)

RPC_REQUESTS = Counter("grpc_server_requests_total", "RPCs handled", ["method", "code"])
RPC_LATENCY = Histogram(
    "grpc_server_latency_seconds", "RPC latency", ["method"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)


def _code_of(context) -> str:
    code = context.code() if hasattr(context, "code") else None
    return code.name if isinstance(code, grpc.StatusCode) else "OK"


class InFlight:
    """How many RPC handlers are running, and a wait for none."""

    def __init__(self):
        self._count = 0
        self._cv = threading.Condition()

    def __enter__(self):
        with self._cv:
            self._count += 1

    def __exit__(self, *exc):
        with self._cv:
            self._count -= 1
            self._cv.notify_all()

    @property
    def count(self) -> int:
        return self._count

    def wait_idle(self, timeout: float) -> bool:
        """True when no handler runs (waiting at most ``timeout`` seconds)."""
        with self._cv:
            return self._cv.wait_for(lambda: self._count == 0, timeout)


class ObservabilityInterceptor(grpc.ServerInterceptor):
    """Sets the request id from metadata, records count and latency per RPC,
    and counts the handlers running (``in_flight``)."""

    def __init__(self):
        self.in_flight = InFlight()

    def intercept_service(self, continuation, handler_call_details):
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method
        metadata = dict(handler_call_details.invocation_metadata or ())
        rid = metadata.get(REQUEST_ID_HEADER) or new_request_id()

        @contextlib.contextmanager
        def observed(context):
            """Request id set for the call; count and latency recorded by outcome."""
            token = REQUEST_ID.set(rid)
            start = time.perf_counter()
            failed = False
            try:
                with self.in_flight:
                    yield
            except Exception:
                failed = True
                raise
            finally:
                code = _code_of(context)
                if failed and code == "OK":
                    code = "UNKNOWN"  # an exception that set no status
                RPC_LATENCY.labels(method).observe(time.perf_counter() - start)
                RPC_REQUESTS.labels(method, code).inc()
                REQUEST_ID.reset(token)

        def unary(behavior):
            def wrapped(request, context):
                with observed(context):
                    return behavior(request, context)

            return wrapped

        def streaming(behavior):
            def wrapped(request, context):
                with observed(context):
                    yield from behavior(request, context)

            return wrapped

        if handler.unary_unary:
            return grpc.unary_unary_rpc_method_handler(
                unary(handler.unary_unary), handler.request_deserializer, handler.response_serializer)
        if handler.unary_stream:
            return grpc.unary_stream_rpc_method_handler(
                streaming(handler.unary_stream), handler.request_deserializer, handler.response_serializer)
        return handler


def build_server(
    address: str,
    add_servicers: Callable[[grpc.Server], Iterable[str]],
    max_workers: int = 8,
    interceptor: ObservabilityInterceptor | None = None,
) -> tuple[grpc.Server, health.HealthServicer, int]:
    """A server with the servicers, health (NOT_SERVING until marked) and reflection.

    ``add_servicers(server)`` registers the servicers and returns their full
    service names. Returns (server, health servicer, bound port).
    """
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=max_workers),
        interceptors=[interceptor or ObservabilityInterceptor()],
        options=[
            ("grpc.so_reuseport", 0),
            # clients reconnect every few minutes and so re-resolve DNS: replicas
            # added by `docker compose --scale` get traffic without a restart
            ("grpc.max_connection_age_ms", 300_000),
            ("grpc.max_connection_age_grace_ms", 120_000),
        ],
    )
    names = list(add_servicers(server))
    health_servicer = health.HealthServicer(experimental_non_blocking=True)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in [*names, ""]:
        health_servicer.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
    reflection.enable_server_reflection([*names, health.SERVICE_NAME, reflection.SERVICE_NAME], server)
    port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    health_servicer._service_names = names  # remembered for mark_serving
    return server, health_servicer, port


def mark_serving(health_servicer: health.HealthServicer) -> None:
    for name in [*getattr(health_servicer, "_service_names", []), ""]:
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)


def health_status(health_servicer: health.HealthServicer):
    """For ``/healthz``: the server's overall status ("") as gRPC health clients see it."""
    request = health_pb2.HealthCheckRequest(service="")

    serving, name = health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.ServingStatus.Name

    def check() -> tuple[bool, str]:
        status = health_servicer.Check(request, None).status
        return status == serving, name(status)

    return check


SIGNAL_POLL_S = 0.2  # the longest a signal waits for the main thread to notice it


def run_service(
    name: str,
    address: str,
    add_servicers: Callable[[grpc.Server], Iterable[str]],
    warmup: Callable[[], None] | None = None,
    max_workers: int = 8,
    metrics_port: int = 0,
    metrics_host: str = "127.0.0.1",
    grace_s: float = 5.0,
    exit_timeout_s: float = 3.0,
) -> None:
    """Start, warm up, report SERVING, block until SIGTERM/SIGINT, stop (see
    the module doc): within about ``grace_s + exit_timeout_s`` seconds."""
    interceptor = ObservabilityInterceptor()
    server, health_servicer, port = build_server(address, add_servicers, max_workers, interceptor)
    start_metrics_server(metrics_port, metrics_host, health_status(health_servicer))
    server.start()
    log.info("listening, warming up", extra={"service": name, "address": address, "port": port})
    started = time.perf_counter()
    if warmup:
        warmup()
    mark_serving(health_servicer)
    log.info("serving", extra={"warmup_s": round(time.perf_counter() - started, 3)})

    stop = threading.Event()
    received: list[str] = []

    def on_signal(signum, _frame):
        received.append(signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    # Python runs signal handlers in the main thread, between bytecodes. A
    # signal the kernel hands to another thread (any of gRPC's) does not wake
    # a main thread blocked in a plain wait(): it would wait for ever. So the
    # wait times out now and then to let the handler run.
    while not stop.wait(SIGNAL_POLL_S):
        pass
    log.info("stopping", extra={"signal": received[0] if received else None, "running": interceptor.in_flight.count,
                                "grace_s": grace_s})
    health_servicer.enter_graceful_shutdown()
    # New RPCs are refused now; running ones are cancelled after the grace,
    # which sets the stop flags of their searches (termination callbacks).
    server.stop(grace_s).wait()
    if not interceptor.in_flight.wait_idle(exit_timeout_s):
        log.warning("requests still running after the grace; exiting without them",
                    extra={"running": interceptor.in_flight.count})
        logging.shutdown()
        os._exit(0)  # the executor's threads are not daemons: a normal exit would wait for them
    log.info("stopped")
