"""Read a request body under a size limit and a deadline, so a slow client cannot hold a thread.

gunicorn's gthread worker keeps idle connections in its poller, not in a thread, but once a
request's headers have arrived a thread reads the body, and a client that trickles a byte now
and then would hold that thread forever. At the deadline a watchdog (one thread per process)
shuts the socket's read side: the blocked read returns at once and the client gets a 408 (the
write side stays open for it); gunicorn then finds the read side closed and drops the
connection instead of keeping it alive.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable

import falcon

from nrf.entrypoints.api.problems import ApiProblem
from nrf.entrypoints.api.watchdog import WATCHDOG, Watchdog


def read_body(
    req: falcon.Request,
    max_bytes: int,
    timeout: float,
    clock: Callable[[], float] = time.monotonic,
    watchdog: Watchdog = WATCHDOG,
) -> bytes:
    """The whole body, or ApiProblem: 413 over ``max_bytes``, 408 past ``timeout`` seconds."""
    length = req.content_length
    if length is not None and length > max_bytes:
        detail = f"the request body is {length:,} bytes; at most {max_bytes:,} are allowed"
        raise ApiProblem("body_too_large", detail)
    sock = req.env.get("gunicorn.socket")
    cut = threading.Event()

    def stop_reading() -> None:
        cut.set()
        if isinstance(sock, socket.socket):
            with contextlib.suppress(OSError):  # already closed by the client
                sock.shutdown(socket.SHUT_RD)

    started = clock()
    cancel = watchdog.watch(timeout, stop_reading)
    try:
        # Without Content-Length (chunked), Falcon's bounded stream would read nothing; the
        # server's own stream ends where the chunks do.
        stream = req.bounded_stream if length is not None else req.stream
        data = stream.read(max_bytes + 1)
    except Exception:  # gunicorn's chunked reader raises when the read side is cut
        data = b""
        if not cut.is_set():
            raise ApiProblem("incomplete_body", "the request body could not be read") from None
    finally:
        cancel()
    if cut.is_set() or clock() - started > timeout:
        detail = f"the request body did not arrive within {timeout:g} s"
        raise ApiProblem("body_timeout", detail)
    if len(data) > max_bytes:
        detail = f"the request body is over {max_bytes:,} bytes, the most allowed"
        raise ApiProblem("body_too_large", detail)
    if length is not None and len(data) < length:
        raise ApiProblem("incomplete_body", "the request body is shorter than its Content-Length")
    return data
