"""Issue 31's hostile clients against `nrf serve`, over real sockets: each refused before its
body is read, with a whole answer and its security headers, and each refusal logged.

A GET, HEAD or OPTIONS body was read whole before any check (thirty 50 MiB bodies took two
processes to 1,349 and 600 MB); a request with both Content-Length and Transfer-Encoding was
served and the bytes after its chunked body answered as a second request; a WebSocket
upgrade got an empty 500; refusals made before the app ran were not logged.
"""

from __future__ import annotations

import hashlib
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.api_inputs import SMALL_JSON
from support.api_server import KEY, Server, running_server, serve_env
from support.raw_http import (
    children_rss,
    log_events,
    raw,
    read_answer,
    rest_after_answer,
    send_all_but_the_last_byte,
)

PROBLEM = "application/problem+json"
MIB = 1024 * 1024
OTHER_KEY = "another-test-key-0123456789"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("refused")
    env = serve_env(folder / "results", NRF_API_BODY_TIMEOUT_SECONDS="1")
    with running_server(env, folder / "serve.log") as running:
        yield running


def refusals(log: Path, code: str) -> list[dict]:
    return [e for e in log_events(log) if e.get("event") == "request_refused" and e["code"] == code]


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads RSS from /proc")
def test_keyless_bodies_on_reads_are_refused_unread_and_cost_no_memory(api: Server) -> None:
    # 12 GETs, HEADs and OPTIONS, each with a 40 MiB body sent but for its last byte: read and
    # held before, they held 12 x 40 MiB = 480 MiB in the process at once. Refused at the
    # head now, the process holds what 12 refusals cost: far under 100 MB.
    before = sum(children_rss(api.pid).values())
    held: list[socket.socket | None] = []
    try:
        for method in ["GET", "HEAD", "OPTIONS"] * 4:
            head = f"{method} /health HTTP/1.1\r\nHost: x\r\nContent-Length: {40 * MIB}\r\n\r\n"
            held.append(send_all_but_the_last_byte(api.port, head.encode(), 40 * MIB))
        during = sum(children_rss(api.pid).values())
    finally:
        for sock in held:
            if sock is not None:
                sock.close()
    assert during - before < 100 * MIB, (before // MIB, during // MIB)
    assert held == [None] * 12  # each connection closed by the server, its body unread
    request = b"GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n"
    status, headers, body = raw(api.port, request)
    assert (status, headers["content-type"], json.loads(body)["code"]) == (
        400,
        PROBLEM,
        "body_not_allowed",
    )
    assert api.request("GET", "/health").status == 200


def test_a_keyless_upload_still_being_sent_is_refused_and_closed(api: Server) -> None:
    # The 401 comes before the body is read; a client that goes on sending had the
    # connection hang for ever (hypercorn's body queue filled): now it is closed.
    head = "POST /v1/quotes HTTP/1.1\r\nHost: x\r\nContent-Length: 41943040\r\n\r\n"
    assert send_all_but_the_last_byte(api.port, head.encode(), 40 * MIB, timeout=20) is None


def test_ambiguous_framing_is_400_and_the_smuggled_request_is_never_served(api: Server) -> None:
    smuggled = b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n"
    attack = (
        b"POST /v1/quotes HTTP/1.1\r\nHost: x\r\nx-api-key: " + KEY.encode() + b"\r\n"
        b"Content-Type: application/geo+json\r\nContent-Length: 5\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled
    )
    with socket.create_connection(("127.0.0.1", api.port), timeout=10) as sock:
        sock.sendall(attack)
        status, headers, body = read_answer(sock)
        rest = rest_after_answer(sock)
    assert (status, json.loads(body)["code"]) == (400, "ambiguous_framing")
    assert headers["connection"] == "close"
    assert rest == b""  # closed: no second answer, the smuggled GET was never read


def test_a_websocket_upgrade_is_a_400_problem_with_headers_not_an_empty_500(api: Server) -> None:
    upgrade = (
        b"GET /health HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    broken = b"GET /health HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
    for request in (upgrade, broken):
        status, headers, body = raw(api.port, request)
        assert (status, headers["content-type"]) == (400, PROBLEM), body
        assert json.loads(body)["code"] == "websocket_not_supported"
        assert headers["cache-control"] == "no-store"


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
        b"POST /v1/quotes HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n",
        b"GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx",
    ],
    ids=["health", "404", "form", "401", "malformed", "refused-body"],
)
def test_every_answer_carries_the_security_headers(api: Server, request_bytes: bytes) -> None:
    _, headers, _ = raw(api.port, request_bytes)
    assert headers["cache-control"] == "no-store"
    assert headers["strict-transport-security"] == "max-age=31536000; includeSubDomains"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["x-content-type-options"] == "nosniff"


def test_refusals_before_the_app_are_logged_without_the_key(api: Server) -> None:
    wrong = "w" * 24 + "-not-a-key"
    for _ in range(20):
        answer = api.post("/v1/quotes", SMALL_JSON.read_bytes(), "application/geo+json", key=wrong)
        assert answer.status == 401
    big = f"POST /v1/quotes HTTP/1.1\r\nHost: x\r\nx-api-key: {KEY}\r\nContent-Length: {10**9}"
    assert raw(api.port, (big + "\r\n\r\n").encode())[0] == 413
    assert raw(api.port, b"GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n")[0] == 400
    time.sleep(0.5)  # let the server's stderr reach the log file
    wrong_keys = [e for e in refusals(api.log, "unauthorized") if e.get("key_sha256")]
    assert len(wrong_keys) == 20
    assert {e["key_sha256"] for e in wrong_keys} == {
        hashlib.sha256(wrong.encode()).hexdigest()[:12]
    }
    assert all(e["status"] == 401 and e["client"] == "127.0.0.1" for e in wrong_keys)
    assert all(e["method"] == "POST" and e["path"] == "/v1/quotes" for e in wrong_keys)
    assert refusals(api.log, "body_too_large")[-1]["status"] == 413
    assert refusals(api.log, "bad_request")[-1]["client"] == "127.0.0.1"
    text = api.log.read_text()
    assert wrong not in text and KEY not in text


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Rates so low that no token comes back while a test runs (one per 100 s), clients told
    apart by X-Forwarded-For as behind the load balancer, and a 1 s body deadline."""
    folder = tmp_path_factory.mktemp("limited")
    env = serve_env(
        folder / "results",
        NRF_API_BODY_TIMEOUT_SECONDS="1",
        NRF_API_RATE_PER_CLIENT="0.01",
        NRF_API_BURST_PER_CLIENT="5",
        NRF_API_RATE_PER_KEY="0.01",
        NRF_API_BURST_PER_KEY="3",
        NRF_API_TRUST_FORWARDED_FOR="true",
        NRF_API_KEYS=f"{KEY},{OTHER_KEY}",
    )
    with running_server(env, folder / "serve.log") as running:
        yield running


def test_a_client_or_key_past_its_rate_is_429_with_retry_after_and_health_is_exempt(
    limited: Server,
) -> None:
    def get(path: str, client: str, key: str | None = None) -> tuple[int, dict[str, str]]:
        headers = {"X-Forwarded-For": f"6.6.6.6, {client}"}  # the last is the balancer's
        if key:
            headers["x-api-key"] = key
        answer = limited.request("GET", path, headers=headers)
        return answer.status, dict(answer.headers)

    # One client: a burst of 5, then 429 (a token per 100 s: Retry-After at most 100 s).
    assert [get("/openapi.json", "198.51.100.1")[0] for _ in range(5)] == [200] * 5
    status, headers = get("/openapi.json", "198.51.100.1")
    assert status == 429 and 1 <= int(headers["retry-after"]) <= 100
    assert headers["content-type"] == PROBLEM and headers["cache-control"] == "no-store"
    # A wrong key from it is 429 too, before the key is looked at: floods cost a refusal.
    assert get("/v1/jobs/x", "198.51.100.1", key="w" * 24)[0] == 429
    # The probes are never limited.
    assert [get("/health", "198.51.100.1")[0] for _ in range(20)] == [200] * 20
    assert get("/ready", "198.51.100.1")[0] == 200
    # Another client is not held back by the first.
    assert get("/openapi.json", "198.51.100.2")[0] == 200
    # One key from four clients: its burst of 3, then 429 for the key.
    found = [get("/v1/jobs/nothing-here", f"203.0.113.{n}", key=KEY)[0] for n in range(4)]
    assert found == [404, 404, 404, 429]
    time.sleep(0.5)
    limited_lines = refusals(limited.log, "rate_limited")
    assert len(limited_lines) == 3 and all(e["retry_after"] for e in limited_lines)


def test_a_body_past_its_deadline_is_logged(limited: Server) -> None:
    slow = "POST /v1/quotes HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n"
    slow += f"x-api-key: {OTHER_KEY}\r\nX-Forwarded-For: 192.0.2.77\r\n\r\nab"
    assert raw(limited.port, slow.encode())[0] == 408  # NRF_API_BODY_TIMEOUT_SECONDS=1
    time.sleep(0.5)
    assert refusals(limited.log, "body_timeout")[-1]["path"] == "/v1/quotes"
