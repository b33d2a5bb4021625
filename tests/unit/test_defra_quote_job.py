"""A Defra quote through ProcessJob: a priced levy is one PATCH; no levy, a failed job at once."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from shapely.geometry import box
from test_process_job import FakeBoundarySource

from fakes import FakeClock, FakeNotifier, FakeResultStore
from nrf.domain.fleet import BundleStamp
from nrf.domain.jobs import JobRecord, JobStatus, NotificationKind, QueueMessage
from nrf.domain.model import BundleInfo, EdpPolygon
from nrf.domain.result_port import BODY_FIELD
from nrf.domain.results import AssessmentRun, LevyRefusal, OutOfScopeSite
from nrf.service_layer.job_outcome import JobOutcome
from support.backend_schema import assert_valid_patch
from support.defra_sites import (
    BROADS,
    IDENTITY,
    NORFOLK,
    PROVENANCE,
    norfolk_pricing,
    run_of,
    site,
)
from support.receives import Receives
from support.reference import InMemoryBoundaryData

SUPPORT = "support@example.gov.uk"
PLANNER = "planner@example.gov.uk"
EDP_LAYER = {1: "Norfolk EDP", 2: "Broads EDP"}


class FixedAssessment:
    """Stands in for AssessDevelopments: the run the test built by hand, whatever it is asked."""

    def __init__(self, run: AssessmentRun) -> None:
        self.run = run

    def __call__(self, developments: Sequence[Any], rules: Any, *more: Any) -> AssessmentRun:
        return self.run


def message(
    reference: str = "NRL-000123",
    labels: Sequence[str] = ("Norfolk EDP",),
    email: str | None = PLANNER,
) -> str:
    square = [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]
    wrapper = {
        "boundaryGeometryOriginal": {"type": "Polygon", "coordinates": [square]},
        "intersectingEdps": [{"label": label, "overlapPercentage": 100.0} for label in labels],
        "intersectingExcludedAreas": [],
    }
    body = {
        "reference": reference,
        "boundaryGeojson": wrapper,
        "housingUnits": 10,
        "traceId": f"trace-{reference}",
    }
    return json.dumps({**body, "email": email} if email else body)


def bundle(sha256: str = PROVENANCE.bundle_sha256) -> InMemoryBoundaryData:
    """The open bundle: its two EDPs, and its digest (by default the one the runs name)."""
    info = BundleInfo(name="b", version="1", created="", description="", sha256=sha256)
    edps = [EdpPolygon(box(0, 0, 1, 1), edp_id, name) for edp_id, name in EDP_LAYER.items()]
    return InMemoryBoundaryData(edps=edps, info=info)


class Job:
    """One receive of a quote message, claim to release, through the worker root's own wiring."""

    def __init__(
        self,
        run: AssessmentRun,
        store: FakeResultStore | None = None,
        notifier: FakeNotifier | None = None,
        sha256: str = PROVENANCE.bundle_sha256,
    ) -> None:
        self.store, self.notifier = store or FakeResultStore(), notifier or FakeNotifier()
        self.receive = Receives(
            repository=bundle(sha256),
            source=FakeBoundarySource(),
            render=lambda run, devs: {"result.json": b"{}"},
            store=self.store,
            notifier=self.notifier,
            clock=FakeClock(),
            assess=FixedAssessment(run),
            support_email=SUPPORT,
            # With a backend URL the worker reports results (the notifier is the fake here).
            backend_base_url="https://backend.example",
        )

    def __call__(self, body: str) -> JobOutcome:
        return self.receive(QueueMessage(message_id="m-1", receipt_handle="r-1", body=body))

    def sent(self, kind: NotificationKind) -> list[str]:
        return [n.recipient for n in self.notifier.sent if n.kind is kind]


@pytest.mark.parametrize("reference", ["NRL-000123", "NRF-000123"])
def test_a_priced_quote_is_reported_once_within_the_schema(reference: str) -> None:
    job = Job(run_of(site(edps=(NORFOLK,), pricing=norfolk_pricing())))
    # No email: the completed email's wording is not what this test is about.
    outcome = job(message(reference, email=None))
    assert (outcome.status, outcome.delete) == ("succeeded", True)
    [report] = [n for n in job.notifier.sent if n.kind is NotificationKind.BACKEND_RESULT]
    body = json.loads(report.personalisation[BODY_FIELD])
    assert_valid_patch(body)
    [entry] = body["edps"]
    # norfolk_pricing: 10 units x £2,675.00 = £26,750.00 in the EDP's own year.
    assert (entry["edpId"], entry["levyGbp"]["amountExcludingVat"]) == (1, 26750.0)
    assert job.sent(NotificationKind.QUOTE_REFUSED) == []


EXCLUDED = LevyRefusal("excluded_area", "The boundary meets 'Somewhere SSSI'.")
CASES = {
    "two EDPs": (
        run_of(
            site(
                edps=(NORFOLK, BROADS),
                refusal=LevyRefusal("multiple_edps", "The boundary meets two EDPs."),
            )
        ),
        ("Norfolk EDP",),
        "edp_mismatch",  # the message named one, the geometry found two
    ),
    "an excluded area": (run_of(site(refusal=EXCLUDED)), ("Norfolk EDP",), "excluded_area"),
    "an unknown EDP": (
        run_of(site(pricing=norfolk_pricing())),
        ("Suffolk EDP",),
        "edp_unknown",
    ),
    "no units": (
        run_of(site(refusal=LevyRefusal("no_housing_units", "No housing units."))),
        ("Norfolk EDP",),
        "no_housing_units",
    ),
    "no charge": (
        run_of(site(refusal=LevyRefusal("no_charge_for_date", "No charge covers the date."))),
        ("Norfolk EDP",),
        "no_charge_for_date",
    ),
    "out of scope": (
        run_of(out=(OutOfScopeSite(IDENTITY, "outside_nn_catchments", "In no NN catchment."),)),
        ("Norfolk EDP",),
        "outside_nn_catchments",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_no_levy_means_no_patch_and_a_failed_job_told_once(case: str) -> None:
    run, labels, code = CASES[case]
    job = Job(run)
    outcome = job(message(labels=labels))
    # Failed now and the message deleted: a retry would only say the same.
    assert (outcome.status, outcome.delete, outcome.error_codes) == ("failed", True, (code,))
    record = job.store.records["NRL-000123"]
    assert (record.status, record.error_codes) == (JobStatus.FAILED, (code,))
    assert job.sent(NotificationKind.BACKEND_RESULT) == []
    assert job.sent(NotificationKind.FAILED) == [PLANNER]
    assert job.sent(NotificationKind.QUOTE_REFUSED) == [SUPPORT]
    # The figures still computed are kept beside the record, and the message, for a rerun;
    # the record names the bundle that refused it.
    assert "result.json" in job.store.files["NRL-000123"]
    assert job.store.files["NRL-000123"]["message.json"] == message(labels=labels).encode()
    assert record.bundle == BundleStamp(
        name="synthetic-norfolk", version="2026.1", sha256="ab" * 32
    )
    # Met again (another receive), nothing more is sent.
    before = len(job.notifier.sent)
    assert job(message(labels=labels)).delete
    assert len(job.notifier.sent) == before


def test_the_requester_reads_why_in_plain_words() -> None:
    job = Job(run_of(site(refusal=EXCLUDED)))
    job(message())
    [failed] = [n for n in job.notifier.sent if n.kind is NotificationKind.FAILED]
    assert failed.personalisation["error_codes"] == "excluded_area"
    assert failed.personalisation["error_message"] == (
        "excluded_area: The boundary meets 'Somewhere SSSI'."
    )


def test_sent_again_under_the_same_bundle_the_refusal_stands() -> None:
    job = Job(run_of(site(refusal=EXCLUDED)))
    job(message())
    before = len(job.notifier.sent)
    again = job(message())
    assert (again.status, again.delete) == ("already_finished", True)
    assert len(job.notifier.sent) == before


def test_sent_again_after_a_bundle_update_it_is_assessed_afresh() -> None:
    refused = Job(run_of(site(refusal=LevyRefusal("no_charge_for_date", "No charge yet."))))
    # No email: the completed email's wording is not what this test is about.
    refused(message(email=None))
    # The new bundle (another digest) has a charge: the same message is now priced.
    updated = Job(
        run_of(site(pricing=norfolk_pricing())),
        store=refused.store,
        notifier=refused.notifier,
        sha256="cd" * 32,
    )
    outcome = updated(message(email=None))
    assert (outcome.status, outcome.delete) == ("succeeded", True)
    assert updated.store.records["NRL-000123"].status is JobStatus.SUCCEEDED
    [report] = updated.sent(NotificationKind.BACKEND_RESULT)
    assert report == "backend"  # one PATCH, to the backend


def test_a_bad_message_is_never_assessed_again_whatever_the_bundle() -> None:
    job = Job(run_of(site(pricing=norfolk_pricing())), sha256="cd" * 32)
    # Failed on its input: no bundle on the record, so a new bundle changes nothing.
    job.store.records["NRL-000123"] = JobRecord(
        job_id="NRL-000123", status=JobStatus.FAILED, error_codes=("invalid_field",)
    )
    assert job(message()).status == "already_finished"
    assert job.sent(NotificationKind.BACKEND_RESULT) == []


def test_refused_again_after_an_update_the_new_refusal_replaces_the_old() -> None:
    refused = Job(run_of(site(refusal=LevyRefusal("no_charge_for_date", "No charge yet."))))
    refused(message())
    still = Job(
        run_of(site(refusal=EXCLUDED)),
        store=refused.store,
        notifier=refused.notifier,
        sha256="cd" * 32,
    )
    assert still(message()).error_codes == ("excluded_area",)
    record = still.store.records["NRL-000123"]
    assert record.error_codes == ("excluded_area",)
    # Stamped with the refusing bundle's digest (the run's provenance), told again once each.
    assert record.bundle is not None and record.bundle.sha256 == PROVENANCE.bundle_sha256
    assert still.sent(NotificationKind.FAILED) == [PLANNER, PLANNER]
    assert still.sent(NotificationKind.QUOTE_REFUSED) == [SUPPORT, SUPPORT]
