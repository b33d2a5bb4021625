"""A loopback TCP proxy that can refuse or drop connections, to take an endpoint away."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator


class FaultProxy:
    """Forwards 127.0.0.1:<port> to ``target``; ``mode`` is ``pass``, ``refuse`` or ``drop``.

    ``refuse`` closes the listening socket (connection refused); ``drop`` accepts and
    closes at once (connection reset) and also cuts the connections already open.
    """

    def __init__(self, target_host: str, target_port: int) -> None:
        self._target = (target_host, target_port)
        self._lock = threading.Lock()
        self._mode = "pass"
        self._open: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self.port = 0
        self._listen()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _listen(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def set_mode(self, mode: str) -> None:
        assert mode in ("pass", "refuse", "drop")
        with self._lock:
            previous, self._mode = self._mode, mode
            if mode != "pass":
                for conn in list(self._open):
                    with contextlib.suppress(OSError):
                        conn.shutdown(socket.SHUT_RDWR)
                    conn.close()
                self._open.clear()
        if mode == "refuse" and self._listener is not None:
            self._listener.close()
            self._listener = None
        elif previous == "refuse" and mode != "refuse":
            self._listen()  # the same port again

    def close(self) -> None:
        self.set_mode("refuse")

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # closed: refusing
            with self._lock:
                mode = self._mode
            if mode != "pass":
                client.close()
                continue
            try:
                upstream = socket.create_connection(self._target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for conn in (source, sink):
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
                conn.close()
                with self._lock:
                    self._open.discard(conn)


@contextlib.contextmanager
def fault_proxy(target_url: str) -> Iterator[FaultProxy]:
    host, port = target_url.split("//", 1)[1].rsplit(":", 1)
    proxy = FaultProxy(host, int(port.rstrip("/")))
    try:
        yield proxy
    finally:
        proxy.close()
