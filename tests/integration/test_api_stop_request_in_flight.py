"""A request that arrives on an open connection as its process stops is answered, not dropped.

Issue 31's last ``RemoteDisconnected``: a connection a worn process had accepted sent its request
just as the process stopped. Each connection has a timer (``_idle_timeout``) that waits for the
stop with ``asyncio.wait_for``, then closes the connection after a grace; a request's arrival
cancels it. On Python 3.11, ``wait_for`` swallows a cancellation that comes within the few turns
of the event loop after what it waits for has happened, so the cancelled timer ran on: the request
was held back until the grace ended, the connection was closed, and the answer went nowhere.
Here the real worker runs in this process on a loopback socket, with a quota of one request; a
client connected before it is accepted and waits, and sends its request at the very moment the
worker marks itself stopped (from inside hypercorn's ``terminated`` event).
"""

from __future__ import annotations

import http.client
import os
import socket
import threading
from functools import partial

import hypercorn.asyncio.run
import pytest
from gunicorn.config import Config as GunicornConfig
from gunicorn.glogging import Logger
from hypercorn.asyncio.worker_context import EventWrapper, WorkerContext

from nrf.entrypoints.http_server.gate import Gate
from nrf.entrypoints.http_server.limits import HttpLimits
from nrf.entrypoints.http_server.worker import HypercornWorker
from support.asgi_calls import App
from support.raw_http import read_answer

REQUEST = b"GET /late HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


class SendsAsItIsSet(EventWrapper):
    """hypercorn's ``terminated`` event: as it is set, the waiting client sends its request
    (in the same turn of the event loop)."""

    def __init__(self, client: socket.socket) -> None:
        super().__init__()
        self.client = client
        self.sent = False

    async def set(self) -> None:
        await super().set()
        self.client.sendall(REQUEST)
        self.sent = True


class StopsAsARequestArrives(WorkerContext):
    """hypercorn's state of one serving process, whose ``terminated`` is the event above."""

    def __init__(self, client: socket.socket, max_requests: int | None) -> None:
        super().__init__(max_requests)
        self.terminated = stop = SendsAsItIsSet(client)
        stops.append(stop)


stops: list[SendsAsItIsSet] = []  # one for each process the test starts


def test_a_request_arriving_as_the_process_stops_is_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    listener = socket.create_server(("127.0.0.1", 0), backlog=16)
    port = listener.getsockname()[1]
    # Queued before the worker starts, so it is accepted before the first request is answered.
    waiting = socket.create_connection(("127.0.0.1", port), timeout=30)
    monkeypatch.setattr(
        hypercorn.asyncio.run, "WorkerContext", partial(StopsAsARequestArrives, waiting)
    )
    stops.clear()
    shared = socket.socket(fileno=os.dup(listener.fileno()))
    # The waiting connection must outlive the header deadline whatever the machine's load.
    limits = HttpLimits(
        max_requests=1, max_requests_jitter=0, check_seconds=0.05, header_seconds=120
    )
    cfg = GunicornConfig()
    worker = HypercornWorker(1, os.getppid(), [shared], None, 30, cfg, Logger(cfg))
    app = App()
    worker.wsgi = Gate(app, limits)
    worker.max_requests = 1
    worker.replacements = None
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
        assert first.getresponse().status == 200  # its quota of one: it stops at its next check
        first.close()
        status, _, body = read_answer(waiting)
        assert [stop.sent for stop in stops] == [True]
        assert (status, body) == (200, b"ok")
        assert [environ["PATH_INFO"] for environ in app.environs] == ["/first", "/late"]
        serving.join(timeout=60)
        assert not serving.is_alive() and not failures, failures
    finally:
        waiting.close()
        serving.join(timeout=60)
        shared.detach()  # its descriptor was closed by hypercorn
        listener.close()
