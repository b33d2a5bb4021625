"""One JSON log line for each request the server refuses before the app sees it (ASVS V7.1.3).

A wrong API key, a body too large or too slow, a flood past the rate limit, a malformed or
smuggling request: each is a ``request_refused`` line with its status, code, method, path and
client address, so an attack shows in the log as well as to the client. A key is never logged:
a key that was sent is named by the first 12 hex digits of its SHA-256 (enough to tell one
caller's attempts from another's, useless for guessing the key). Texts from the request are
cut short; JSON escapes any line break in them, so they cannot forge a line.
"""

from __future__ import annotations

import hashlib
import logging

from nrf.adapters.http_server.gate_types import Answer, Head

log = logging.getLogger("nrf.http.refusals")
KEY_HEADER = "x-api-key"
_TEXT = 200


def key_digest(key: str) -> str:
    """What the log says of a key: never the key."""
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:12]


def log_refusal(answer: Answer, head: Head | None = None, client: str = "") -> None:
    """``request_refused`` for ``answer``; ``head`` is None when the request could not be parsed."""
    fields: dict[str, object] = {
        "status": answer.status,
        "code": answer.code,
        "request_id": dict(answer.headers).get("x-request-id"),
        "client": (head.client if head is not None else client) or None,
    }
    if head is not None:
        fields["method"] = head.method[:_TEXT]
        fields["path"] = head.path[:_TEXT]
        key = head.headers.get(KEY_HEADER)
        if key:
            fields["key_sha256"] = key_digest(key)
    retry = dict(answer.headers).get("retry-after")
    if retry is not None:
        fields["retry_after"] = retry
    log.warning("request_refused", extra=fields)
