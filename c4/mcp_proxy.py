"""A stdio MCP server that is the gateway's ``/mcp``: every JSON-RPC message a
client writes on stdin is POSTed as it is to the gateway over one MCP session
(its ``Mcp-Session-Id``, so the client keeps its namespace for the process's
life), and the gateway's answer is written back on stdout unchanged: the
server's name, version, instructions, tools, resources and prompts are the
gateway's own.

Standard library only, so it answers its first request a fraction of a second
after it starts (the SDK alone takes seconds to import on a busy machine).
Requests run on threads, each with its own keep-alive HTTP connection, so a
slow ``connect4_move`` does not hold up a ``connect4_state``. When the gateway
cannot be reached, ``initialize`` is answered here (and the session made on
the next request), a request gets a JSON-RPC error and a ``tools/call`` a tool
error that names the URL.
"""

from __future__ import annotations

import http.client
import json
import logging
import queue
import sys
import threading
import time
from urllib.parse import urlsplit
import contextlib

log = logging.getLogger("c4.mcp_stdio")

INTERNAL_ERROR = -32603
FALLBACK_VERSION = "2025-06-18"
FINISH_S = 30.0  # at the end of input, how long the requests in flight may still take


class Unreachable(Exception):
    pass


def unreachable(url: str, exc: BaseException) -> str:
    """One line for a person: which gateway could not be used, and why."""
    why = str(exc) or type(exc).__name__
    return f"cannot reach the gateway's MCP endpoint at {url}: {why} (is the gateway running? see --url)"


class Upstream:
    """The gateway's /mcp over keep-alive HTTP connections, one MCP session."""

    def __init__(self, url: str, timeout: float = 600.0):
        self.url = url
        parts = urlsplit(url)
        self.https = parts.scheme == "https"
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or (443 if self.https else 80)
        self.path = (parts.path or "/mcp") + (f"?{parts.query}" if parts.query else "")
        self.timeout = timeout
        self.session: str | None = None
        self.version: str | None = None
        self.init_request: dict | None = None  # the client's initialize, to open the session again
        self.bearer: str | None = None
        self.pool: queue.LifoQueue = queue.LifoQueue()
        self.lock = threading.Lock()

    def _connection(self) -> http.client.HTTPConnection:
        try:
            return self.pool.get_nowait()
        except queue.Empty:
            cls = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
            return cls(self.host, self.port, timeout=self.timeout)

    def post(self, message: dict, headers: dict | None = None) -> tuple[dict | None, dict]:
        """POST one JSON-RPC message; (its JSON answer or None for 202, the response headers)."""
        body = json.dumps(message, separators=(",", ":")).encode()
        hdrs = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.session:
            hdrs["Mcp-Session-Id"] = self.session
        if self.version:
            hdrs["MCP-Protocol-Version"] = self.version
        if self.bearer:
            hdrs["Authorization"] = f"Bearer {self.bearer}"
        hdrs.update(headers or {})
        for attempt in (0, 1):  # a kept-alive connection the server closed meanwhile: once more on a new one
            conn = self._connection()
            try:
                conn.request("POST", self.path, body, hdrs)
                resp = conn.getresponse()
                data = resp.read()
            except (ConnectionError, http.client.HTTPException, OSError) as exc:
                conn.close()
                if attempt:
                    raise Unreachable(str(exc) or type(exc).__name__) from None
                continue
            self.pool.put(conn)
            got = {k.lower(): v for k, v in resp.getheaders()}
            if resp.status == 202 or not data:
                return None, got
            if "text/event-stream" in got.get("content-type", ""):
                return _last_sse_message(data), got
            try:
                return json.loads(data), got
            except ValueError:
                raise Unreachable(f"HTTP {resp.status}: {data[:200]!r}") from None
        raise Unreachable("no answer")

    def initialize(self, request: dict) -> dict | None:
        """The handshake upstream; its answer (None: the gateway accepted it with no body)."""
        answer, headers = self.post(request)
        self.init_request = request
        self.session = headers.get("mcp-session-id")
        result = (answer or {}).get("result") or {}
        self.version = result.get("protocolVersion")
        if self.session:  # the handshake's last step, on the new session
            with contextlib.suppress(Unreachable):
                self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def ensure_session(self) -> None:
        with self.lock:
            if self.session is None and self.init_request is not None:
                self.initialize(self.init_request)


def _last_sse_message(data: bytes) -> dict | None:
    out = None
    for line in data.decode().splitlines():
        if line.startswith("data:"):
            with contextlib.suppress(ValueError):
                out = json.loads(line[5:].strip())
    return out


class Proxy:
    def __init__(self, url: str, stdin=None, stdout=None):
        self.up = Upstream(url)
        self.stdin = stdin or sys.stdin.buffer
        self.stdout = stdout or sys.stdout.buffer
        self.out_lock = threading.Lock()
        self.inflight: set[threading.Thread] = set()  # requests being answered

    def write(self, message: dict) -> None:
        line = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        with self.out_lock:
            self.stdout.write(line)
            self.stdout.flush()

    def handle(self, message: dict) -> None:
        method = message.get("method")
        mid = message.get("id")
        answer: dict | None
        if method == "server/discover":  # the 2026-07-28 probe: this session speaks initialize
            self.write({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "method not found: "
                        "server/discover (initialize instead)"}})
            return
        try:
            if method == "initialize":
                try:
                    answer = self.up.initialize(message)
                except Unreachable as exc:
                    log.warning("gateway unreachable at initialize", extra={"error": str(exc)})
                    self.up.init_request = message
                    answer = self._local_initialize(message)
            else:
                if method == "notifications/initialized" and self.up.session:
                    return  # sent upstream already when the session was made
                self.up.ensure_session()
                answer, _ = self.up.post(message)
        except Unreachable as exc:
            if mid is None:
                return
            text = unreachable(self.up.url, exc)
            if method == "tools/call":
                answer = {"jsonrpc": "2.0", "id": mid,
                          "result": {"content": [{"type": "text", "text": text}], "isError": True}}
            else:
                answer = {"jsonrpc": "2.0", "id": mid, "error": {"code": INTERNAL_ERROR, "message": text}}
        if answer is not None and mid is not None:
            self.write(answer)

    @staticmethod
    def _local_initialize(message: dict) -> dict:
        asked = (message.get("params") or {}).get("protocolVersion") or FALLBACK_VERSION
        return {"jsonrpc": "2.0", "id": message.get("id"), "result": {
            "protocolVersion": asked, "capabilities": {"tools": {}},
            "serverInfo": {"name": "connect4", "version": "unknown"},
            "instructions": "The Connect Four gateway cannot be reached yet; its tools appear when it is."}}

    def serve(self) -> None:
        self._read()
        self._finish()

    def _finish(self, wait_s: float = FINISH_S) -> None:
        """At the end of input, answer the requests still in flight (bounded by
        ``wait_s``) before the process ends: a thread cut off at exit loses its
        answer, or dies holding stdout's lock (a fatal error at shutdown)."""
        deadline = time.monotonic() + wait_s
        for t in list(self.inflight):
            t.join(max(0.0, deadline - time.monotonic()))

    def _spawn(self, message: dict) -> None:
        t = threading.Thread(target=self._handle_then_forget, args=(message,), daemon=True)
        self.inflight.add(t)
        t.start()

    def _handle_then_forget(self, message: dict) -> None:
        try:
            self.handle(message)
        finally:
            self.inflight.discard(threading.current_thread())

    def _read(self) -> None:
        while True:
            line = self.stdin.readline()
            if not line:
                return
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError as exc:
                self.write({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": f"parse error: {exc}"}})
                continue
            if not isinstance(message, dict):
                self.write({"jsonrpc": "2.0", "id": None,
                            "error": {"code": -32600, "message": "not a JSON-RPC message"}})
                continue
            if message.get("method") == "initialize":
                self.handle(message)  # before anything else: the session
            else:
                self._spawn(message)
