"""The real worker and a fake backend that behaves as Defra's does today: a priced quote is one
PATCH within the backend's schema; a quote with no levy is no PATCH, a failed job and one email;
killed around the PATCH and restarted (even on another bundle), the stored body is sent again
byte for byte, so the result is never lost and the applicant never gets a second email."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import geopandas as gpd
import pytest
from shapely.geometry import box

from nrf.domain.result_port import BODY_FIELD
from nrf.entrypoints.reference_bundle import bundled_synthetic
from support.backend_schema import assert_valid_patch
from support.fake_backend import FakeBackend, running_fake_backend
from support.fake_notify import FakeNotifyServer, running_fake_notify
from support.moto_server import MotoServer, free_port
from support.worker_jobs import (
    SITE_RING,
    TEMPLATES,
    job_body,
    make_queues,
    queue_counts,
    status_of,
    worker_env,
)
from support.worker_process import WorkerProcess

# Every worker here prices on this day (NRF_TEST_QUOTE_DATE), whatever today is: a year after
# the bundled EDP's start (2026), so the levy is indexed and the provisional amount differs.
QUOTE_DAY = "2027-06-01"
# The bundled synthetic bundle's one EDP (src/nrf/bundles/synthetic_norfolk.py), id 1.
NORFOLK_EDP = (
    "Broads SAC, Broadland Ramsar and River Wensum SAC Environmental Delivery Plan "
    "addressing nutrient pollution (2026 to 2036)"
)
SECOND_EDP = "Made-up second EDP"
PLANNER = "planner@example.gov.uk"
SUPPORT = "support@example.gov.uk"
# Its made-up excluded area is a 600 m blob around (627 270, 320 390): this 40 m square is
# well inside it, and inside the Broads catchment.
EXCLUDED_RING = [
    [627250.0, 320370.0],
    [627290.0, 320370.0],
    [627290.0, 320410.0],
    [627250.0, 320410.0],
    [627250.0, 320370.0],
]
WEST_RING = [[x - 200.0, y] for x, y in SITE_RING]  # the sample site 200 m west: EDP 1 only

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


def quote_message(
    reference: str,
    ring: list[list[float]] = SITE_RING,
    *,
    labels: Sequence[str] = (NORFOLK_EDP,),
    units: int = 25,
) -> str:
    """Defra's message as its backend sends it: the boundary check's EDPs ride along."""
    edps = [{"label": label, "overlapPercentage": 100.0, "catchments": []} for label in labels]
    return json.dumps(
        {
            "reference": reference,
            "boundaryGeojson": {
                "boundaryGeometryOriginal": {"type": "Polygon", "coordinates": [ring]},
                "intersectingEdps": edps,
                "intersectingExcludedAreas": [],
            },
            "developmentTypes": ["housing"],
            "housingUnits": units,
            "email": PLANNER,
            "traceId": f"trace-{reference}",
        }
    )


def two_edp_bundle_without_charges(folder: Path) -> Path:
    """The bundled bundle plus a second EDP east of x 582 820 (through the sample site), and
    the Norfolk EDP's one charge moved to 2020, so no charge covers today."""
    path = folder / "two-edps-no-charge.gpkg"
    shutil.copy(bundled_synthetic(), path)
    second = gpd.GeoDataFrame(
        {"edp_id": [2], "edp_name": [SECOND_EDP]},
        geometry=[box(582820.0, 328000.0, 583500.0, 328500.0)],
        crs=27700,
    )
    second.to_file(path, layer="edp_boundaries", mode="a")
    with sqlite3.connect(path) as db:
        db.execute(
            "UPDATE levy_charges SET edp_start_date = '2020-01-01', "
            "charge_valid_from = '2020-01-01', charge_valid_to = '2020-12-31'"
        )
    return path


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
    def __init__(
        self, aws: MotoServer, backend: FakeBackend, notify: FakeNotifyServer, tmp_path: Path
    ) -> None:
        self.sqs = aws.client("sqs")
        self.queues = make_queues(self.sqs, "quotes", max_receive_count=5)
        self.results = tmp_path / "results"
        self.aws, self.backend, self.notify = aws, backend, notify
        self.workers: list[WorkerProcess] = []

    def env(self, **env_overrides: str) -> dict[str, str]:
        return worker_env(
            self.aws.endpoint_url,
            self.queues.name,
            self.results,
            free_port(),
            self.notify,
            GOVUK_NOTIFY_SUPPORT_EMAIL=SUPPORT,
            BACKEND_BASE_URL=self.backend.base_url,
            BACKEND_API_KEY=self.backend.api_key,
            BACKEND_ALLOW_LOOPBACK_HTTP="true",  # the fake backend speaks plain HTTP
            NRF_TEST_QUOTE_DATE=QUOTE_DAY,
            BACKEND_CALLBACK_TIMEOUT="30",
            SQS_VISIBILITY_TIMEOUT="3",
            VISIBILITY_HEARTBEAT_SECONDS="1",
            VISIBILITY_EXTENSION_SECONDS="3",
            **env_overrides,
        )

    def start(self, **env_overrides: str) -> WorkerProcess:
        worker = WorkerProcess(self.env(**env_overrides)).start()
        self.workers.append(worker)
        return worker

    def send(self, body: str) -> None:
        self.sqs.send_message(QueueUrl=self.queues.url, MessageBody=body)

    def close(self) -> None:
        for worker in self.workers:
            worker.close()


@pytest.fixture
def notify() -> Iterator[FakeNotifyServer]:
    with running_fake_notify() as server:
        yield server


@pytest.fixture
def setup(
    aws: MotoServer, backend: FakeBackend, notify: FakeNotifyServer, tmp_path: Path
) -> Iterator[Setup]:
    s = Setup(aws, backend, notify, tmp_path)
    yield s
    s.close()


def emails(notify: FakeNotifyServer, reference: str) -> list[tuple[str, str]]:
    """(recipient, template kind) of every email sent for ``reference``, in order."""
    kinds = {v: k for k, v in TEMPLATES.items()}
    return [
        (e["email_address"], kinds[e["template_id"]])
        for e in notify.emails
        if e["reference"] == reference
    ]


def expected_levy(units: int) -> tuple[float, float]:
    """(provisional, indexed) levy of the Norfolk EDP's charge on QUOTE_DAY, 2027-06-01.

    The bundled schedule: £2,675.0000 a home from 2026-01-01 (the EDP's start) to 2027-12-31;
    index factors 2026 1.0000, 2027 1.0300. Provisional 2,675.00 x units; indexed 2,675 x 1.03
    = 2,755.25 a home (exact, so per unit or the total once give the same), x units.
    """
    return round(2675.00 * units, 2), round(2755.25 * units, 2)


@pytest.mark.parametrize("reference", ["NRL-000101", "NRF-000101"])
def test_a_quote_is_reported_once_within_the_backends_schema(
    setup: Setup, backend: FakeBackend, reference: str
) -> None:
    worker = setup.start()
    # The pinned quote day is a test setting, and the worker says so out loud.
    worker.wait_for("quote_date_pinned", timeout=90, quote_date=QUOTE_DAY)
    setup.send(job_body("own-job-1"))  # our own schema: no Defra quote, nothing to report
    setup.send(quote_message(reference))
    entry = wait_for(lambda: (e := backend_entry(setup.results, reference)) and e["sent"] and e)
    assert entry["pending"] is False
    [received] = backend.patches
    headers = {k.lower(): v for k, v in received.headers.items()}
    assert headers["x-cdp-request-id"] == f"trace-{reference}"
    assert_valid_patch(received.body)
    # Worked by hand from the bundle rows the site lies in (tests/support/worker_sample_site.py:
    # land use N 0.05, P -0.01; 25 dwellings, under 50, so no SuDS). Wastewater at the fallback
    # works, run at 90 %: 25 x 2.4 x 120 x 365.25 = 2 629 800 l/yr;
    #   N 2 629 800 x 25e-6 x 0.9 = 59.1705;  P 2 629 800 x 4.5e-6 x 0.9 = 10.65069.
    # Plus the 20 % buffer: N (0.05 + 59.1705) x 1.2 = 71.0646 -> 71.06 (band 4, over 5);
    #                       P (-0.01 + 10.65069) x 1.2 = 12.768828 -> 12.77 (band 4).
    # All of the site is in the River Wensum SAC catchment (id 1) and the Norfolk EDP (id 1).
    # 25 homes: provisional 25 x £2,675.00 = £66,875.00, sent as amountExcludingVat (the
    # backend prints it in its email) and baseAmount; indexed 25 x £2,755.25 = £68,881.25.
    provisional, indexed = expected_levy(25)
    assert (provisional, indexed) == (66875.0, 68881.25)
    assert received.body == {
        "edps": [
            {
                "edpId": 1,
                "edpName": NORFOLK_EDP,
                "edpType": "NUTRIENT",
                "impact": {
                    "nitrogenTotal": {
                        "amount": 71.06,
                        "unit": "mg/I TP",
                        "band": {"min": 4, "max": 4},
                    },
                    "phosphorusTotal": {
                        "amount": 12.77,
                        "unit": "mg/I TP",
                        "band": {"min": 4, "max": 4},
                    },
                },
                "catchments": [
                    {
                        "label": "River Wensum SAC",
                        "catchmentId": "1",
                        "catchmentOverlapPercentage": 100.0,
                    }
                ],
                "levyGbp": {
                    "amountExcludingVat": provisional,
                    "amountInflationAdjusted": indexed,
                    "baseAmount": provisional,
                    "modelVersion": 1,
                },
            }
        ]
    }
    wait_for(lambda: queue_counts(setup.sqs, setup.queues.url) == (0, 0))
    assert (setup.results / "own-job-1" / "status.json").exists()
    assert [p.reference for p in backend.patches] == [reference]


def assert_refused(setup: Setup, reference: str, code: str) -> None:
    """Failed with ``code`` on its first receive, no PATCH, the requester and support told once."""
    status = wait_for(
        lambda: (s := status_of_or_none(setup.results, reference)) and s["status"] == "failed" and s
    )
    assert status["error_codes"] == [code], status
    assert not [n for n in status["notifications"] if n["kind"] == "backend_result"]
    told = wait_for(
        lambda: len(emails(setup.notify, reference)) >= 3 and emails(setup.notify, reference)
    )
    assert sorted(told) == sorted(
        [(PLANNER, "STARTED"), (PLANNER, "FAILED"), (SUPPORT, "FAILED")]
    ), told


def status_of_or_none(results: Path, reference: str) -> dict[str, Any] | None:
    try:
        return status_of(results, reference)
    except (FileNotFoundError, ValueError):
        return None


def test_quotes_without_a_levy_send_no_patch_and_fail_at_once(
    setup: Setup, backend: FakeBackend, tmp_path: Path
) -> None:
    setup.start()
    cases = {
        "NRL-000301": (quote_message("NRL-000301", EXCLUDED_RING), "excluded_area"),
        "NRL-000302": (quote_message("NRL-000302", labels=["Suffolk EDP"]), "edp_unknown"),
        "NRL-000303": (quote_message("NRL-000303", units=0), "no_housing_units"),
        # (400 000, 200 000) lies outside every layer of the Norfolk bundle: out of scope.
        "NRL-000304": (
            quote_message("NRL-000304", AWAY_RING),
            "outside_catchments_package_treatment_plant",
        ),
    }
    for body, _ in cases.values():
        setup.send(body)
    for reference, (_, code) in cases.items():
        assert_refused(setup, reference, code)
    # Each was received once and deleted: nothing waits, nothing was dead-lettered.
    wait_for(lambda: queue_counts(setup.sqs, setup.queues.url) == (0, 0))
    assert queue_counts(setup.sqs, setup.queues.dlq_url) == (0, 0)
    assert backend.attempts == 0


def test_two_edps_and_no_charge_send_no_patch_either(
    setup: Setup, backend: FakeBackend, tmp_path: Path
) -> None:
    bundle = two_edp_bundle_without_charges(tmp_path)
    setup.start(NRF_REFERENCE_DATA=str(bundle))
    # The sample site straddles x 582 820: in both EDPs, and the message names both.
    setup.send(quote_message("NRL-000401", labels=[NORFOLK_EDP, SECOND_EDP]))
    # 200 m west it is in the Norfolk EDP only, whose one charge ended in 2020.
    setup.send(quote_message("NRL-000402", WEST_RING))
    assert_refused(setup, "NRL-000401", "multiple_edps")
    assert_refused(setup, "NRL-000402", "no_charge_for_date")
    wait_for(lambda: queue_counts(setup.sqs, setup.queues.url) == (0, 0))
    assert backend.attempts == 0

    # The bundle is updated (the bundled one has the charge); support asks for a rerun.
    assert setup.workers[0].stop() == 0
    rerun = subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", "dlq", "--rerun", "NRL-000402"],
        env=setup.env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (rerun.returncode, rerun.stdout) == (0, "NRL-000402: requeued\n"), rerun.stderr
    setup.start()
    entry = wait_for(lambda: (e := backend_entry(setup.results, "NRL-000402")) and e["sent"] and e)
    assert entry["pending"] is False
    [received] = backend.patches
    assert_valid_patch(received.body)
    provisional, indexed = expected_levy(25)
    levy = received.body["edps"][0]["levyGbp"]
    assert (levy["amountExcludingVat"], levy["amountInflationAdjusted"]) == (provisional, indexed)
    assert status_of(setup.results, "NRL-000402")["status"] == "succeeded"


def bundle_with_another_charge(folder: Path) -> Path:
    """The bundled bundle with the Norfolk charge raised to £3,000.0000: a body made again
    from it would differ from the one stored, in every levy field."""
    path = folder / "another-charge.gpkg"
    shutil.copy(bundled_synthetic(), path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE levy_charges SET base_charge_per_unit = '3000.0000'")
    return path


def stored_body(results: Path, reference: str) -> bytes:
    """The PATCH body stored with the job before its first attempt, as text bytes."""
    entry = backend_entry(results, reference)
    assert entry is not None
    details = dict(entry["details"])
    return str(details[BODY_FIELD]).encode()


@pytest.mark.parametrize("window", ["before", "during", "after"])
def test_killed_around_the_patch_the_stored_body_is_resent_and_no_second_email(
    setup: Setup, backend: FakeBackend, tmp_path: Path, window: str
) -> None:
    reference = {"before": "NRF-000201", "during": "NRF-000202", "after": "NRF-000203"}[window]
    # The quote as the front end made it, its placeholder row named as the check spelled the
    # EDP (here in lower case): the PATCH must claim it by exactly that text.
    label = NORFOLK_EDP.lower()
    backend.create_quote(reference, [label])
    if window != "after":
        backend.hold_patches(before_reading=window == "before")
    first = setup.start()
    setup.send(quote_message(reference, labels=[label]))
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
    stored = stored_body(setup.results, reference)

    # Restarted on a bundle whose charge is £3,000: reassessing would change every figure.
    setup.start(NRF_REFERENCE_DATA=str(bundle_with_another_charge(tmp_path)))
    entry = wait_for(lambda: (e := backend_entry(setup.results, reference)) and e["sent"] and e)
    assert entry["pending"] is False
    wait_for(lambda: queue_counts(setup.sqs, setup.queues.url) == (0, 0))
    # Not lost; every PATCH that reached the backend is the stored body, byte for byte (the
    # first receive's figures: 25 x £2,675.00 provisional, not £3,000).
    assert backend.patches and {p.raw for p in backend.patches} == {stored}
    assert json.loads(stored)["edps"][0]["levyGbp"]["amountExcludingVat"] == 66875.0
    assert len(backend.patches) <= 2
    # The placeholder was claimed (no second row), and the applicant had one email.
    assert [name for name, _ in backend.rows(reference)] == [label]
    assert [e.reference for e in backend.emails] == [reference]
    assert backend.gets == []  # nobody asked the backend's GET, which cannot tell
