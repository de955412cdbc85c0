"""Structured JSON logs, one object a line on stderr, with a request id.

``C4_LOG_FORMAT=text`` (or ``configure_logging(..., fmt="text")``) writes
the same records as plain lines for a terminal, ``extra=`` fields included.

The request id lives in a context variable: the gateway sets it per HTTP
request and sends it as gRPC metadata ``x-request-id``; the gRPC servers read it
back (see :mod:`servicekit.grpc_server`), so one move can be followed from the
browser to the engine.
"""

from __future__ import annotations

import contextvars
import json
import logging
import os
import sys
import time
import uuid

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
REQUEST_ID_HEADER = "x-request-id"

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}


def new_request_id() -> str:
    return uuid.uuid4().hex[:16]


def extra_fields(record: logging.LogRecord) -> dict:
    """The fields a call gave through ``extra=`` (and the request id), in order."""
    out: dict[str, object] = {}
    rid = REQUEST_ID.get()
    if rid:
        out["request_id"] = rid
    for key, value in record.__dict__.items():
        if key not in _STANDARD and not key.startswith("_"):
            out[key] = value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)
    return out


class JsonFormatter(logging.Formatter):
    def __init__(self, service: str):
        super().__init__()
        self.service = service

    def format(self, record: logging.LogRecord) -> str:
        out = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "service": self.service,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        out.update(extra_fields(record))
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """One line a record for people at a terminal: ``level logger: message
    key=value ...``; the ``extra=`` fields are kept, as in the JSON lines."""

    def format(self, record: logging.LogRecord) -> str:
        line = f"{record.levelname.lower()} {record.name}: {record.getMessage()}"
        fields = " ".join(f"{k}={_quoted(v)}" for k, v in extra_fields(record).items())
        if fields:
            line += f" [{fields}]"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def _quoted(value) -> str:
    text = str(value)
    return json.dumps(text, ensure_ascii=False) if not text or any(ch.isspace() or ch in '"=[]' for ch in text) else text


def configure_logging(service: str, level: str = "INFO", fmt: str | None = None) -> None:
    """Send every log record to stderr, one a line; call once at process start.

    ``fmt`` is "json" (services, the default) or "text" (:class:`TextFormatter`,
    for a person at a terminal); unset, ``C4_LOG_FORMAT`` decides."""
    fmt = (fmt or os.environ.get("C4_LOG_FORMAT") or "json").strip().lower()
    if fmt not in ("json", "text"):
        raise ValueError(f"log format must be 'json' or 'text', not {fmt!r}")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter(service) if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
