"""A gunicorn worker that serves its app with hypercorn on asyncio: headers have a deadline.

gunicorn keeps what it does well (processes, replacing a silent or worn one, graceful stops);
hypercorn reads requests with h11 in an event loop, where a connection that sends nothing, or
headers a byte at a time, costs a socket and is closed ``header_seconds`` after it opened.
Three of hypercorn's behaviours are changed here, at import: its own refusals (a malformed
request, headers over the limit) carry a problem document instead of an empty body, a request
never upgrades the connection to HTTP/2, which would bypass the header deadline, and a write
waits for the client at most ``send_seconds`` (hypercorn waits for ever: a client that asks for
a large answer and never reads it would hold the answer in memory as long as it stayed).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
from typing import Any

import h11
from gunicorn.workers.base import Worker
from hypercorn.asyncio import serve
from hypercorn.asyncio.tcp_server import TCPServer
from hypercorn.config import Config
from hypercorn.events import Closed, Event, RawData
from hypercorn.protocol.h11 import H11Protocol

from nrf.entrypoints.http_server.gate import Gate, problem

# h11's hint for a request it cannot parse -> our code and what to tell the client.
_REFUSALS = {
    431: ("headers_too_large", "the request line and headers are too long"),
    501: ("unsupported_transfer_encoding", "only Transfer-Encoding: chunked is supported"),
}
_MALFORMED = ("bad_request", "the request is not valid HTTP/1.1")


async def _send_problem(self: H11Protocol, status_code: int) -> None:
    """Hypercorn's refusal of a request it could not parse, as a problem document."""
    code, detail = _REFUSALS.get(status_code, _MALFORMED)
    answer = problem(status_code, code, detail)
    headers = [(k.encode(), v.encode()) for k, v in answer.headers]
    headers += [
        (b"content-length", str(len(answer.body)).encode()),
        (b"connection", b"close"),
        (b"x-content-type-options", b"nosniff"),
    ]
    await self._send_h11_event(h11.Response(status_code=status_code, headers=headers))
    await self._send_h11_event(h11.Data(data=answer.body))
    await self._send_h11_event(h11.EndOfMessage())


async def _http1_only(self: H11Protocol, event: h11.Request) -> None:
    """No h2c upgrade and no HTTP/2 prior knowledge: the request is served as HTTP/1.1."""


_hypercorn_send = TCPServer.protocol_send


class _Config(Config):
    """Hypercorn's configuration, with how long a client has to take each write."""

    send_seconds: float | None = None


async def _send_within_deadline(self: TCPServer, event: Event) -> None:
    """Hypercorn's write, with a deadline on waiting for the client to take it: past it the
    connection is aborted, which drops what is buffered for it (a close would wait for it)."""
    if not isinstance(event, RawData):
        await _hypercorn_send(self, event)
        return
    async with self.send_lock:
        try:
            self.writer.write(event.data)
            seconds = self.config.send_seconds if isinstance(self.config, _Config) else None
            await asyncio.wait_for(self.writer.drain(), seconds)
        except (ConnectionError, RuntimeError):
            await self.protocol.handle(Closed())
        except TimeoutError:
            self.writer.transport.abort()
            await self.protocol.handle(Closed())


H11Protocol._send_error_response = _send_problem  # type: ignore[method-assign]
H11Protocol._check_protocol = _http1_only  # type: ignore[method-assign]
TCPServer.protocol_send = _send_within_deadline  # type: ignore[method-assign]


def resident_bytes() -> int | None:
    """This process's resident memory now (Linux), or None where /proc cannot tell."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def worn(rss: int | None, limit: int, served: int) -> bool:
    """Replace the process: over its RSS limit after serving requests. Only what requests left
    counts: a process over the limit before any (a bundle bigger than the limit) would
    otherwise be replaced for ever, once a second."""
    return rss is not None and rss > limit and served > 0


def open_files_up_to_the_hard_limit() -> None:
    """Each waiting connection holds a file descriptor: allow as many as the platform does
    (a container often starts with a soft limit of 1,024 under a higher hard one)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class HypercornWorker(Worker):
    """Serves the Gate that gunicorn's app factory returned, on gunicorn's listening sockets."""

    def run(self) -> None:
        gate = self.wsgi
        if not isinstance(gate, Gate):
            raise TypeError("the app factory must return an nrf Gate")
        limits = gate.limits
        config = _Config()
        config.send_seconds = limits.send_seconds
        config.bind = [f"fd://{sock.fileno()}" for sock in self.sockets]
        config.keep_alive_timeout = limits.header_seconds
        config.h11_max_incomplete_size = limits.max_header_bytes
        config.graceful_timeout = float(limits.graceful_seconds)
        config.backlog = limits.backlog  # hypercorn listens again on gunicorn's socket
        open_files_up_to_the_hard_limit()
        config.accesslog = None
        config.include_server_header = False
        config.loglevel = "WARNING"
        # gunicorn drew this worker's own number from max_requests and its jitter.
        config.max_requests = self.max_requests
        app: Any = gate  # an ASGI app; hypercorn's types name each ASGI message
        asyncio.run(serve(app, config, shutdown_trigger=self._until_stop, mode="asgi"))

    async def _until_stop(self) -> None:
        """Tell gunicorn we are alive each check; return when we should stop (hypercorn drains)."""
        limit = self.wsgi.limits.max_rss_bytes
        while self.alive:
            self.notify()
            if self.ppid != os.getppid():
                self.log.info("Parent changed, shutting down: %s", self)
                return
            rss = resident_bytes()
            if worn(rss, limit, self.wsgi.served):
                self.log.warning("worker_recycled rss=%d limit=%d pid=%d", rss, limit, self.pid)
                return
            await asyncio.sleep(self.wsgi.limits.check_seconds)
