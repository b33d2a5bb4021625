"""The answer a stopping process sends says ``Connection: close``: no client reuses the connection.

A client that keeps connections open (HTTP/1.1's default) sends its next request on one as soon
as it has an answer. A process that has begun to stop closes each connection once its answer is
sent; without ``Connection: close`` the client could not know, and a request it sent just then
was lost (``RemoteDisconnected``: the keep-alive race). Here the real worker runs in this process
on a loopback socket; a request is held by the app until the worker marks itself stopped (asked
to stop as gunicorn's SIGTERM handler does), so its answer is written by a stopping process.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from nrf.adapters.http_server.gate import Gate
from nrf.adapters.http_server.limits import HttpLimits
from support.raw_http import read_answer, rest_after_answer
from support.stop_hook import call_on_stop
from support.worker_in_process import worker_in_process


class HeldApp:
    """A WSGI app that says when a request has arrived and answers it once released."""

    def __init__(self) -> None:
        self.arrived = threading.Event()
        self.release = threading.Event()

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        self.arrived.set()
        self.release.wait(60)
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]


def test_the_answer_of_a_stopping_process_closes_its_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    listener = socket.create_server(("127.0.0.1", 0), backlog=16)
    port = listener.getsockname()[1]
    app = HeldApp()
    stops = call_on_stop(monkeypatch, app.release.set)
    limits = HttpLimits(max_requests=1000, max_requests_jitter=0, check_seconds=0.05)
    try:
        with worker_in_process(Gate(app, limits), listener, quota=1000) as running:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
                client.sendall(b"GET /held HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                assert app.arrived.wait(30)
                running.worker.alive = False  # a graceful stop, as gunicorn's SIGTERM asks
                status, headers, body = read_answer(client)
                rest = rest_after_answer(client)
            assert (status, body, headers.get("connection"), rest) == (200, b"ok", "close", b"")
            assert [stop.called for stop in stops] == [True]
            assert running.stopped(), running.failures
    finally:
        listener.close()
