"""A request that arrives on an open connection as its process stops is answered, not dropped.

Issue 31's last ``RemoteDisconnected``: a connection a worn process had accepted sent its request
just as the process stopped. Each connection has a timer (``_idle_timeout``) that waits for the
stop with ``asyncio.wait_for``, then closes the connection after a grace; a request's arrival
cancels it. On Python 3.11, ``wait_for`` swallows a cancellation that comes within the few turns
of the event loop after what it waits for has happened, so the cancelled timer ran on: the request
was held back until the grace ended, the connection was closed, and the answer went nowhere.
Here the real worker runs in this process on a loopback socket, with a quota of one request; a
client connected before it is accepted and waits, and sends its request at the very moment the
worker marks itself stopped (support/stop_hook.py).
"""

from __future__ import annotations

import http.client
import socket
from functools import partial

import pytest

from nrf.adapters.http_server.gate import Gate
from nrf.adapters.http_server.limits import HttpLimits
from support.asgi_calls import App
from support.raw_http import read_answer
from support.stop_hook import call_on_stop
from support.worker_in_process import worker_in_process

REQUEST = b"GET /late HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def test_a_request_arriving_as_the_process_stops_is_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    listener = socket.create_server(("127.0.0.1", 0), backlog=16)
    port = listener.getsockname()[1]
    # Queued before the worker starts, so it is accepted before the first request is answered.
    waiting = socket.create_connection(("127.0.0.1", port), timeout=30)
    stops = call_on_stop(monkeypatch, partial(waiting.sendall, REQUEST))
    # The waiting connection must outlive the header deadline whatever the machine's load.
    limits = HttpLimits(
        max_requests=1, max_requests_jitter=0, check_seconds=0.05, header_seconds=120
    )
    app = App()
    try:
        with worker_in_process(Gate(app, limits), listener, quota=1) as running:
            first = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            first.request("GET", "/first")
            assert first.getresponse().status == 200  # its quota: it stops at its next check
            first.close()
            status, _, body = read_answer(waiting)
            assert [stop.called for stop in stops] == [True]
            assert (status, body) == (200, b"ok")
            assert [environ["PATH_INFO"] for environ in app.environs] == ["/first", "/late"]
            assert running.stopped(), running.failures
    finally:
        waiting.close()
        listener.close()


def test_a_request_begun_before_the_grace_ends_is_answered() -> None:
    """A stopping process closes a connection that has sent nothing once the grace is over, as
    HTTP allows for an idle one (RFC 9112 9.6), but not one whose request has begun: it has the
    header deadline to finish it, as any connection has, and is answered."""
    listener = socket.create_server(("127.0.0.1", 0), backlog=16)
    port = listener.getsockname()[1]
    # Both queued, and the first half of a request sent, before the worker starts: they are
    # accepted, and that half read, before the first request is answered.
    begun = socket.create_connection(("127.0.0.1", port), timeout=30)
    begun.sendall(REQUEST[:10])
    idle = socket.create_connection(("127.0.0.1", port), timeout=30)
    limits = HttpLimits(
        max_requests=1, max_requests_jitter=0, check_seconds=0.05, header_seconds=120
    )
    try:
        with worker_in_process(Gate(App(), limits), listener, quota=1) as running:
            first = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            first.request("GET", "/first")
            assert first.getresponse().status == 200  # its quota: it stops at its next check
            first.close()
            # The idle connection is closed when the grace ends; by then the other one's timer
            # has seen its bytes (both graces began as the stop was signalled, that one first).
            assert idle.recv(100) == b""
            begun.sendall(REQUEST[10:])
            status, headers, body = read_answer(begun)
            assert (status, body, headers.get("connection")) == (200, b"ok", "close")
            assert running.stopped(), running.failures
    finally:
        begun.close()
        idle.close()
        listener.close()
