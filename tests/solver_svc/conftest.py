"""A real solver service on a free port, shared by the tests of a module."""

from __future__ import annotations

import pytest

from c4proto.connect4.v1 import solver_pb2_grpc

from .support import start


@pytest.fixture(scope="module")
def service():
    """(stub, channel, oracle) of a service with the built-in backend, no books."""
    server, channel, oracle = start({})
    yield solver_pb2_grpc.SolverServiceStub(channel), channel, oracle
    channel.close()
    server.stop(0)
