"""A local stand-in for Defra's backend: `PATCH /quotes/{reference}` and `GET` to read it back.

``fail_next(status, n)`` answers the next ``n`` PATCHes with that status; ``hang_next(n)``
stalls the next ``n`` past any client timeout; ``hold_patches()`` makes every PATCH store the
quote and then wait for ``release()`` before answering, so a test can kill the client while
the request is in flight (the backend has it; the client never hears).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

from attrs import frozen

from support.loopback_server import LoopbackServer


@frozen
class Received:
    """One PATCH that reached the backend whole."""

    reference: str
    headers: dict[str, str]
    body: dict[str, Any]


class FakeBackend(LoopbackServer):
    def __init__(self, api_key: str = "backend-test-key") -> None:
        self.api_key = api_key
        self.patches: list[Received] = []  # every PATCH read whole, answered or not
        self.quotes: dict[str, dict[str, Any]] = {}
        self.gets: list[str] = []
        self.attempts = 0  # every PATCH request, whatever became of it
        self.answered = threading.Event()  # set after each successful PATCH's answer
        self._failures: list[int] = []
        self._hangs = 0
        self._holding = False
        self._before_reading = False
        self._drop = False
        self._changed = threading.Condition()
        super().__init__(self._handler())

    def fail_next(self, status: int, times: int = 1) -> None:
        self._failures += [status] * times

    def hang_next(self, times: int = 1) -> None:
        self._hangs += times

    def hold_patches(self, before_reading: bool = False) -> None:
        """Hold each PATCH until ``release()``: after storing it, or before reading its body."""
        self._holding, self._released = True, threading.Event()
        self._before_reading = before_reading

    def release(self, drop: bool = False) -> None:
        """Let held PATCHes go on; ``drop`` discards those held unread (never received)."""
        self._drop = drop
        self._holding = False
        self._released.set()

    def wait_for_patches(self, count: int, timeout: float = 60) -> list[Received]:
        with self._changed:
            if not self._changed.wait_for(lambda: len(self.patches) >= count, timeout):
                raise AssertionError(f"{len(self.patches)} PATCH(es), wanted {count}")
            return list(self.patches)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        backend = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _reference(self) -> str | None:
                prefix = "/quotes/"
                return self.path[len(prefix) :] if self.path.startswith(prefix) else None

            def _answer(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                reference = self._reference()
                if reference is None or self.headers.get("x-api-key") != backend.api_key:
                    self._answer(404 if reference is None else 401, {"error": "no"})
                    return
                backend.gets.append(reference)
                quote = backend.quotes.get(reference)
                if quote is None:
                    self._answer(404, {"error": "not_found"})
                else:
                    self._answer(200, {"reference": reference, **quote})

            def do_PATCH(self) -> None:
                backend.attempts += 1
                if backend._holding and backend._before_reading:
                    backend._released.wait(60)
                    if backend._drop:
                        self.close_connection = True
                        return
                reference = self._reference()
                try:
                    raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                    body = json.loads(raw)
                except (OSError, ValueError):
                    return  # the client died before its body arrived: nothing received
                if reference is None or self.headers.get("x-api-key") != backend.api_key:
                    self._answer(401, {"error": "unauthorised"})
                    return
                if backend._hangs:
                    backend._hangs -= 1
                    backend._released.wait(30)  # past any client timeout
                    return
                if backend._failures:
                    self._answer(backend._failures.pop(0), {"error": "scripted"})
                    return
                with backend._changed:
                    backend.quotes[reference] = body
                    backend.patches.append(Received(reference, dict(self.headers), body))
                    backend._changed.notify_all()
                if backend._holding and not backend._before_reading:
                    backend._released.wait(60)
                self._answer(200, {"reference": reference})
                backend.answered.set()

        return Handler


@contextmanager
def running_fake_backend() -> Iterator[FakeBackend]:
    server = FakeBackend().start()
    try:
        yield server
    finally:
        server.stop()
