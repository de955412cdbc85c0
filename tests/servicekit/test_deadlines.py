"""time_left reads a real RPC's deadline: seconds when the caller set one, None when not."""

from concurrent import futures

import grpc

from servicekit.deadlines import time_left


def _echo_time_left(request: bytes, context) -> bytes:
    left = time_left(context)
    return b"none" if left is None else repr(left).encode()


def test_time_left_with_and_without_a_deadline():
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    handler = grpc.method_handlers_generic_handler(
        "demo.v1.Clock", {"Left": grpc.unary_unary_rpc_method_handler(_echo_time_left)})
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = channel.unary_unary("/demo.v1.Clock/Left")
            assert call(b"", timeout=30) != b"none"
            assert 25.0 < float(call(b"", timeout=30)) < 31.0  # the server's clock may read a little over
            assert call(b"") == b"none"  # gRPC itself reports a huge time remaining here
    finally:
        server.stop(0)
    assert time_left(None) is None
