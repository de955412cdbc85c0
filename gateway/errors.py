"""Errors a client sees: a code, a message for people, an HTTP status."""

from __future__ import annotations

from typing import Any

STATUS = {
    "bad_request": 400,
    "illegal_column": 400,
    "full_column": 400,
    "bad_token": 403,
    "analysis_disabled": 403,
    "analysis_unavailable": 422,  # the solver cannot prove a board of this size
    "unknown_game": 404,
    "not_found": 404,
    "not_your_turn": 409,
    "game_over": 409,
    "conflict": 409,
    "invite_used": 409,
    "nothing_to_undo": 409,
    "not_allowed": 409,
    "game_not_over": 409,
    "rate_limited": 429,
    "busy": 429,
    "storage_full": 507,
    "learning_unavailable": 503,
    "learning_failed": 502,
    "service_unavailable": 503,
    "warming_up": 503,  # a large board's solver kernels still compile: Retry-After says when to come back
    "timeout": 504,
    "service_error": 502,
}


class GameError(Exception):
    """An error with a stable ``code``; ``state`` is the unchanged game when known."""

    def __init__(self, code: str, message: str, state: dict[str, Any] | None = None,
                 retry_after_s: float | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.state = state
        self.retry_after_s = retry_after_s  # a Retry-After header (429, 503)

    @property
    def status(self) -> int:
        return STATUS.get(self.code, 400)

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": {"code": self.code, "message": self.message}}
        if self.state is not None:
            out["state"] = self.state
        return out


class ServiceUnavailable(GameError):
    def __init__(self, service: str, detail: str = ""):
        msg = f"{service} service unavailable" + (f": {detail}" if detail else "")
        super().__init__("service_unavailable", msg)
        self.service = service
