"""`nrf serve` at its limits: body size, sites, nesting, slow clients, no bundle, no keys."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.api_inputs import SMALL_JSON, collection, feature, square
from support.api_server import KEY, Server, running_server, serve_env

GEOJSON = "application/geo+json"
X, Y = 582700.0, 328100.0
SITE = {"id": "a", "name": "a", "dwelling_category": "housing", "source": "", "dwellings": 1}


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("limited")
    env = serve_env(
        folder / "results",
        NRF_MAX_FILE_BYTES="20000",
        NRF_MAX_SITES_PER_JOB="3",
        NRF_API_BODY_TIMEOUT_SECONDS="1",
    )
    with running_server(env, folder / "serve.log") as running:
        yield running


def problem(answer: object) -> tuple[int, str, str]:
    from support.api_server import Answer

    assert isinstance(answer, Answer)
    return answer.status, answer.content_type, answer.json()["code"]


def test_a_body_over_the_file_limit_is_refused_before_it_is_read(limited: Server) -> None:
    body = b" " * 20_001  # NRF_MAX_FILE_BYTES=20000
    answer = limited.post("/v1/quotes", body, GEOJSON)
    assert problem(answer) == (413, "application/problem+json", "body_too_large")
    just_under = SMALL_JSON.read_bytes()
    assert (
        len(just_under) < 20_000 and limited.post("/v1/quotes", just_under, GEOJSON).status == 200
    )


def test_more_sites_than_allowed_is_413(limited: Server) -> None:
    four = collection(*(feature(square(X + 60 * i, Y, 50), **SITE) for i in range(4)))
    assert problem(limited.post("/v1/quotes", four, GEOJSON))[::2] == (413, "too_many_features")
    three = collection(*(feature(square(X + 60 * i, Y, 50), **SITE) for i in range(3)))
    assert len(limited.post("/v1/quotes", three, GEOJSON).json()["sites"]) == 3


def test_json_nested_deeper_than_64_is_413(limited: Server) -> None:
    deep: object = 1
    for _ in range(70):
        deep = {"a": deep}
    body = collection(feature(square(X, Y, 50), **SITE, extra=deep))
    assert problem(limited.post("/v1/quotes", body, GEOJSON))[::2] == (413, "json_too_deep")
    shallow: object = 1
    for _ in range(50):
        shallow = {"a": shallow}
    body = collection(feature(square(X, Y, 50), **SITE, extra=shallow))
    assert limited.post("/v1/quotes", body, GEOJSON).status == 200


def test_a_client_that_trickles_its_body_is_cut_off_and_pins_nothing(limited: Server) -> None:
    with socket.create_connection(("127.0.0.1", limited.port), timeout=30) as slow:
        head = (
            f"POST /v1/quotes HTTP/1.1\r\nHost: x\r\nx-api-key: {KEY}\r\n"
            f"Content-Type: {GEOJSON}\r\nContent-Length: 5000\r\n\r\n"
        )
        slow.sendall(head.encode() + b'{"type": ')
        # Meanwhile the server still answers others (it has 4 threads; this holds at most one).
        assert limited.request("GET", "/ready").status == 200
        reply = b""
        while b"\r\n\r\n" not in reply or not reply.rstrip().endswith(b"}"):
            chunk = slow.recv(65536)
            if not chunk:
                break
            reply += chunk
    status_line, _, rest = reply.partition(b"\r\n")
    assert status_line.startswith(b"HTTP/1.1 408"), reply[:300]
    body = json.loads(rest.partition(b"\r\n\r\n")[2])
    assert body["code"] == "body_timeout"


def test_anonymous_mode_serves_without_a_key_and_each_worker_opens_the_bundle_once(
    tmp_path: Path,
) -> None:
    env = serve_env(
        tmp_path / "results", NRF_API_KEYS="", NRF_API_ALLOW_ANONYMOUS="true", NRF_API_WORKERS="2"
    )
    with running_server(env, tmp_path / "serve.log") as server:
        for _ in range(6):
            answer = server.post("/v1/quotes", SMALL_JSON.read_bytes(), GEOJSON, key=None)
            assert answer.status == 200
        assert 'name="api_key"' not in server.request("GET", "/").body.decode()
        # Both workers are up once /ready has answered from each; give the second a moment.
        deadline = time.monotonic() + 30
        while len(opened(server.log)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        served = {e["pid"] for e in events(server.log) if e.get("event") == "request"}
    # One open per worker process, however many requests each served.
    assert len(opened(server.log)) == 2 == len(set(opened(server.log)))
    assert served <= set(opened(server.log))


def events(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]


def opened(log: Path) -> list[int]:
    return [e["pid"] for e in events(log) if e.get("event") == "api_bundle_open"]


@pytest.mark.parametrize(
    ("overrides", "says"),
    [
        ({"NRF_API_KEYS": ""}, "NRF_API_KEYS is empty"),
        ({"NRF_API_KEYS": "short-key"}, "shorter than 16"),
        ({"NRF_API_ALLOW_ANONYMOUS": "maybe"}, "NRF_API_ALLOW_ANONYMOUS"),
        ({"NRF_MAX_FILE_BYTES": "0"}, "NRF_MAX_FILE_BYTES"),
    ],
)
def test_serve_refuses_to_start_on_bad_settings(
    tmp_path: Path, overrides: dict[str, str], says: str
) -> None:
    env = serve_env(tmp_path, **overrides)
    env = {k: v for k, v in env.items() if v} | {k: v for k, v in overrides.items() if v}
    if not overrides.get("NRF_API_KEYS", "x"):
        env.pop("NRF_API_KEYS", None)
    done = subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", "serve", "--bind", "127.0.0.1:1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and says in done.stderr
    assert "short-key" not in done.stderr


def test_a_chunked_body_is_read_and_still_limited(limited: Server) -> None:
    import http.client

    def send(body: bytes) -> tuple[int, dict]:
        connection = http.client.HTTPConnection("127.0.0.1", limited.port, timeout=30)
        headers = {"Content-Type": GEOJSON, "x-api-key": KEY, "Transfer-Encoding": "chunked"}
        chunks = (body[i : i + 1000] for i in range(0, len(body), 1000))
        connection.request("POST", "/v1/quotes", body=chunks, headers=headers, encode_chunked=True)
        response = connection.getresponse()
        answer = (response.status, json.loads(response.read()))
        connection.close()
        return answer

    status, doc = send(SMALL_JSON.read_bytes())
    assert status == 200 and len(doc["sites"]) == 1
    status, doc = send(b" " * 20_001)  # over NRF_MAX_FILE_BYTES=20000, with no length to check
    assert (status, doc["code"]) == (413, "body_too_large")


def test_a_body_of_exactly_the_limit_is_read_and_one_byte_more_is_not(limited: Server) -> None:
    site = SMALL_JSON.read_bytes().rstrip()
    exact = site + b" " * (20_000 - len(site))  # NRF_MAX_FILE_BYTES=20000: 20,000 bytes in all
    assert len(exact) == 20_000
    answer = limited.post("/v1/quotes", exact, GEOJSON)
    assert answer.status == 200 and len(answer.json()["sites"]) == 1
    assert problem(limited.post("/v1/quotes", exact + b" ", GEOJSON))[::2] == (
        413,
        "body_too_large",
    )


def test_a_chunked_body_over_the_limit_is_refused_before_it_ends(limited: Server) -> None:
    # 21 chunks of 1,000 bytes and never the last (empty) chunk: a server that read the body
    # whole before counting it would wait for the end and answer 408 after the 1 s deadline.
    head = (
        f"POST /v1/quotes HTTP/1.1\r\nHost: x\r\nx-api-key: {KEY}\r\n"
        f"Content-Type: {GEOJSON}\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", limited.port), timeout=10) as sock:
        sock.sendall(head.encode())
        for _ in range(21):
            sock.sendall(b"3e8\r\n" + b" " * 1000 + b"\r\n")
        reply = b""
        while b"}" not in reply:
            chunk = sock.recv(65536)
            if not chunk:
                break
            reply += chunk
        # The server has stopped reading: the connection ends after the answer.
        while sock.recv(65536):
            pass
    status_line, _, rest = reply.partition(b"\r\n")
    assert status_line.startswith(b"HTTP/1.1 413"), reply[:300]
    assert json.loads(rest.partition(b"\r\n\r\n")[2])["code"] == "body_too_large"
