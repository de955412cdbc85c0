"""A TCP proxy in front of Redis that can lose a reply: armed, it forwards
the next command that contains a marker (``EVALSHA``: the gateway's
compare-and-set saves) to Redis, swallows Redis's answer and cuts the
client's connection, so the write lands and the client never hears of it.
For ``c4 bench faults`` (the gateway's idempotent writes, issue 20 item 1).
"""

from __future__ import annotations

import socket
import threading

from .plan import free_port
import contextlib


class ReplyDropProxy:
    def __init__(self, target_port: int, marker: bytes = b"EVALSHA", host: str = "127.0.0.1"):
        self.target = (host, target_port)
        self.marker = marker
        self.port = free_port()
        self.armed = 0
        self.dropped = 0
        self.lock = threading.Lock()
        self.listener = socket.create_server((host, self.port))
        self._stop = threading.Event()
        threading.Thread(target=self._accept, name="proxy-accept", daemon=True).start()

    @property
    def url(self) -> str:
        return f"redis://{self.target[0]}:{self.port}/0"

    def arm(self, times: int = 1) -> None:
        with self.lock:
            self.armed += times

    def close(self) -> None:
        self._stop.set()
        self.listener.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.target, timeout=5)
                server.settimeout(None)
            except OSError:
                client.close()
                continue
            cut = threading.Event()
            threading.Thread(target=self._up, args=(client, server, cut), daemon=True).start()
            threading.Thread(target=self._down, args=(server, client, cut), daemon=True).start()

    def _up(self, client: socket.socket, server: socket.socket, cut: threading.Event) -> None:
        """Client to Redis; an armed marker sets ``cut`` before the command goes on."""
        try:
            while data := client.recv(65536):
                if self.marker in data:
                    with self.lock:
                        if self.armed > 0:
                            self.armed -= 1
                            cut.set()
                server.sendall(data)
        except OSError:
            pass
        finally:
            _close(client, server)

    def _down(self, server: socket.socket, client: socket.socket, cut: threading.Event) -> None:
        """Redis to client; after a cut command its answer is swallowed and both ends closed."""
        try:
            while data := server.recv(65536):
                if cut.is_set():
                    with self.lock:
                        self.dropped += 1
                    break
                client.sendall(data)
        except OSError:
            pass
        finally:
            _close(client, server)


def _close(*socks: socket.socket) -> None:
    for s in socks:
        with contextlib.suppress(OSError):
            s.shutdown(socket.SHUT_RDWR)
        s.close()
