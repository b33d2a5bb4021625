"""`nrf serve` (gunicorn) on a free loopback port, and a small HTTP client for it."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from attrs import frozen

from support.moto_server import free_port

KEY = "test-key-0123456789abcdef"


@frozen
class Answer:
    status: int
    headers: Mapping[str, str]  # lower-case names
    body: bytes

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip()

    def json(self) -> Any:
        return json.loads(self.body)


@frozen
class Server:
    base: str
    port: int
    log: Path
    pid: int = 0  # the server's main process (gunicorn's arbiter)
    host: str = "127.0.0.1"  # the loopback address it listens on ("::1" for IPv6)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 30,
    ) -> Answer:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            connection.request(method, path, body=body, headers=dict(headers or {}))
            response = connection.getresponse()
            data = response.read()
            found = {k.lower(): v for k, v in response.getheaders()}
            return Answer(response.status, found, data)
        finally:
            connection.close()

    def post(
        self,
        path: str,
        body: bytes,
        content_type: str,
        key: str | None = KEY,
        accept: str | None = None,
    ) -> Answer:
        headers = {"Content-Type": content_type}
        if key is not None:
            headers["x-api-key"] = key
        if accept is not None:
            headers["Accept"] = accept
        return self.request("POST", path, body, headers)


def multipart(
    files: Mapping[str, tuple[str, bytes]], fields: Mapping[str, str]
) -> tuple[bytes, str]:
    """A multipart/form-data body and its Content-Type, as a browser form sends it."""
    boundary = uuid.uuid4().hex
    parts: list[bytes] = []
    for name, value in fields.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
            f"{value}\r\n".encode()
        )
    for name, (filename, data) in files.items():
        head = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
            f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'
        )
        parts.append(head.encode() + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def serve_env(results: Path, **overrides: str) -> dict[str, str]:
    """A clean environment for `nrf serve`: one worker, local results, test key, the bundled
    synthetic data allowed (``NRF_ALLOW_SYNTHETIC_DATA=""`` to refuse it), and no rate limits
    (every test client is 127.0.0.1; the tests of the limits set their own)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "NRF_", "GOVUK_"))}
    env.update(
        {
            "NRF_ALLOW_SYNTHETIC_DATA": "true",
            "NRF_API_KEYS": KEY,
            "NRF_API_WORKERS": "1",
            "NRF_API_THREADS": "4",
            "NRF_API_RATE_PER_CLIENT": "0",
            "NRF_API_RATE_PER_KEY": "0",
            "NRF_RESULTS_DIR": str(results),
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(overrides)
    return {k: v for k, v in env.items() if v != ""}


@contextmanager
def running_server(
    env: Mapping[str, str], log: Path, timeout: float = 60, host: str = "127.0.0.1"
) -> Iterator[Server]:
    """Start `nrf serve` on ``host``, wait for /health, yield it; SIGTERM (then SIGKILL) at the
    end."""
    port = free_port()
    shown = f"[{host}]" if ":" in host else host
    argv = [sys.executable, "-m", "nrf.entrypoints.cli", "serve", "--bind", f"{shown}:{port}"]
    with log.open("wb") as output:
        process = subprocess.Popen(argv, env=dict(env), stdout=output, stderr=subprocess.STDOUT)
    server = Server(base=f"http://{shown}:{port}", port=port, log=log, pid=process.pid, host=host)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if server.request("GET", "/health", timeout=2).status == 200:
                    break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"nrf serve did not start: {log.read_text()[-3000:]}")
            time.sleep(0.1)
        yield server
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
