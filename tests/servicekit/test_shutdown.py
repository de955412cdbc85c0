"""SIGTERM stops a service process even when a handler never returns: the
grace passes, the request is cancelled, and a handler deaf to the cancel is
left behind instead of keeping the process alive."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from ..conftest import free_port

# A service whose one method sleeps for ten minutes and ignores its context.
STUBBORN = textwrap.dedent("""
    import sys, time
    import grpc
    from servicekit.grpc_server import run_service
    from servicekit.logs import configure_logging

    def add(server):
        def wait(request, context):
            print("waiting", flush=True)  # the test sends SIGTERM once it reads this
            time.sleep(600)
            return b""

        handler = grpc.unary_unary_rpc_method_handler(wait)
        server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("demo.v1.Stubborn", {"Wait": handler})])
        return ["demo.v1.Stubborn"]

    configure_logging("stubborn")
    run_service("stubborn", sys.argv[1], add, grace_s=0.5, exit_timeout_s=0.5)
""")


# A service that sends SIGTERM to one of its own threads other than the main
# one, as the kernel may do with a signal sent to the process.
SIGNALLED_ELSEWHERE = textwrap.dedent("""
    import signal, sys, threading, time
    from servicekit.grpc_server import run_service

    def signal_another_thread():
        while signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:  # until run_service handles it
            time.sleep(0.05)
        time.sleep(0.3)  # the main thread waits for the signal by now
        signal.pthread_kill(threading.get_ident(), signal.SIGTERM)

    warm_up = lambda: threading.Thread(target=signal_another_thread).start()
    run_service("signalled", sys.argv[1], lambda server: [], warm_up, grace_s=0.5, exit_timeout_s=0.5)
""")


def test_sigterm_received_by_another_thread_stops_the_service():
    proc = subprocess.Popen([sys.executable, "-c", SIGNALLED_ELSEWHERE, f"127.0.0.1:{free_port()}"])
    try:
        assert proc.wait(30) == 0  # a bounded wait: a main thread deaf to the signal waits for ever
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_sigterm_exits_although_a_handler_never_returns():
    address = f"127.0.0.1:{free_port()}"
    proc = subprocess.Popen([sys.executable, "-c", STUBBORN, address], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        with grpc.insecure_channel(address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            for _ in range(300):
                try:
                    if health.Check(health_pb2.HealthCheckRequest(), timeout=1).status == \
                            health_pb2.HealthCheckResponse.SERVING:
                        break
                except grpc.RpcError:
                    time.sleep(0.1)
            wait = channel.unary_unary("/demo.v1.Stubborn/Wait", request_serializer=None, response_deserializer=None)
            call = wait.future(b"")
            assert proc.stdout.readline() == "waiting\n"  # the handler is asleep
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(30) == 0  # a bounded wait: the handler alone would take ten minutes
            assert call.exception() is not None
        err = proc.stderr.read()
        assert '"msg": "stopping"' in err and "exiting without them" in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
