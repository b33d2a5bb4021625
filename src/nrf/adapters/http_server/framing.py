"""Requests refused by their head alone, before a byte of body is read: framing nobody needs.

Both ``Content-Length`` and ``Transfer-Encoding`` is how a request is smuggled past a proxy that
reads the other one (RFC 9112 6.1 lets a server refuse it; h11 silently prefers the chunked
framing); the connection is closed so no byte after the head is read as another request. A
body on GET, HEAD or OPTIONS is read by no route, so it is refused rather than held in memory
(thirty 50 MiB bodies took two processes past 1.3 GB). A WebSocket upgrade is refused with a
problem document: nothing here speaks WebSocket.
"""

from __future__ import annotations

from nrf.adapters.http_server.gate_types import READS, Answer, Head, problem


def has_body(head: Head) -> bool:
    """The head announces a body (chunked, or a length other than 0)."""
    return "transfer-encoding" in head.headers or head.headers.get("content-length", "0") != "0"


def framing_refusal(head: Head) -> Answer | None:
    """400 for ambiguous framing, a WebSocket upgrade or a body on a read; else None."""
    if "transfer-encoding" in head.headers and "content-length" in head.headers:
        detail = "send Content-Length or Transfer-Encoding, not both"
        return problem(400, "ambiguous_framing", detail)
    if "websocket" in head.headers.get("upgrade", "").lower():
        return problem(400, "websocket_not_supported", "this server does not speak WebSocket")
    if head.method in READS and has_body(head):
        detail = f"a {head.method} request carries no body here"
        return problem(400, "body_not_allowed", detail)
    return None
