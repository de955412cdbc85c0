"""Slow and oversized request heads: the HTTP protocol uvicorn runs, with two guards.

uvicorn (0.54, httptools) waits for a request's headers as long as the client
likes and reads headers of any size: 1,000 connections that never finish their
headers were all held, a 1 MB header was processed. :class:`GuardedHttpToolsProtocol`
is uvicorn's httptools protocol with

* a header deadline: a connection that has not sent a whole request head
  ``header_timeout_s`` after it opened (or after its last response, when a
  kept-alive connection starts a new request) is closed;
* a head size cap: a request line plus headers over ``max_header_bytes``
  gets 431 and the connection is closed, before the rest is read.

Everything else is uvicorn's own (keep-alive timeout, ``limit_concurrency``).
"""

from __future__ import annotations

import asyncio
import json

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


def _431(max_bytes: int) -> bytes:
    body = json.dumps({"error": {"code": "headers_too_large",
                                 "message": f"the request line and headers are over {max_bytes} bytes"}}).encode()
    return (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: application/json\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body)


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    header_timeout_s = 10.0
    max_header_bytes = 16 * 1024

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_bytes = 0
        self._head_timer: asyncio.TimerHandle | None = None
        self._in_body = False  # between a request's head and its end (its body may outlive its response)
        self._expect_head()

    def _expect_head(self) -> None:
        """A request head is due now: count its bytes, and close the connection
        if it is not complete in time."""
        self._head_bytes = 0
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.header_timeout_s, self._head_too_slow)

    def _head_done(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def _between_requests(self) -> bool:
        return (self.cycle is None or self.cycle.response_complete) and not self.pipeline

    def data_received(self, data: bytes) -> None:
        if self._head_timer is None and not self._in_body and self._between_requests():
            self._expect_head()  # a kept-alive connection starts its next request
        if self._head_timer is not None:
            end = data.find(b"\r\n\r\n")
            self._head_bytes += len(data) if end < 0 else end
            if self._head_bytes > self.max_header_bytes:
                self._head_done()
                self.transport.write(_431(self.max_header_bytes))
                self.transport.close()
                return
        super().data_received(data)

    def on_headers_complete(self) -> None:
        self._head_done()
        self._in_body = True
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._in_body = False
        super().on_message_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_done()
        super().connection_lost(exc)


def configure(header_timeout_s: float, max_header_bytes: int) -> type[GuardedHttpToolsProtocol]:
    """Set the limits (in each server process: uvicorn's workers import this module
    anew) and return the class to give uvicorn as ``http=``."""
    GuardedHttpToolsProtocol.header_timeout_s = header_timeout_s
    GuardedHttpToolsProtocol.max_header_bytes = max_header_bytes
    return GuardedHttpToolsProtocol
