"""Driving the gate as hypercorn does, without a socket: a recording WSGI app and a client."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable
from typing import Any

from nrf.adapters.http_server.gate import Gate
from nrf.adapters.http_server.limits import HttpLimits

LIMITS = HttpLimits(max_body_bytes=10, body_seconds=5.0, max_header_bytes=1024)


class App:
    """A WSGI app that records the body and thread it was called with."""

    def __init__(self, content_type: str = "application/json") -> None:
        self.bodies: list[bytes] = []
        self.environs: list[dict[str, Any]] = []
        self.threads: list[str] = []
        self.content_type = content_type

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        self.environs.append(environ)
        self.bodies.append(environ["wsgi.input"].read())
        self.threads.append(threading.current_thread().name)
        start_response("200 OK", [("Content-Type", self.content_type)])
        return [b"ok"]


def scope(method: str = "POST", headers: dict[str, str] | None = None) -> dict[str, Any]:
    pairs = [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    return {
        "type": "http",
        "method": method,
        "path": "/v1/quotes",
        "raw_path": b"/v1/quotes",
        "query_string": b"",
        "headers": pairs,
        "http_version": "1.1",
        "server": ("127.0.0.1", 8080),
        "client": ("127.0.0.1", 5000),
    }


def run(
    gate: Gate, chunks: list[bytes], s: dict[str, Any], end: bool = True
) -> tuple[list[dict[str, Any]], int]:
    """Feed ``chunks`` (then wait for ever unless ``end``); the messages sent, receives made."""
    sent: list[dict[str, Any]] = []
    calls = 0

    async def receive() -> dict[str, Any]:
        nonlocal calls
        calls += 1
        if calls <= len(chunks):
            last = end and calls == len(chunks)
            return {"type": "http.request", "body": chunks[calls - 1], "more_body": not last}
        await asyncio.Event().wait()  # a client that sends nothing more
        raise AssertionError

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(gate(s, receive, send))
    return sent, calls


def status_and_doc(sent: list[dict[str, Any]]) -> tuple[int, dict[str, str], bytes]:
    headers = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
    return sent[0]["status"], headers, sent[1]["body"]
