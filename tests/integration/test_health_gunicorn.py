"""The health app under a real gunicorn, reading a real shared-memory store."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nrf.adapters.heartbeat.shared_memory_heartbeat_store import SharedMemoryHeartbeatStore
from nrf.domain.health import WorkerStatus
from nrf.entrypoints.health_app import gunicorn_command
from support.moto_server import free_port

HEARTBEAT_TIMEOUT = 5.0  # long enough that a loaded machine never ages a fresh beat past it
BEAT_INTERVAL = 0.1


def beat_forever(store: SharedMemoryHeartbeatStore) -> None:
    store.set_status(WorkerStatus.RUNNING)
    store.set_ready(bundle_loaded=True, queue_reachable=True)
    while True:
        store.beat(time.time())
        time.sleep(BEAT_INTERVAL)


# Long enough for any loaded machine to answer, far shorter than a server held up for good.
GIVE_UP_SECONDS = 15


def get(url: str) -> tuple[int, dict[str, Any], float]:
    started = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=GIVE_UP_SECONDS) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read()
    return status, json.loads(body), time.monotonic() - started


@pytest.fixture
def store() -> Iterator[SharedMemoryHeartbeatStore]:
    with SharedMemoryHeartbeatStore.create() as created:
        yield created


@pytest.fixture
def health_url(store: SharedMemoryHeartbeatStore, tmp_path: Path) -> Iterator[str]:
    port = free_port()
    argv = gunicorn_command(f"127.0.0.1:{port}", store.name, heartbeat_timeout=HEARTBEAT_TIMEOUT)
    log = tmp_path / "gunicorn.log"
    with log.open("wb") as output:
        server = subprocess.Popen(argv, stdout=output, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                get(f"{base}/health")
                break
            except OSError:  # refused while it starts, or a read timed out (URLError is one)
                if server.poll() is not None or time.monotonic() > deadline:
                    message = f"gunicorn did not start: {log.read_text()}"
                    raise RuntimeError(message) from None
                time.sleep(0.1)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_a_stopped_worker_turns_health_503_while_the_server_stays_responsive(
    store: SharedMemoryHeartbeatStore, health_url: str
) -> None:
    worker = multiprocessing.get_context("fork").Process(
        target=beat_forever, args=(store,), daemon=True
    )
    worker.start()
    assert worker.pid is not None
    try:
        deadline = time.monotonic() + 10
        while get(f"{health_url}/health")[0] != 200:
            assert time.monotonic() < deadline, "never became healthy"
            time.sleep(0.05)
        status, body, _ = get(f"{health_url}/ready")
        assert (status, body) == (200, {"status": "ready", "reason": "ready"})

        os.kill(worker.pid, signal.SIGSTOP)
        stopped_at = time.monotonic()
        answers = []
        while True:
            # The stopped worker cannot hold the health server up: every request is answered
            # (``get`` gives up after GIVE_UP_SECONDS, which fails the test).
            status, body, _ = get(f"{health_url}/health")
            answers.append(body)
            if status == 503:
                break
            # A bound on waiting, not a measurement.
            assert time.monotonic() - stopped_at < HEARTBEAT_TIMEOUT + 30, "still healthy"
            time.sleep(0.05)
        assert body["status"] == "unavailable"
        assert set(body) == {"status", "reason", "heartbeat_age_seconds", "job_in_progress"}
        # 503 once the heartbeat is HEARTBEAT_TIMEOUT old, and not before (ages to the ms).
        assert body["heartbeat_age_seconds"] >= HEARTBEAT_TIMEOUT
        assert all(b["heartbeat_age_seconds"] <= HEARTBEAT_TIMEOUT for b in answers[:-1])
        later = [get(f"{health_url}/health")[:2] for _ in range(5)]
        assert [s for s, _ in later] == [503] * 5
        ages = [b["heartbeat_age_seconds"] for _, b in later]
        assert ages == sorted(ages) and ages[0] >= body["heartbeat_age_seconds"], "read live"

        os.kill(worker.pid, signal.SIGCONT)
        deadline = time.monotonic() + 30
        while get(f"{health_url}/health")[0] != 200:
            assert time.monotonic() < deadline, "did not recover after SIGCONT"
            time.sleep(0.05)
    finally:
        os.kill(worker.pid, signal.SIGCONT)
        worker.terminate()
        worker.join(timeout=5)


def test_draining_makes_ready_503_but_not_health(
    store: SharedMemoryHeartbeatStore, health_url: str
) -> None:
    store.set_status(WorkerStatus.RUNNING)
    store.set_ready(bundle_loaded=True, queue_reachable=True)
    store.beat(time.time())
    store.set_draining(True)
    status, body, _ = get(f"{health_url}/ready")
    assert (status, body) == (503, {"status": "not_ready", "reason": "draining"})
    assert get(f"{health_url}/health")[0] == 200
