"""The time an RPC has left, as both services read it."""

from __future__ import annotations

NO_DEADLINE_S = 1e7  # gRPC reports "no deadline" as a huge time remaining


def time_left(context) -> float | None:
    """Seconds until the RPC's deadline; None without a deadline (or without
    an RPC: ``context`` None, as when a service object is called in-process)."""
    if context is None:
        return None
    remaining = context.time_remaining()
    if remaining is None or remaining >= NO_DEADLINE_S:
        return None
    return remaining
