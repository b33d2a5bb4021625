"""The hostile clients of issue 21, each bounded, and the worker's health server to aim them at.

Shared by tests/integration/test_hostile_clients.py (does /health answer while each runs?) and
benchmarks/health_under_attack.py (how fast does it answer?), so both run the same attacks.
Every attack is a fixed number of loopback connections, open for as long as its ``with``
block runs and closed after it.
"""

from __future__ import annotations

import multiprocessing
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from pathlib import Path

from nrf.adapters.heartbeat.shared_memory_heartbeat_store import SharedMemoryHeartbeatStore
from nrf.domain.health import WorkerStatus
from nrf.entrypoints.health_app import gunicorn_command
from support.moto_server import free_port

PARTIAL = b"GET /health HTTP/1.1\r\nHost: x\r\n"
FORM_HEAD = (
    b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
    b"Content-Length: 1000000\r\n\r\n--b\r\n"
)


@contextmanager
def connections(port: int, count: int, first: bytes = b"") -> Iterator[list[socket.socket]]:
    """``count`` loopback connections that each sent ``first``; all closed afterwards."""
    opened: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            if first:
                sock.sendall(first)
            opened.append(sock)
        yield opened
    finally:
        for sock in opened:
            sock.close()


@contextmanager
def trickling(
    attackers: list[socket.socket], every: float, data: Callable[[int], bytes], rounds: int
) -> Iterator[None]:
    """Each attacker sends ``data(n)`` every ``every`` s, ``rounds`` times at most."""
    stop = threading.Event()

    def send() -> None:
        for n in range(rounds):
            if stop.wait(every):
                return
            for sock in attackers:
                with suppress(OSError):  # already closed by the server
                    sock.sendall(data(n))

    sender = threading.Thread(target=send)
    sender.start()
    try:
        yield
    finally:
        stop.set()
        sender.join()


@contextmanager
def partial_headers(port: int) -> Iterator[list[socket.socket]]:
    """12 connections that send a request line and one header, then nothing (137 s held)."""
    with connections(port, 12, PARTIAL) as attackers:
        yield attackers


def _slow_header(n: int) -> bytes:
    return f"X-Slow-{n}: y\r\n".encode()


@contextmanager
def trickled_headers(port: int) -> Iterator[list[socket.socket]]:
    """10 connections adding a header every 4 s, for at most 24 s."""
    with (
        connections(port, 10, PARTIAL) as attackers,
        trickling(attackers, 4, _slow_header, rounds=6),
    ):
        yield attackers


@contextmanager
def idle_connections(port: int) -> Iterator[list[socket.socket]]:
    """400 connections that send nothing (83 s held)."""
    with connections(port, 400) as attackers:
        yield attackers


@contextmanager
def trickled_form_uploads(port: int) -> Iterator[list[socket.socket]]:
    """16 keyless uploads to the public form, a byte a second (the API only)."""
    with (
        connections(port, 16, FORM_HEAD) as attackers,
        trickling(attackers, 1, lambda _: b"x", rounds=10_000),
    ):
        yield attackers


Attack = Callable[[int], AbstractContextManager[list[socket.socket]]]
# name -> (the attack, the servers it is aimed at)
ATTACKS: dict[str, tuple[Attack, tuple[str, ...]]] = {
    "12 partial headers": (partial_headers, ("api", "health")),
    "10 trickling headers": (trickled_headers, ("api", "health")),
    "400 idle": (idle_connections, ("api", "health")),
    "16 trickling form uploads": (trickled_form_uploads, ("api",)),
}


def _beat(store: SharedMemoryHeartbeatStore) -> None:
    store.set_status(WorkerStatus.RUNNING)
    store.set_ready(bundle_loaded=True, queue_reachable=True)
    while True:
        store.beat(time.time())
        time.sleep(0.2)


@contextmanager
def running_health_server(folder: Path, store: SharedMemoryHeartbeatStore) -> Iterator[int]:
    """The worker's health server as the supervisor starts it, over a live heartbeat in
    ``store`` (the caller's, as the supervisor owns its own): its port."""
    beater = multiprocessing.get_context("fork").Process(target=_beat, args=(store,))
    beater.start()
    port = free_port()
    log = folder / "health.log"
    with log.open("wb") as output:
        argv = gunicorn_command(f"127.0.0.1:{port}", store.name)
        server = subprocess.Popen(argv, stdout=output, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                url = f"http://127.0.0.1:{port}/health"
                with urllib.request.urlopen(url, timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"health server did not start: {log.read_text()}")
            time.sleep(0.1)
        yield port
    finally:
        server.terminate()
        server.wait(15)
        beater.kill()
        beater.join()
