"""A loopback proxy whose answers trickle back at a set rate: a download that takes a while."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from typing import Any

from support.fault_proxy import FaultProxy


class _Trickle:
    """A socket whose ``recv`` hands out at most ``rate`` bytes a second."""

    def __init__(self, sock: socket.socket, rate: int) -> None:
        self._sock, self._rate = sock, rate

    def recv(self, size: int) -> bytes:
        data = self._sock.recv(min(size, 16_384))
        time.sleep(len(data) / self._rate)
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class ThrottledProxy(FaultProxy):
    """Requests pass at full speed; whatever the target answers comes back at ``rate`` B/s."""

    def __init__(self, target_host: str, target_port: int, rate: int) -> None:
        self._rate = rate
        super().__init__(target_host, target_port)

    def _pipe(self, source: Any, sink: socket.socket) -> None:
        if source.getpeername()[1] == self._target[1]:  # the target's answer
            source = _Trickle(source, self._rate)
        super()._pipe(source, sink)


@contextlib.contextmanager
def throttled_proxy(target_url: str, rate: int) -> Iterator[ThrottledProxy]:
    host, port = target_url.split("//", 1)[1].rsplit(":", 1)
    proxy = ThrottledProxy(host, int(port.rstrip("/")), rate)
    try:
        yield proxy
    finally:
        proxy.close()
