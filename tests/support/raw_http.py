"""Raw HTTP over a loopback socket, the server processes' memory, and the server's JSON log.

Shared by the tests of hostile clients and by benchmarks/keyless_bodies.py, so both measure
the same way.
"""

from __future__ import annotations

import json
import os
import socket
from contextlib import suppress
from pathlib import Path
from typing import Any


def read_answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """One whole answer from ``sock`` (the server sends its length)."""
    reply = b""
    while True:
        head, sep, body = reply.partition(b"\r\n\r\n")
        if sep:
            lines = head.decode("latin-1").split("\r\n")
            headers = dict(
                (name.strip().lower(), value.strip())
                for name, _, value in (line.partition(":") for line in lines[1:])
            )
            if len(body) >= int(headers.get("content-length", "-1")) >= 0:
                return int(lines[0].split()[1]), headers, body
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"connection closed mid-answer: {reply[:300]!r}")
        reply += chunk


def raw(port: int, data: bytes, timeout: float = 10.0) -> tuple[int, dict[str, str], bytes]:
    """Send raw bytes and read one whole answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        return read_answer(sock)


def rest_after_answer(sock: socket.socket, timeout: float = 10.0) -> bytes:
    """Whatever the server sends after an answer, until it closes the connection."""
    sock.settimeout(timeout)
    rest = b""
    with suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            rest += chunk
    return rest


def send_all_but_the_last_byte(
    port: int, head: bytes, size: int, timeout: float = 30.0
) -> socket.socket | None:
    """Send ``head`` and all but the last byte of a ``size``-byte body, so that a server that
    reads bodies holds it whole, waiting; the open socket, or None once the server has
    closed the connection instead of reading (the client's write is then reset)."""
    chunk = b"x" * (1024 * 1024)
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        sock.sendall(head)
        left = size - 1
        while left > 0:
            sock.sendall(chunk[: min(left, len(chunk))])
            left -= len(chunk)
    except (BrokenPipeError, ConnectionResetError):
        sock.close()
        return None
    return sock


def children_rss(parent: int) -> dict[int, int]:
    """Resident bytes of each child process of ``parent`` (gunicorn's workers), from /proc."""
    found: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            statm = (entry / "statm").read_text()
        except OSError:
            continue
        if int(stat.rpartition(")")[2].split()[1]) == parent:
            found[int(entry.name)] = int(statm.split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return found


def log_events(log: Path) -> list[dict[str, Any]]:
    """Every JSON line of a server's log (gunicorn's own plain lines are skipped)."""
    events = []
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("{"):
            with suppress(ValueError):
                events.append(json.loads(line))
    return events
