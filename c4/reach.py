"""Fail fast when a service a command needs does not answer.

A gRPC call to an address where nothing listens would otherwise fail game
after game (or wait for minutes); one health check with a short deadline
before any work names the address instead.
"""

from __future__ import annotations

PROBE_TIMEOUT_S = 5.0


class Unreachable(RuntimeError):
    """The service did not answer SERVING; the message names its address."""


def require_serving(what: str, address: str, timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Raise :class:`Unreachable` unless the gRPC health check at ``address`` answers SERVING within ``timeout_s``."""
    from c4.stack.probe import grpc_health

    ok, why = grpc_health(address, timeout=timeout_s)
    if ok:
        return
    if why in ("NOT_SERVING", "SERVICE_UNKNOWN", "UNKNOWN"):  # it answered: up, but not ready
        raise Unreachable(f"the {what} at {address} answers but is not serving ({why}); try again when it is ready")
    raise Unreachable(f"cannot reach the {what} at {address} ({why}); is it running?")


def require_services(engine_addr: str | None, solver_addr: str | None) -> None:
    """Check the engine and the solver service a command was pointed at (None: not used)."""
    if engine_addr:
        require_serving("engine service", engine_addr)
    if solver_addr:
        require_serving("solver service", solver_addr)

