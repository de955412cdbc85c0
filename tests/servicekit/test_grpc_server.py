"""The shared gRPC bootstrap: health goes SERVING only when marked; reflection lists services."""

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from servicekit.grpc_server import build_server, mark_serving


def test_health_and_reflection():
    server, health_servicer, port = build_server("127.0.0.1:0", lambda s: ["demo.v1.Demo"], max_workers=2)
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            status = stub.Check(health_pb2.HealthCheckRequest(service="demo.v1.Demo")).status
            assert status == health_pb2.HealthCheckResponse.NOT_SERVING
            mark_serving(health_servicer)
            for name in ("demo.v1.Demo", ""):
                status = stub.Check(health_pb2.HealthCheckRequest(service=name)).status
                assert status == health_pb2.HealthCheckResponse.SERVING
            refl = reflection_pb2_grpc.ServerReflectionStub(channel)
            answer = next(refl.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")])))
            names = {s.name for s in answer.list_services_response.service}
            assert {"demo.v1.Demo", "grpc.health.v1.Health"} <= names
    finally:
        server.stop(0)


def test_metrics_count_calls_by_code():
    from servicekit.grpc_server import RPC_REQUESTS

    server, health_servicer, port = build_server("127.0.0.1:0", lambda s: ["demo.v1.Demo"], max_workers=2)
    server.start()
    method = "/grpc.health.v1.Health/Check"
    before_ok = RPC_REQUESTS.labels(method, "OK")._value.get()
    before_missing = RPC_REQUESTS.labels(method, "NOT_FOUND")._value.get()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            stub.Check(health_pb2.HealthCheckRequest(service="demo.v1.Demo"))
            try:
                stub.Check(health_pb2.HealthCheckRequest(service="no.such.Service"))
            except grpc.RpcError as exc:
                assert exc.code() == grpc.StatusCode.NOT_FOUND
    finally:
        server.stop(0)
    assert RPC_REQUESTS.labels(method, "OK")._value.get() == before_ok + 1
    assert RPC_REQUESTS.labels(method, "NOT_FOUND")._value.get() == before_missing + 1
