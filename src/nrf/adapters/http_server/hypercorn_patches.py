"""Six of hypercorn's behaviours, changed at import (worker.py imports this module).

- Its own refusals (a malformed request, headers over the limit) carry a problem document and
  the security headers instead of an empty body, and are logged.
- A request never upgrades the connection to HTTP/2 (``h2c`` or prior knowledge), which would
  bypass the header deadline, nor to WebSocket: every request reaches the gate as HTTP, which
  refuses an upgrade with a problem document (hypercorn's WebSocket stream answered an app
  that does not speak it with an empty 500, and a malformed handshake with an empty 400).
- A write waits for the client at most ``send_seconds`` (hypercorn waits for ever: a client
  that asks for a large answer and never reads it would hold it in memory as long as it
  stayed).
- The header deadline logs a request cut off half-sent, and a stopping process gives each
  connection without a request a moment to deliver one (it was closed unanswered).
- Body chunks the app will never read are dropped: hypercorn hands them to the app through a
  queue of 10, and when the gate refused a request without reading its body (a 401, a body on
  a GET), a client that kept sending filled the queue; the end of the stream then waited for
  room in it, and the connection hung for ever instead of closing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import h11
from hypercorn.asyncio.task_group import TaskGroup
from hypercorn.asyncio.tcp_server import TCPServer
from hypercorn.config import Config
from hypercorn.events import Closed, Event, RawData
from hypercorn.protocol.events import Request
from hypercorn.protocol.h11 import STREAM_ID, H11Protocol
from hypercorn.protocol.http_stream import HTTPStream

from nrf.adapters.http_server.gate_types import EVERY_ANSWER_HEADERS, problem
from nrf.adapters.http_server.refusal_log import log_refusal

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


class DeadlineConfig(Config):
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
            if self.writer.transport.get_write_buffer_size() == 0:
                # The kernel took it all: nothing to wait for (drain returns at once, or
                # raises if the connection is gone), and no timer to arm and cancel.
                await self.writer.drain()
                return
            seconds = self.config.send_seconds if isinstance(self.config, DeadlineConfig) else None
            async with asyncio.timeout(seconds):
                await self.writer.drain()
        except (ConnectionError, RuntimeError):
            await self.protocol.handle(Closed())
        except TimeoutError:
            self.writer.transport.abort()
            await self.protocol.handle(Closed())


async def _run_app(
    app: Any, config: Config, scope: Any, receive: Any, send: Any, finished: asyncio.Event
) -> None:
    """hypercorn's run of the app, saying it has finished before the last message is sent."""
    loop = asyncio.get_running_loop()

    def call_soon(func: Callable[..., Any], *args: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(func(*args), loop).result()

    try:
        await app(scope, receive, send, partial(loop.run_in_executor, None), call_soon)
    except asyncio.CancelledError:
        raise
    except Exception:
        await config.log.exception("Error in ASGI Framework")
    finally:
        finished.set()
        await send(None)


async def _spawn_app(
    self: TaskGroup,
    app: Any,
    config: Config,
    scope: Any,
    send: Callable[[Any], Awaitable[None]],
) -> Callable[[Any], Awaitable[None]]:
    """hypercorn's spawn_app, whose ``put`` drops what the app will never read."""
    queue: asyncio.Queue[Any] = asyncio.Queue(config.max_app_queue_size)
    finished = asyncio.Event()
    self.spawn(_run_app, app, config, scope, queue.get, send, finished)

    async def put(message: Any) -> None:
        if finished.is_set():
            return
        if message.get("type") == "http.disconnect":
            # The stream is over: body chunks still queued will never be of use, and the app
            # may itself be waiting in its last send for this put to return.
            while not queue.empty():
                queue.get_nowait()
        if not queue.full():
            queue.put_nowait(message)
            return
        putting = asyncio.ensure_future(queue.put(message))
        ending = asyncio.ensure_future(finished.wait())
        _, pending = await asyncio.wait({putting, ending}, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()

    return put


# How long a connection with no request yet may still deliver one once the process stops.
STOPPING_GRACE_SECONDS = 1.0


async def _idle_timeout(self: TCPServer) -> None:
    """hypercorn's header deadline, which now logs a request cut off half-sent, and gives a
    connection a moment when the process stops: hypercorn closed every connection without a
    request in progress at once, so one just accepted, its request on its way, was closed
    unanswered (``RemoteDisconnected`` for the client) whenever a process was replaced."""
    try:
        await asyncio.wait_for(self.context.terminated.wait(), self.config.keep_alive_timeout)
    except TimeoutError:
        _log_cut_off_headers(self)
    else:
        await asyncio.sleep(STOPPING_GRACE_SECONDS)  # cancelled if a request arrives
    await asyncio.shield(self._initiate_server_close())


def _log_cut_off_headers(server: TCPServer) -> None:
    wrapped = getattr(server.protocol, "protocol", None)  # hypercorn's ProtocolWrapper
    connection = getattr(wrapped, "connection", None)
    if isinstance(connection, h11.Connection) and connection.trailing_data[0]:
        detail = "the request line and headers did not arrive in time"
        client = server.writer.get_extra_info("peername")
        log_refusal(problem(408, "header_timeout", detail), client=str(client[0]) if client else "")


H11Protocol._send_error_response = _send_problem  # type: ignore[method-assign]
H11Protocol._check_protocol = _http1_only  # type: ignore[method-assign]
H11Protocol._create_stream = _plain_http_stream  # type: ignore[method-assign]
TCPServer.protocol_send = _send_within_deadline  # type: ignore[method-assign]
TaskGroup.spawn_app = _spawn_app  # type: ignore[method-assign]
TCPServer._idle_timeout = _idle_timeout  # type: ignore[method-assign]
