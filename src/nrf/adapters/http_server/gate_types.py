"""What the gate passes around: a request's head, a whole answer, and the problem document.

Also the headers every answer carries, whoever made it (the app, the gate, or the server's own
refusals): no cache may keep an answer (quotes and keys are private; ASVS V8.2.1), browsers
keep to HTTPS once they have seen it (ASVS V14.4.5; the load balancer terminates TLS), no
Referer leaves our pages, and no type is sniffed.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping
from http import HTTPStatus
from typing import Final, Literal

from attrs import frozen

PROBLEM_JSON = "application/problem+json"
READS = frozenset({"GET", "HEAD", "OPTIONS"})
EVERY_ANSWER_HEADERS = (
    ("x-content-type-options", "nosniff"),
    ("cache-control", "no-store"),
    ("strict-transport-security", "max-age=31536000; includeSubDomains"),
    ("referrer-policy", "no-referrer"),
)


@frozen(kw_only=True)
class Head:
    """A request before its body: method, path, headers (lower-case names), client address."""

    method: str
    path: str
    headers: Mapping[str, str]
    client: str = ""


@frozen(kw_only=True)
class Answer:
    """A whole response; ``code`` is the problem code of a refusal (logged)."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    code: str = ""


MORE: Final = "more"


@frozen
class NeedsPrefix:
    """Let ``check`` see the body so far as it arrives, up to ``size`` bytes: it refuses (an
    Answer), admits (None) or asks for more (MORE), which it may not once ``final`` is true
    (``size`` bytes came, or the whole body)."""

    size: int
    check: Callable[[bytes, bool], Answer | Literal["more"] | None]


Admission = Callable[[Head], "Answer | NeedsPrefix | None"]
Throttle = Callable[[Head], "Answer | None"]


def problem(
    status: int, code: str, detail: str, headers: tuple[tuple[str, str], ...] = ()
) -> Answer:
    """A problem document (RFC 9457) in the API's shape, with a fresh request id."""
    request_id = uuid.uuid4().hex
    doc = {
        "type": f"urn:nrf:problem:{code}",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
        "request_id": request_id,
    }
    body = (json.dumps(doc, indent=2) + "\n").encode()
    own = (("content-type", PROBLEM_JSON), ("x-request-id", request_id))
    return Answer(status=status, headers=own + headers, body=body, code=code)
