"""A local stand-in for Defra's backend as it behaves today: `PATCH` and `GET /quotes/{reference}`.

As the real one does:

- ``GET /quotes/{reference}`` answers 200 ``{"accessStatus": ..., "quote": null}`` to a caller
  without a user's Bearer token (nrf has only the service key), whatever the quote holds, so
  nobody can learn from it whether a result arrived;
- a PATCH body is checked against the backend's schema (transcribed, tests/support/
  backend_schema.py); a body it refuses gets 400 and changes nothing;
- a quote is created with a placeholder row per EDP its boundary check named
  (``create_quote``); a PATCH entry claims the row of exactly its ``edpName`` (another spelling
  inserts a second row); an entry equal to what its row holds changes nothing, so an
  identical PATCH sends no email, while a changed one updates the row and emails the
  applicant again (``emails``).

Test controls: ``fail_next(status, n)`` answers the next ``n`` PATCHes with that status;
``hang_next(n)`` stalls the next ``n`` past any client timeout; ``hold_patches()`` makes every
PATCH apply and then wait for ``release()`` before answering, so a test can kill the client
while the request is in flight (the backend has it; the client never hears).
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

from attrs import frozen

from support.backend_schema import patch_errors
from support.loopback_server import LoopbackServer

# What the backend's GET says: always 200; a reference it does not hold is `not_found`, and a
# caller without the applicant's Bearer token is told `invalid` with a null quote, whatever the
# quote holds (DEFRA/nrf-backend src/api/quote/get-controller.js, commit dd9fc76, whose enum is
# valid | invalid | expired | not_found).
NO_TOKEN_STATUS = "invalid"
UNKNOWN_REFERENCE_STATUS = "not_found"


@frozen
class Received:
    """One PATCH that reached the backend whole: its bytes exactly as sent, and parsed."""

    reference: str
    headers: dict[str, str]
    body: dict[str, Any]
    raw: bytes


@frozen
class Email:
    """A quote email the backend sent: the quote's rows as they stood, one per EDP."""

    reference: str
    rows: tuple[tuple[str, Any], ...]  # (edpName, the entry it holds, None for a placeholder)


class FakeBackend(LoopbackServer):
    def __init__(self, api_key: str = "backend-test-key") -> None:
        self.api_key = api_key
        self.patches: list[Received] = []  # every PATCH read whole and accepted
        self.refused: list[Received] = []  # read whole, refused by the schema (400)
        # reference -> rows, each [edpName, entry or None (the placeholder made at creation)]
        self.quotes: dict[str, list[list[Any]]] = {}
        self.emails: list[Email] = []
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

    def create_quote(self, reference: str, edp_names: list[str]) -> None:
        """The quote as the front end's POST makes it: one placeholder row per EDP name."""
        with self._changed:
            self.quotes[reference] = [[name, None] for name in edp_names]

    def rows(self, reference: str) -> list[tuple[str, Any]]:
        with self._changed:
            return [(name, copy.deepcopy(entry)) for name, entry in self.quotes.get(reference, [])]

    def fail_next(self, status: int, times: int = 1) -> None:
        self._failures += [status] * times

    def hang_next(self, times: int = 1) -> None:
        self._hangs += times

    def hold_patches(self, before_reading: bool = False) -> None:
        """Hold each PATCH until ``release()``: after applying it, or before reading its body."""
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

    def _apply(self, received: Received) -> None:
        """Claim or update each entry's row by its exact edpName; email only on a change."""
        with self._changed:
            rows = self.quotes.setdefault(received.reference, [])
            changed = False
            for entry in received.body["edps"]:
                row = next((r for r in rows if r[0] == entry["edpName"]), None)
                if row is None:
                    rows.append([entry["edpName"], entry])
                    changed = True
                elif row[1] != entry:
                    row[1] = entry
                    changed = True
            self.patches.append(received)
            if changed:
                state = tuple((name, copy.deepcopy(held)) for name, held in rows)
                self.emails.append(Email(received.reference, state))
            self._changed.notify_all()

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
                if reference is None:
                    self._answer(404, {"error": "no"})
                    return
                backend.gets.append(reference)
                # Always 200; without a user's Bearer token, nothing about the quote it holds.
                with backend._changed:
                    known = reference.split("?")[0] in backend.quotes
                status = NO_TOKEN_STATUS if known else UNKNOWN_REFERENCE_STATUS
                self._answer(200, {"accessStatus": status, "quote": None})

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
                received = Received(reference, dict(self.headers), body, raw)
                errors = patch_errors(body)
                if errors:
                    backend.refused.append(received)
                    self._answer(400, {"error": "Bad Request", "message": "; ".join(errors)})
                    return
                backend._apply(received)
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
