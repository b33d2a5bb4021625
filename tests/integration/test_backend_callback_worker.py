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
from support.worker_sample_site import BUNDLE_NAME

AWAY_RING = [
    [400000.0, 200000.0],
    [400100.0, 200000.0],
    [400100.0, 200100.0],
    [400000.0, 200100.0],
    [400000.0, 200000.0],
]


@pytest.fixture
def backend() -> Iterator[FakeBackend]:
    with running_fake_backend() as server:
        yield server


def quote_message(reference: str, ring: list[list[float]] = SITE_RING) -> str:
    return json.dumps(
        {
            "reference": reference,
            "boundaryGeojson": {
                "boundaryGeometryOriginal": {"type": "Polygon", "coordinates": [ring]}
            },
            "developmentTypes": ["housing"],
            "housingUnits": 25,
            "traceId": f"trace-{reference}",
        }
    )


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
            self.aws.endpoint_url,
            self.queues.name,
            self.results,
            free_port(),
            BACKEND_BASE_URL=self.backend.base_url,
            BACKEND_API_KEY=self.backend.api_key,
            BACKEND_CALLBACK_TIMEOUT="30",
            SQS_VISIBILITY_TIMEOUT="3",
            VISIBILITY_HEARTBEAT_SECONDS="1",
            VISIBILITY_EXTENSION_SECONDS="3",
        )
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
    # Worked by hand from the bundle rows the site lies in (tests/support/worker_sample_site.py:
    # land use N 0.05, P -0.01; 25 dwellings, under 50, so no SuDS). Wastewater at the fallback
    # works, run at 90 %: 25 x 2.4 x 120 x 365.25 = 2 629 800 l/yr;
    #   N 2 629 800 x 25e-6 x 0.9 = 59.1705;  P 2 629 800 x 4.5e-6 x 0.9 = 10.65069.
    # Plus the 20 % buffer: N (0.05 + 59.1705) x 1.2 = 71.0646 -> 71.06;
    #                       P (-0.01 + 10.65069) x 1.2 = 12.768828 -> 12.77.
    # Levy, all in EDP 1: 71.06 x 3127.45 + 12.77 x 41850.2 = 222 236.597 + 534 427.054
    # = 756 663.651 -> 756 663.65; monitoring 5 % 37 833.1825 -> 37 833.18, maintenance 10 %
    # 75 666.365 -> 75 666.37 (half up), admin 3 % 22 699.9095 -> 22 699.91; mitigation the
    # rest: 756 663.65 - 37 833.18 - 75 666.37 - 22 699.91 = 620 464.19.
    assert received.body["edps"] == [
        {
            "edpId": "1",
            "edpName": "River Wensum SAC",
            "edpType": "NUTRIENT",
            "impact": {
                "nitrogenTotal": {"amount": 71.06, "unit": "kg/year"},
                "phosphorusTotal": {"amount": 12.77, "unit": "kg/year"},
            },
            "levyGbp": {
                "min": 756663.65,
                "max": 756663.65,
                "monitoring": 37833.18,
                "maintenance": 75666.37,
                "admin": 22699.91,
                "mitigation": 620464.19,
            },
        }
    ]
    # The bundle's own name, as its bundle_info table records it.
    assert received.body["provenance"]["bundleName"] == BUNDLE_NAME
    wait_for(lambda: queue_counts(setup.sqs, setup.queues.url) == (0, 0))
    assert (setup.results / "own-job-1" / "status.json").exists()
    assert [p.reference for p in backend.patches] == ["NRF-000101"]


def test_an_out_of_scope_quote_is_reported_too(setup: Setup, backend: FakeBackend) -> None:
    setup.start()
    setup.send(quote_message("NRF-000102", AWAY_RING))
    wait_for(lambda: (e := backend_entry(setup.results, "NRF-000102")) and e["sent"])
    [received] = backend.patches
    assert received.body["edps"] == []
    # (400 000, 200 000) lies outside every layer of the Norfolk bundle (their extents start
    # at x 578 000, y 276 600): no NN catchment, and the fallback package treatment plant.
    assert received.body["outOfScope"]["reasonCode"] == (
        "outside_catchments_package_treatment_plant"
    )


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
