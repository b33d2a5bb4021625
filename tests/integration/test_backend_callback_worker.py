"""The real worker reports to a fake backend; killed around the PATCH, none lost or doubled."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.fake_backend import FakeBackend, running_fake_backend
from support.moto_server import MotoServer, free_port
from support.worker_jobs import SITE_RING, job_body, make_queues, queue_counts, worker_env
from support.worker_process import WorkerProcess

AWAY_RING = [[400000.0, 200000.0], [400100.0, 200000.0], [400100.0, 200100.0],
             [400000.0, 200100.0], [400000.0, 200000.0]]  # fmt: skip


@pytest.fixture
def backend() -> Iterator[FakeBackend]:
    with running_fake_backend() as server:
        yield server


def quote_message(reference: str, ring: list[list[float]] = SITE_RING) -> str:
    return json.dumps({
        "reference": reference,
        "boundaryGeojson": {"boundaryGeometryOriginal": {"type": "Polygon",
                                                          "coordinates": [ring]}},
        "developmentTypes": ["housing"], "housingUnits": 25, "traceId": f"trace-{reference}",
    })  # fmt: skip


def backend_entry(results: Path, reference: str) -> dict[str, Any] | None:
    try:
        record = json.loads((results / reference / "status.json").read_text())
    except (FileNotFoundError, ValueError):
        return None
    entries = [n for n in record["notifications"] if n["kind"] == "backend_result"]
    return entries[0] if entries else None


def wait_for(check: Any, timeout: float = 90) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("condition not met in time")


class Setup:
    def __init__(self, aws: MotoServer, backend: FakeBackend, tmp_path: Path) -> None:
        self.sqs = aws.client("sqs")
        self.queues = make_queues(self.sqs, "quotes", max_receive_count=5)
        self.results = tmp_path / "results"
        self.aws, self.backend = aws, backend
        self.workers: list[WorkerProcess] = []

    def start(self) -> WorkerProcess:
        env = worker_env(
            self.aws.endpoint_url, self.queues.name, self.results, free_port(),
            BACKEND_BASE_URL=self.backend.base_url, BACKEND_API_KEY=self.backend.api_key,
            BACKEND_CALLBACK_TIMEOUT="30", SQS_VISIBILITY_TIMEOUT="3",
            VISIBILITY_HEARTBEAT_SECONDS="1", VISIBILITY_EXTENSION_SECONDS="3",
        )  # fmt: skip
        worker = WorkerProcess(env).start()
        self.workers.append(worker)
        return worker

    def send(self, body: str) -> None:
        self.sqs.send_message(QueueUrl=self.queues.url, MessageBody=body)

    def close(self) -> None:
        for worker in self.workers:
            worker.close()


@pytest.fixture
def setup(aws: MotoServer, backend: FakeBackend, tmp_path: Path) -> Iterator[Setup]:
    s = Setup(aws, backend, tmp_path)
    yield s
    s.close()


def test_a_quote_is_reported_once_with_its_edps(setup: Setup, backend: FakeBackend) -> None:
    setup.start()
    setup.send(job_body("own-job-1"))  # our own schema: no Defra quote, nothing to report
    setup.send(quote_message("NRF-000101"))
    entry = wait_for(lambda: (e := backend_entry(setup.results, "NRF-000101")) and e["sent"] and e)
    assert entry["pending"] is False
    [received] = backend.patches
    headers = {k.lower(): v for k, v in received.headers.items()}
    assert headers["x-cdp-request-id"] == "trace-NRF-000101"
    edps = received.body["edps"]
    assert edps and all(e["edpType"] == "NUTRIENT" for e in edps)
    assert received.body["provenance"]["bundleName"]
    wait_for(lambda: queue_counts(setup.sqs, setup.queues.url) == (0, 0))
    assert (setup.results / "own-job-1" / "status.json").exists()
    assert [p.reference for p in backend.patches] == ["NRF-000101"]


def test_an_out_of_scope_quote_is_reported_too(setup: Setup, backend: FakeBackend) -> None:
    setup.start()
    setup.send(quote_message("NRF-000102", AWAY_RING))
    wait_for(lambda: (e := backend_entry(setup.results, "NRF-000102")) and e["sent"])
    [received] = backend.patches
    assert received.body["edps"] == []
    assert received.body["outOfScope"]["reasonCode"]


@pytest.mark.parametrize("window", ["before", "during", "after"])
def test_killed_around_the_patch_the_result_arrives_exactly_once(
    setup: Setup, backend: FakeBackend, window: str
) -> None:
    reference = {"before": "NRF-000201", "during": "NRF-000202", "after": "NRF-000203"}[window]
    if window != "after":
        backend.hold_patches(before_reading=window == "before")
    first = setup.start()
    setup.send(quote_message(reference))
    if window == "before":
        wait_for(lambda: backend.attempts >= 1)  # the request is open, its body unread
    elif window == "during":
        backend.wait_for_patches(1)  # the backend has it; the worker has no answer yet
    else:
        assert backend.answered.wait(90)  # answered: the worker may not have recorded it
    os.killpg(first.process.pid, signal.SIGKILL)
    first.wait(30)
    # "before": the request is dropped unread, as if it never got through.
    backend.release(drop=window == "before")
    assert len(backend.patches) == (0 if window == "before" else 1)

    setup.start()  # the message comes back once its visibility (3 s) runs out
    entry = wait_for(lambda: (e := backend_entry(setup.results, reference)) and e["sent"] and e)
    assert entry["pending"] is False
    wait_for(lambda: queue_counts(setup.sqs, setup.queues.url) == (0, 0))
    # Not lost, and never twice.
    assert [p.reference for p in backend.patches] == [reference]
    assert reference in backend.quotes
    if window != "after":  # "after" may have been recorded before the kill: nothing to ask
        assert backend.gets == [reference]  # the rerun asked the backend before sending
