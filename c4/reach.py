"""Fail fast when a service a command needs does not answer.

A gRPC call to an address where nothing listens would otherwise fail game
after game (or wait for minutes); one health check with a short deadline
before any work names the address instead.
"""

from __future__ import annotations

PROBE_TIMEOUT_S = 5.0
WARM_TIMEOUT_S = 600.0  # a service that answers NOT_SERVING is compiling its kernels (minutes on a cold cache)


class Unreachable(RuntimeError):
    """The service did not answer SERVING; the message names its address."""


def require_serving(what: str, address: str, timeout_s: float = PROBE_TIMEOUT_S,
                    warm_timeout_s: float = WARM_TIMEOUT_S) -> None:
    """Return once the gRPC health check at ``address`` answers SERVING.

    Nothing answering within ``timeout_s`` raises :class:`Unreachable` at once. A
    service that answers NOT_SERVING is still starting: it is waited for (one
    line on stderr says so) up to ``warm_timeout_s``."""
    import sys
    import time

    from c4.stack.probe import grpc_health

    deadline = time.monotonic() + warm_timeout_s
    said = False
    while True:
        ok, why = grpc_health(address, timeout=timeout_s)
        if ok:
            return
        if why != "NOT_SERVING":
            break
        if time.monotonic() > deadline:
            raise Unreachable(f"the {what} at {address} answered NOT_SERVING for {warm_timeout_s:.0f} s: "
                              "it does not finish starting")
        if not said:
            print(f"waiting for the {what} at {address} to finish starting (NOT_SERVING)", file=sys.stderr)
            said = True
        time.sleep(0.5)
    if why in ("SERVICE_UNKNOWN", "UNKNOWN"):  # it answered: up, but not this service
        raise Unreachable(f"the {what} at {address} answers but is not serving ({why}); is the address right?")
    raise Unreachable(f"cannot reach the {what} at {address} ({why}); is it running?")


def require_services(engine_addr: str | None, solver_addr: str | None) -> None:
    """Check the engine and the solver service a command was pointed at (None: not used)."""
    if engine_addr:
        require_serving("engine service", engine_addr)
    if solver_addr:
        require_serving("solver service", solver_addr)

