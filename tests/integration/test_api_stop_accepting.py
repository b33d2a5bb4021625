"""A process being replaced stops accepting before it drains: a client arriving then is a sibling's.

gunicorn's processes share one listening socket. hypercorn went on accepting for a few turns of
its event loop after its stop began, and drained only the connections whose tasks had started
by then: a client that connected as the process decided to go was accepted, left out of the
drain, and closed unanswered (``RemoteDisconnected``, issue 31's storm of replacements under
load). Here the real worker runs in this process on a loopback socket; its quota is one request,
and a client connects at the very moment the worker decides to go (from inside that decision).
That client must still be in the kernel's queue once the worker has stopped, for this test to
take as a sibling would, and the request the worker accepted before must have had its answer.
"""

from __future__ import annotations

import http.client
import os
import socket
import threading

import pytest
from gunicorn.config import Config as GunicornConfig
from gunicorn.glogging import Logger

from nrf.adapters.http_server.gate import Gate
from nrf.adapters.http_server.limits import HttpLimits
from nrf.adapters.http_server.replacements import Replacements
from nrf.adapters.http_server.worker import HypercornWorker
from support.asgi_calls import App

REQUEST = b"GET /late HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


class ClientArrivesAsItGoes(Replacements):
    """The shared replacement state, where a client connects as the worker is let go."""

    def __init__(self, port: int) -> None:
        super().__init__(stale_seconds=120.0)
        self.port = port
        self.arrived: list[socket.socket] = []

    def begin(self) -> bool:
        late = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        late.sendall(REQUEST)
        self.arrived.append(late)
        return super().begin()


def test_a_client_arriving_as_the_process_goes_is_left_for_a_sibling() -> None:
    listener = socket.create_server(("127.0.0.1", 0), backlog=16)
    port = listener.getsockname()[1]
    # The worker's copy of gunicorn's socket: hypercorn closes its copy when it stops.
    shared = socket.socket(fileno=os.dup(listener.fileno()))
    limits = HttpLimits(max_requests=1, max_requests_jitter=0, check_seconds=0.05)
    cfg = GunicornConfig()
    worker = HypercornWorker(1, os.getppid(), [shared], None, 30, cfg, Logger(cfg))
    worker.wsgi = Gate(App(), limits)
    worker.max_requests = 1
    arrivals = ClientArrivesAsItGoes(port)
    worker.replacements = arrivals
    failures: list[BaseException] = []

    def run() -> None:
        try:
            worker.run()
        except BaseException as error:  # seen by the assertions below
            failures.append(error)

    serving = threading.Thread(target=run)
    serving.start()
    try:
        first = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        first.request("GET", "/first")
        assert first.getresponse().status == 200  # its quota of one: it goes at its next check
        first.close()
        serving.join(timeout=60)
        assert not serving.is_alive() and not failures, failures
        assert len(arrivals.arrived) == 1
        late = arrivals.arrived[0]
        listener.settimeout(0)  # the late client is already queued, or was taken and lost
        try:
            sibling_side, _ = listener.accept()
        except BlockingIOError:
            pytest.fail("the stopping process accepted a client after it decided to go")
        with sibling_side:
            assert sibling_side.recv(len(REQUEST) + 100) == REQUEST
            sibling_side.sendall(b"HTTP/1.1 204 No Content\r\n\r\n")
        late.settimeout(30)
        assert late.recv(100).startswith(b"HTTP/1.1 204")
    finally:
        for client in arrivals.arrived:
            client.close()
        shared.detach()  # its descriptor was closed by hypercorn
        listener.close()
