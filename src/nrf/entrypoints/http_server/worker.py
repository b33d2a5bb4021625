"""A gunicorn worker that serves its app with hypercorn on asyncio: headers have a deadline.

gunicorn keeps what it does well (processes, replacing a silent or worn one, graceful stops);
hypercorn reads requests with h11 in an event loop, where a connection that sends nothing, or
headers a byte at a time, costs a socket and is closed ``header_seconds`` after it opened.
Four of hypercorn's behaviours are changed here, at import: its own refusals (a malformed
request, headers over the limit) carry a problem document instead of an empty body and are
logged, a request never upgrades the connection to HTTP/2, which would bypass the header
deadline, nor to WebSocket (the gate answers it), and a write waits for the client at most
``send_seconds`` (hypercorn waits for ever: a client that asks for
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
from hypercorn.protocol.events import Request
from hypercorn.protocol.h11 import STREAM_ID, H11Protocol
from hypercorn.protocol.http_stream import HTTPStream

from nrf.entrypoints.http_server.gate import Gate
from nrf.entrypoints.http_server.gate_types import EVERY_ANSWER_HEADERS, problem
from nrf.entrypoints.http_server.refusal_log import log_refusal
from nrf.entrypoints.http_server.replacements import Replacements

# A replacement not ready this long after it began (its start failed) holds no sibling back.
REPLACEMENT_STALE_SECONDS = 120.0

# h11's hint for a request it cannot parse -> our code and what to tell the client.
_REFUSALS = {
    431: ("headers_too_large", "the request line and headers are too long"),
    501: ("unsupported_transfer_encoding", "only Transfer-Encoding: chunked is supported"),
}
_MALFORMED = ("bad_request", "the request is not valid HTTP/1.1")


async def _send_problem(self: H11Protocol, status_code: int) -> None:
    """Hypercorn's refusal of a request it could not parse, as a problem document, logged."""
    code, detail = _REFUSALS.get(status_code, _MALFORMED)
    answer = problem(status_code, code, detail)
    log_refusal(answer, client=str(self.client[0]) if self.client else "")
    headers = [(k.encode(), v.encode()) for k, v in (*answer.headers, *EVERY_ANSWER_HEADERS)]
    headers += [
        (b"content-length", str(len(answer.body)).encode()),
        (b"connection", b"close"),
    ]
    await self._send_h11_event(h11.Response(status_code=status_code, headers=headers))
    await self._send_h11_event(h11.Data(data=answer.body))
    await self._send_h11_event(h11.EndOfMessage())


async def _http1_only(self: H11Protocol, event: h11.Request) -> None:
    """No h2c upgrade and no HTTP/2 prior knowledge: the request is served as HTTP/1.1."""


async def _plain_http_stream(self: H11Protocol, request: h11.Request) -> None:
    """Every request goes to the app as HTTP, a WebSocket upgrade too (the gate refuses it
    with a problem document): hypercorn's WebSocket stream answered an app that does not
    speak it with an empty 500, and a malformed handshake with an empty 400."""
    self.stream = HTTPStream(
        self.app,
        self.config,
        self.context,
        self.task_group,
        self.ssl,
        self.client,
        self.server,
        self.stream_send,
        STREAM_ID,
    )
    headers = request.headers.raw_items() if self.config.h11_pass_raw_headers else request.headers
    await self.stream.handle(
        Request(
            stream_id=STREAM_ID,
            headers=list(headers),
            http_version=request.http_version.decode(),
            method=request.method.decode("ascii").upper(),
            raw_path=request.target,
            state=self.connection_state,
        )
    )
    self.keep_alive_requests += 1
    await self.context.mark_request()


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
H11Protocol._create_stream = _plain_http_stream  # type: ignore[method-assign]
TCPServer.protocol_send = _send_within_deadline  # type: ignore[method-assign]


def resident_bytes() -> int | None:
    """This process's resident memory now (Linux), or None where /proc cannot tell."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def worn(rss: int | None, limit: int, served: int, quota: int) -> str | None:
    """Why the process should be replaced, or None: it has served its quota of requests, or is
    over its RSS limit after serving some. Only what requests left counts: a process over the
    limit before any (a bundle bigger than the limit) would otherwise be replaced for ever,
    once a second. The quota counts requests the app answered, not refusals, which leave
    nothing behind (a flood of 401s and 429s replaced processes for nothing)."""
    if served >= quota:
        return "requests"
    if rss is not None and rss > limit and served > 0:
        return "rss"
    return None


def open_files_up_to_the_hard_limit() -> None:
    """Each waiting connection holds a file descriptor: allow as many as the platform does
    (a container often starts with a soft limit of 1,024 under a higher hard one)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class HypercornWorker(Worker):
    """Serves the Gate that gunicorn's app factory returned, on gunicorn's listening sockets."""

    replacements: Replacements | None = None  # made in the arbiter, shared by its workers

    @classmethod
    def check_config(cls, cfg: Any, log: Any) -> None:
        """Run by gunicorn's arbiter before it forks a worker: the shared replacement state."""
        cls.replacements = Replacements(REPLACEMENT_STALE_SECONDS)

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
        # hypercorn's own max_requests stays unset: _until_stop replaces by count, in turn.
        if self.replacements is not None:
            self.replacements.ready()
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
            # gunicorn drew this worker's own quota from max_requests and its jitter.
            why = worn(rss, limit, self.wsgi.served, self.max_requests)
            if why is not None and (self.replacements is None or self.replacements.begin()):
                self.log.warning(
                    "worker_recycled reason=%s rss=%s limit=%d served=%d pid=%d",
                    why,
                    rss,
                    limit,
                    self.wsgi.served,
                    self.pid,
                )
                return
            await asyncio.sleep(self.wsgi.limits.check_seconds)
