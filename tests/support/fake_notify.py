"""A local stand-in for the GOV.UK Notify API that the real Python client can talk to."""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

import jwt

from support.loopback_server import LoopbackServer

TOKEN_LEEWAY = 30  # seconds either side of now, as Notify allows


# The service's templates and the ((placeholders)) each uses. Like Notify, the fake refuses
# (400) a template it does not know and an email missing one of its template's fields.
SERVICE_TEMPLATES: dict[str, frozenset[str]] = {
    "tpl-started": frozenset({"job_reference", "development_name"}),
    "tpl-completed": frozenset(
        {
            "job_reference",
            "development_name",
            "report_link",
            "result_files",
            "links_expiry",
            "nitrogen_total_kg_per_year",
            "phosphorus_total_kg_per_year",
            "levy_amount",
            "in_scope",
        }
    ),
    "tpl-failed": frozenset({"job_reference", "error_codes", "error_message"}),
}


def notify_error(status: int, error: str, message: str) -> dict[str, Any]:
    return {"status_code": status, "errors": [{"error": error, "message": message}]}


class FakeNotifyServer(LoopbackServer):
    """Checks the client's JWT (iss = service id, HS256 with the secret) and records emails.

    ``fail_next(n, status)`` answers the next ``n`` requests with that status;
    ``hang_next(n)`` stalls the next ``n`` until the client gives up. ``GET
    /v2/notifications?reference=`` lists what was sent, as Notify's own does.
    """

    def __init__(self) -> None:
        self.service_id = str(uuid.uuid4())
        self.secret = str(uuid.uuid4())
        self.api_key = f"nrf_test-{self.service_id}-{self.secret}"
        self.emails: list[dict[str, Any]] = []
        self.templates: dict[str, frozenset[str]] = dict(SERVICE_TEMPLATES)
        self.refused: list[dict[str, Any]] = []  # emails answered 400
        self.requests = 0
        self.lookups: list[str] = []  # references asked about
        self._failures: list[int] = []
        self._hangs = 0
        self._outage: int | None = None
        self._lock = threading.Lock()
        super().__init__(self._handler_class())

    def fail_next(self, count: int, status: int) -> None:
        with self._lock:
            self._failures.extend([status] * count)

    def fail_all(self, status: int | None) -> None:
        """Answer every request with ``status`` until called with None."""
        with self._lock:
            self._outage = status

    def hang_next(self, count: int) -> None:
        with self._lock:
            self._hangs += count

    def _plan(self) -> tuple[bool, int | None]:
        with self._lock:
            self.requests += 1
            if self._hangs:
                self._hangs -= 1
                return True, None
            if self._outage is not None:
                return False, self._outage
            return False, self._failures.pop(0) if self._failures else None

    def _check_token(self, header: str) -> str | None:
        if not header.startswith("Bearer "):
            return "Unauthorized: authentication token must be provided"
        token = header.removeprefix("Bearer ")
        try:
            claims = jwt.decode(
                token,
                key=self.secret,
                algorithms=["HS256"],
                options={"require": ["iss", "iat"], "verify_iat": False},
            )
        except jwt.PyJWTError:
            return "Invalid token: signature, api token not found"
        if claims["iss"] != self.service_id:
            return "Invalid token: service not found"
        if abs(time.time() - float(claims["iat"])) > TOKEN_LEEWAY:
            return "Error: Your system clock must be accurate to within 30 seconds"
        return None

    def _handle_post(self, path: str, headers: Any, body: bytes) -> tuple[int, dict[str, Any]]:
        hang, status = self._plan()
        if hang:
            self._released.wait(timeout=30)
            return 500, notify_error(500, "Exception", "released")
        if path != "/v2/notifications/email":
            return 404, notify_error(404, "Not found", "The requested URL was not found")
        problem = self._check_token(headers.get("Authorization", ""))
        if problem is not None:
            return 403, notify_error(403, "AuthError", problem)
        if status is not None:
            return status, notify_error(status, "FakeFailure", f"told to fail with {status}")
        try:
            data = json.loads(body)
            email, template = data["email_address"], data["template_id"]
        except (ValueError, KeyError):
            return 400, notify_error(400, "ValidationError", "email_address is a required property")
        refusal = self._check_template(template, data.get("personalisation") or {})
        if refusal is not None:
            self.refused.append(data)
            return 400, notify_error(400, "BadRequestError", refusal)
        notification_id = str(uuid.uuid4())
        self.emails.append({**data, "id": notification_id})
        return 201, {
            "id": notification_id,
            "reference": data.get("reference"),
            "content": {"subject": "", "body": "", "from_email": "nrf@notify.example"},
            "uri": f"{self.base_url}/v2/notifications/{notification_id}",
            "template": {"id": template, "version": 1, "uri": ""},
            "email_address": email,
        }

    def _check_template(self, template: str, personalisation: dict[str, Any]) -> str | None:
        fields = self.templates.get(template)
        if fields is None:
            return "Template not found"
        missing = sorted(fields - set(personalisation))
        return f"Missing personalisation: {', '.join(missing)}" if missing else None

    def _handle_get(self, path: str, headers: Any) -> tuple[int, dict[str, Any]]:
        """``GET /v2/notifications?reference=...``: the emails sent with that reference."""
        hang, status = self._plan()
        if hang:
            self._released.wait(timeout=30)
            return 500, notify_error(500, "Exception", "released")
        url = urllib.parse.urlsplit(path)
        if url.path != "/v2/notifications":
            return 404, notify_error(404, "Not found", "The requested URL was not found")
        problem = self._check_token(headers.get("Authorization", ""))
        if problem is not None:
            return 403, notify_error(403, "AuthError", problem)
        if status is not None:
            return status, notify_error(status, "FakeFailure", f"told to fail with {status}")
        query = urllib.parse.parse_qs(url.query)
        self.lookups.append(query.get("reference", [""])[0])
        found = [
            {
                "id": e["id"],
                "reference": e.get("reference"),
                "email_address": e["email_address"],
                "type": "email",
                "status": "delivered",
                "template": {"id": e["template_id"], "version": 1, "uri": ""},
            }
            for e in self.emails
            if "reference" not in query or e.get("reference") == query["reference"][0]
        ]
        return 200, {"notifications": found, "links": {"current": path}}

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._answer(*server._handle_get(self.path, self.headers))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                self._answer(*server._handle_post(self.path, self.headers, self.rfile.read(length)))

            def _answer(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and went away

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output quiet

        return Handler


@contextmanager
def running_fake_notify() -> Iterator[FakeNotifyServer]:
    server = FakeNotifyServer().start()
    try:
        yield server
    finally:
        server.stop()
