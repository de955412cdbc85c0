"""A TCP proxy in front of a real redis-server that can lose a reply on purpose.

    proxy = RedisProxy(redis_port).start()
    url = proxy.url(1)                  # give this to the gateway instead of Redis's own
    proxy.drop_next_reply(b"EVALSHA")   # arm: the next EVALSHA reaches Redis and runs there,
                                        # then its client connection is cut before the reply
    ... make a request ...
    assert proxy.wait_dropped(1)        # the cut happened (a count of cuts so far)
    proxy.stop()

Every client connection gets its own upstream connection; bytes are copied
both ways by two threads. When armed, the proxy watches what clients send for
the command's name (as RESP sends it: ``$7\\r\\nEVALSHA\\r\\n``), forwards those
bytes, waits for Redis to answer (so the command has been executed) and then
closes both sockets without passing the answer on: the client sees a dropped
connection after a write that landed, the fault a lost reply makes.

Used by the gateway's fault tests; importable from any test (``tests.gateway.redis_proxy``).
"""

from __future__ import annotations

import socket
import threading
import contextlib


class RedisProxy:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1"):
        self.target = (target_host, target_port)
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._armed: bytes | None = None
        self._dropped = 0
        self._changed = threading.Condition(self._lock)
        self._pairs: set[tuple[socket.socket, socket.socket]] = set()
        self._dying: dict[tuple[socket.socket, socket.socket], threading.Event] = {}
        self._stopping = False

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    # -- control ---------------------------------------------------------------------
    def drop_next_reply(self, command: bytes = b"EVALSHA") -> None:
        """Cut the connection of the next client that sends ``command``, after Redis answered it."""
        with self._lock:
            self._armed = command.upper()

    @property
    def dropped(self) -> int:
        with self._lock:
            return self._dropped

    def wait_dropped(self, count: int, timeout: float = 30.0) -> bool:
        """Wait until ``count`` replies have been dropped in all."""
        with self._changed:
            return self._changed.wait_for(lambda: self._dropped >= count, timeout)

    def disarm(self) -> None:
        with self._lock:
            self._armed = None

    def cut_all(self) -> None:
        """Close every connection now (a network blip)."""
        with self._lock:
            pairs = list(self._pairs)
        for a, b in pairs:
            _close(a)
            _close(b)

    # -- running ---------------------------------------------------------------------
    def start(self) -> RedisProxy:
        self._listener.listen(512)
        threading.Thread(target=self._accept, name="redis-proxy", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stopping = True
        _close(self._listener)
        self.cut_all()

    def _accept(self) -> None:
        while not self._stopping:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                _close(client)
                continue
            pair = (client, upstream)
            with self._lock:
                self._pairs.add(pair)
            threading.Thread(target=self._client_to_redis, args=(pair,), daemon=True).start()
            threading.Thread(target=self._redis_to_client, args=(pair,), daemon=True).start()

    def _client_to_redis(self, pair: tuple[socket.socket, socket.socket]) -> None:
        client, upstream = pair
        try:
            while True:
                data = client.recv(65536)
                if not data:
                    break
                answered = None
                with self._lock:
                    armed = self._armed
                    if armed is not None and _names(data, armed):
                        self._armed = None
                        # the other thread drops Redis's answer and tells us it came
                        answered = self._dying[pair] = threading.Event()
                upstream.sendall(data)
                if answered is not None:
                    answered.wait(10)  # Redis answered: the command ran
                    with self._changed:
                        self._dropped += 1
                        self._changed.notify_all()
                    return
        except OSError:
            pass
        finally:
            self._forget(pair)

    def _redis_to_client(self, pair: tuple[socket.socket, socket.socket]) -> None:
        client, upstream = pair
        try:
            while True:
                data = upstream.recv(65536)
                if not data:
                    break
                with self._lock:
                    dying = self._dying.get(pair)
                if dying is not None:  # the answer to lose: cut the client before it
                    _close(client)
                    dying.set()
                    return
                client.sendall(data)
        except OSError:
            pass
        finally:
            self._forget(pair)

    def _forget(self, pair: tuple[socket.socket, socket.socket]) -> None:
        with self._lock:
            self._pairs.discard(pair)
            self._dying.pop(pair, None)
        _close(pair[0])
        _close(pair[1])


def _names(data: bytes, command: bytes) -> bool:
    """Does this chunk of RESP carry ``command`` as a command name?"""
    token = b"$%d\r\n%s\r\n" % (len(command), command)
    return token in data.upper()


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.close()
