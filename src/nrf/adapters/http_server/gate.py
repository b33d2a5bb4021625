"""An ASGI app in front of a WSGI app: a request gets a thread only once it has fully arrived.

The event loop reads the body, counting bytes as they come (413 at the first byte over, chunked
or not) against a deadline (408). Before a byte of body is read, a head with ambiguous framing,
a WebSocket upgrade or a body on a read is refused (framing.py), a client or key past its rate
is told to come back later (429, throttle.py), and an admission check may refuse (a missing API
key), or ask to see a short prefix of the body first (the upload form's key field, which the
form sends first). Then the WSGI app runs in a thread with the body in memory: a slow client
holds a socket and a coroutine, never a thread. POSTs and reads use separate pools, so a queue
of quotes never delays /health. Each refusal is logged (refusal_log.py); every answer carries
the headers of gate_types.py, every HTML answer those that stop it being framed.
"""

# Long: the gate and its bridge to the WSGI app share one request's reads, deadline and pools.

from __future__ import annotations

import asyncio
import io
import logging
import sys
from collections.abc import Awaitable, Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from nrf.adapters.http_server.framing import framing_refusal, has_body
from nrf.adapters.http_server.gate_types import (
    EVERY_ANSWER_HEADERS,
    MORE,
    PROBLEM_JSON,
    READS,
    Admission,
    Answer,
    Head,
    NeedsPrefix,
    Throttle,
    problem,
)
from nrf.adapters.http_server.limits import HttpLimits
from nrf.adapters.http_server.refusal_log import log_refusal

__all__ = ["MORE", "PROBLEM_JSON", "READS", "Admission", "Answer", "Gate", "Head", "NeedsPrefix"]
__all__ += ["Throttle", "problem"]

log = logging.getLogger("nrf.http")
# The form holds a key field and nothing on our pages loads from elsewhere or runs script.
HTML_HEADERS = (
    (
        "content-security-policy",
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'",
    ),
    ("x-frame-options", "DENY"),
)
# Seconds a client is told to wait when its request was cut by the process being replaced.
REPLACED_RETRY_SECONDS = 5

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


# A route whose clients read their own shape of refusal (path -> the 413 answer for a detail).
TooLarge = Mapping[str, Callable[[str], "Answer"]]


class _Refused(Exception):
    def __init__(self, answer: Answer) -> None:
        super().__init__(answer.status)
        self.answer = answer


class _Gone(Exception):
    """The client went away before its body ended."""


class Gate:
    """The ASGI app hypercorn serves; ``limits`` also configure the server (worker.py)."""

    def __init__(
        self,
        app: WsgiApp,
        limits: HttpLimits,
        admission: Admission | None = None,
        throttle: Throttle | None = None,
        too_large: TooLarge | None = None,
    ) -> None:
        self.app, self.limits = app, limits
        self._admission, self._throttle = admission, throttle
        self._too_large = dict(too_large or {})
        self.served = 0  # requests answered by the app: a fresh process has none
        self._work = ThreadPoolExecutor(limits.work_threads, thread_name_prefix="nrf-work")
        self._reads = ThreadPoolExecutor(limits.read_threads, thread_name_prefix="nrf-read")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self._work.shutdown(wait=False)
                self._reads.shutdown(wait=False)
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one request; whatever goes wrong, the client gets a status with headers."""
        client = scope.get("client")
        head = Head(
            method=scope["method"],
            path=scope["path"],
            headers=_headers(scope),
            client=_address(client),
        )
        started: list[bool] = []

        async def tracked(message: dict[str, Any]) -> None:
            started.append(True)
            await send(message)

        try:
            await self._serve(scope, head, receive, tracked)
        except asyncio.CancelledError:
            # The process is being replaced and its grace period is over: say so and when to
            # come back, rather than hypercorn's empty 500.
            if not started:
                retry = (("retry-after", str(REPLACED_RETRY_SECONDS)),)
                detail = "this server process is being replaced: try again shortly"
                answer = problem(503, "server_restarting", detail, retry)
                await _refuse(send, head, answer, close=True)
            raise
        except Exception:
            log.exception("request_failed", extra={"method": head.method, "path": head.path})
            if not started:
                answer = problem(500, "internal_error", "the server failed to answer")
                await _refuse(send, head, answer, close=True)

    async def _serve(self, scope: Scope, head: Head, receive: Receive, send: Send) -> None:
        if _head_bytes(scope) > self.limits.max_header_bytes:
            # h11 caps headers that arrive in pieces; this caps those that came in one read.
            detail = f"the request line and headers are over {self.limits.max_header_bytes:,} bytes"
            await _refuse(send, head, problem(431, "headers_too_large", detail), close=True)
            return
        framing = framing_refusal(head)
        if framing is not None:
            await _refuse(send, head, framing, close=True)
            return
        verdict: Answer | NeedsPrefix | None = None
        if self._throttle is not None:
            verdict = self._throttle(head)
        if verdict is None and self._admission is not None:
            verdict = self._admission(head)
        if isinstance(verdict, Answer):
            await _refuse(send, head, verdict, close=has_body(head))
            return
        try:
            body = await self._read_body(head, receive, verdict)
        except _Refused as refused:
            await _refuse(send, head, refused.answer, close=True)
            return
        except _Gone:
            return
        environ = wsgi_environ(scope, head, body)
        pool = self._reads if head.method in READS else self._work
        loop = asyncio.get_running_loop()
        answer = await loop.run_in_executor(pool, call_wsgi, self.app, environ)
        self.served += 1
        await _send(send, answer, close=False)

    def _over(self, head: Head, detail: str) -> Answer:
        """The 413 for a body over the limit: the route's own shape, else a problem document."""
        answer = self._too_large.get(head.path)
        return answer(detail) if answer is not None else problem(413, "body_too_large", detail)

    async def _read_body(self, head: Head, receive: Receive, prefix: NeedsPrefix | None) -> bytes:
        limit, seconds = self.limits.max_body_bytes, self.limits.body_seconds
        declared = head.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            detail = f"the request body is {int(declared):,} bytes; at most {limit:,} are allowed"
            raise _Refused(self._over(head, detail))
        body = bytearray()
        more = True
        try:
            # One deadline for the whole body (a timer, not a task and a timer for each chunk).
            async with asyncio.timeout(seconds):
                while more:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        raise _Gone()
                    body += message.get("body", b"")
                    more = bool(message.get("more_body"))
                    if len(body) > limit:
                        detail = f"the request body is over {limit:,} bytes, the most allowed"
                        raise _Refused(self._over(head, detail))
                    if prefix is not None:
                        final = len(body) >= prefix.size or not more
                        verdict = prefix.check(bytes(body[: prefix.size]), final)
                        if isinstance(verdict, Answer):
                            raise _Refused(verdict)
                        if verdict is None or final:
                            prefix = None
        except TimeoutError:
            detail = f"the request body did not arrive within {seconds:g} s"
            raise _Refused(problem(408, "body_timeout", detail)) from None
        return bytes(body)


def _headers(scope: Scope) -> dict[str, str]:
    found: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", ()):
        name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
        found[name] = f"{found[name]},{value}" if name in found else value
    return found


def _head_bytes(scope: Scope) -> int:
    """About the size of the request line and headers as sent."""
    line = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"") + 16
    return line + sum(len(name) + len(value) + 4 for name, value in scope.get("headers", ()))


def _address(client: Any) -> str:
    return str(client[0]) if client else ""


async def _refuse(send: Send, head: Head, answer: Answer, close: bool) -> None:
    """An answer the gate made without the app: logged, then sent."""
    log_refusal(answer, head)
    await _send(send, answer, close)


_OURS = {"connection", *(name for name, _ in EVERY_ANSWER_HEADERS)}


async def _send(send: Send, answer: Answer, close: bool) -> None:
    headers = [(k, v) for k, v in answer.headers if k not in _OURS]
    if not any(k == "content-length" for k, _ in headers):
        headers.append(("content-length", str(len(answer.body))))
    headers += EVERY_ANSWER_HEADERS
    content_type = dict(answer.headers).get("content-type", "")
    if content_type.split(";")[0].strip().lower() == "text/html":
        headers += HTML_HEADERS
    if close:  # the rest of the body is not read: the connection cannot carry another request
        headers.append(("connection", "close"))
    await send(
        {
            "type": "http.response.start",
            "status": answer.status,
            "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers],
        }
    )
    await send({"type": "http.response.body", "body": answer.body, "more_body": False})


def wsgi_environ(scope: Scope, head: Head, body: bytes) -> dict[str, Any]:
    """PEP 3333's environ for a request whose whole body is ``body`` (so its length is known)."""
    server = scope.get("server") or ("localhost", 80)
    client = scope.get("client")
    environ: dict[str, Any] = {
        "REQUEST_METHOD": head.method,
        "SCRIPT_NAME": "",
        "PATH_INFO": head.path.encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1]),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "REMOTE_ADDR": client[0] if client else "",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    for name, value in head.headers.items():
        if name in ("content-length", "transfer-encoding"):
            continue  # the body is whole: its length below is the truth
        key = "CONTENT_TYPE" if name == "content-type" else "HTTP_" + name.upper().replace("-", "_")
        environ[key] = value
    if body or head.method not in READS:
        environ["CONTENT_LENGTH"] = str(len(body))
    return environ


def call_wsgi(app: WsgiApp, environ: dict[str, Any]) -> Answer:
    """Run the WSGI app once and collect its whole answer (run in a pool thread)."""
    started: list[tuple[str, list[tuple[str, str]]]] = []
    chunks: list[bytes] = []

    def start_response(
        status: str, headers: list[tuple[str, str]], exc_info: Any = None
    ) -> Callable[[bytes], None]:
        started[:] = [(status, headers)]
        return chunks.append

    result = app(environ, start_response)
    try:
        chunks.extend(result)
    finally:
        close = getattr(result, "close", None)
        if close is not None:
            close()
    status, headers = started[0]
    lowered = tuple((name.lower(), value) for name, value in headers)
    return Answer(status=int(status[:3]), headers=lowered, body=b"".join(chunks))
