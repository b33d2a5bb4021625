"""ProcessJob with recording fakes: stored once, told once, bad input failed once."""

import io
import json
import tempfile
import zipfile

import pytest
from shapely.geometry import box

from fakes import FakeClock, FakeNotifier, FakeResultStore, FakeS3
from nrf.adapters.site_boundaries.s3_job_boundary_source import S3JobBoundarySource
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.fleet import BundleStamp
from nrf.domain.job_request import JobRequest
from nrf.domain.jobs import (
    JobRecord,
    JobStatus,
    NotificationKind,
    QueueMessage,
    job_record_from_json,
    job_record_to_json,
)
from nrf.domain.validation import RawFeature
from nrf.service_layer.job_outcome import retry_delay
from support.receives import Receives
from support.reference import InMemoryBoundaryData, wensum_square

X0, Y0 = 600_000.0, 300_000.0
SITE = box(X0 + 100, Y0 + 100, X0 + 405, Y0 + 200)  # 3.05 ha


class FakeBoundarySource:
    """Hands back the site as one raw feature; ``problems`` makes it refuse the boundary."""

    def __init__(self, problems: list[Problem] | None = None) -> None:
        self.problems = problems or []
        self.requests: list[JobRequest] = []

    def features(self, request: JobRequest) -> list[RawFeature]:
        self.requests.append(request)
        if self.problems:
            raise InvalidInput(self.problems)
        return [RawFeature(index=1, properties={}, geometry=SITE)]


def repo() -> InMemoryBoundaryData:
    return wensum_square((X0, Y0), n_current=5.57, p_current=0.24)


def render(run, developments) -> dict[str, bytes]:
    return {"result.json": json.dumps({"sites": len(run.sites)}).encode()}


def body(**overrides) -> str:
    message = {
        "job_id": "job-1",
        "development": {"name": "Test", "dwellings": 19, "dwelling_category": "housing"},
        "boundary": {"type": "Polygon", "coordinates": []},
        "email": "planner@example.gov.uk",
        "trace_id": "t-1",
    }
    message.update(overrides)
    return json.dumps(message)


def make(source=None, store=None, notifier=None):
    store = store or FakeResultStore()
    notifier = notifier or FakeNotifier()
    source = source or FakeBoundarySource()
    process = Receives(
        repository=repo(),
        source=source,
        render=render,
        store=store,
        notifier=notifier,
        clock=FakeClock(),
    )
    return process, store, notifier


def msg(text: str, count: int = 1) -> QueueMessage:
    return QueueMessage(
        message_id="m-1", receipt_handle=f"r-{count}", body=text, receive_count=count, sent_at=None
    )


def test_a_job_is_stored_then_the_requester_is_told_with_totals_and_levy() -> None:
    process, store, notifier = make()
    outcome = process(msg(body()))
    assert (outcome.status, outcome.delete) == ("succeeded", True)
    assert store.records["job-1"].status is JobStatus.SUCCEEDED
    assert set(store.files["job-1"]) >= {"result.json"}
    kinds = [n.kind for n in notifier.sent]
    assert kinds == [NotificationKind.STARTED, NotificationKind.COMPLETED]
    done = notifier.sent[-1].personalisation
    # Worked from repo() and body() under the default rules (iat-2026-04: greenspace 20 % at
    # N 3.0 / P 0.2 from 1 ha, SuDS from 50 dwellings, permits at 90 %, buffer 20 %):
    #   site 305 m x 100 m = 3.05 ha, all inside the one coefficient polygon;
    #   N resi' 0.8 x 12 + 0.2 x 3.0 = 10.2, uplift (10.2 - 5.57) x 3.05 = 14.1215 -> 14.12;
    #   P resi' 0.8 x 0.5 + 0.2 x 0.2 = 0.44, uplift (0.44 - 0.24) x 3.05 = 0.61; 19 < 50: no SuDS;
    #   water 19 x 2.4 x 120 = 5472 l/day (tests/support/reference.py's default rates);
    #   WwTW N 5472 x 365.25 x 10 mg/l / 1e6 x 0.9 = 17.987832, P (1 mg/l) 1.7987832;
    #   N (14.12 + 17.987832) x 1.2 = 38.5293984 -> 38.53;
    #   P (0.61 + 1.7987832) x 1.2 = 2.89053984 -> 2.89;
    # (The same figures as test_assessment's worked example, which uses the same site.)
    assert done["nitrogen_total_kg_per_year"] == "38.53"
    assert done["phosphorus_total_kg_per_year"] == "2.89"
    # The levy's words in the email (quoted or refused) are worked by hand in test_job_emails.
    assert "levy_amount" in done and "levy_details" in done
    # The local store's links: under GOVUK_NOTIFY_RESULTS_BASE_URL (tests/support/deliveries.py),
    # one per stored file (render() stores only result.json here), and they do not expire.
    assert done["result_files"] == "* result.json: https://results.example/jobs/job-1/result.json"
    assert done["links_expiry"] == "These links do not expire."
    assert [n.kind for n in store.records["job-1"].notifications] == [NotificationKind.COMPLETED]
    # The record names the bundle the fake repository declares (tests/support/reference.py).
    assert store.records["job-1"].bundle == BundleStamp(
        name="test-bundle", version="1", sha256="0" * 64
    )


def test_a_record_stored_before_it_named_its_bundle_still_reads() -> None:
    old = b'{"job_id": "job-0", "status": "succeeded", "finished_at": 5.0}'
    record = job_record_from_json(old)
    assert (record.job_id, record.bundle) == ("job-0", None)
    stamped = JobRecord(
        job_id="job-0",
        status=JobStatus.SUCCEEDED,
        bundle=BundleStamp(name="n", version="v", sha256="a" * 64),
    )
    assert job_record_from_json(job_record_to_json(stamped)) == stamped


def test_a_duplicate_delivery_is_neither_recomputed_nor_emailed_again() -> None:
    source = FakeBoundarySource()
    process, _, notifier = make(source)
    process(msg(body()))
    again = process(msg(body(), count=2))
    assert (again.status, again.delete) == ("already_finished", True)
    assert len(source.requests) == 1
    assert len([n for n in notifier.sent if n.kind is NotificationKind.COMPLETED]) == 1


def test_invalid_boundary_fails_once_with_codes_and_tells_the_requester() -> None:
    problem = Problem(
        code="self_intersecting_geometry", message="feature 1 crosses itself", feature=1
    )
    process, store, notifier = make(FakeBoundarySource([problem]))
    outcome = process(msg(body()))
    assert (outcome.status, outcome.delete) == ("failed", True)
    assert outcome.error_codes == ("self_intersecting_geometry",)
    assert store.records["job-1"].status is JobStatus.FAILED
    assert store.records["job-1"].error_codes == ("self_intersecting_geometry",)
    assert notifier.sent[-1].kind is NotificationKind.FAILED
    assert notifier.sent[-1].personalisation["error_codes"] == "self_intersecting_geometry"
    # The same bad message again: no second email.
    before = len(notifier.sent)
    assert process(msg(body(), count=2)).status == "already_finished"
    assert len(notifier.sent) == before


def test_a_failed_job_gives_defras_codes_beside_nrfs_own() -> None:
    # nrf's finer codes stay; beside them, Defra's library code for each same problem, once:
    # zero_area and null_geometry are both Defra's invalid_geometry; a made-up code has none.
    problems = [
        Problem(code="zero_area", message="feature 1 has zero area", feature=1),
        Problem(code="null_geometry", message="feature 2 has no geometry", feature=2),
        Problem(code="self_intersecting_geometry", message="feature 3 crosses itself"),
        Problem(code="nrf_only_problem", message="feature 4 is odd", feature=4),
    ]
    process, store, _ = make(FakeBoundarySource(problems))
    process(msg(body()))
    record = store.records["job-1"]
    assert record.error_codes == (  # nrf's, sorted as ever
        "nrf_only_problem",
        "null_geometry",
        "self_intersecting_geometry",
        "zero_area",
    )
    assert record.defra_codes == ("invalid_geometry", "self_intersecting_geometry")


def test_a_message_that_is_not_json_is_failed_under_its_message_id() -> None:
    process, store, notifier = make()
    outcome = process(msg("{not json"))
    assert (outcome.status, outcome.delete, outcome.error_codes) == (
        "failed",
        True,
        ("not_json",),
    )
    assert store.records["message-m-1"].status is JobStatus.FAILED
    assert notifier.sent == []  # nobody to tell: the address is unknown


def test_result_store_down_leaves_the_message_with_a_growing_backoff() -> None:
    store = FakeResultStore()
    store.failures = 2
    process, _, notifier = make(store=store)
    first = process(msg(body(), count=1))
    second = process(msg(body(), count=2))
    assert (first.delete, second.delete) == (False, False)
    # base × 2^(receives−1) plus up to 20 % jitter: 30 × 2^0 = 30 (≤ 36), 30 × 2^1 = 60 (≤ 72).
    assert 30 <= first.retry_after <= 36 and 60 <= second.retry_after <= 72
    assert not [n for n in notifier.sent if n.kind is NotificationKind.COMPLETED]
    third = process(msg(body(), count=3))
    assert third.status == "succeeded"
    # Started is sent on the first delivery only.
    assert [n.kind for n in notifier.sent].count(NotificationKind.STARTED) == 1


def test_stored_but_not_told_is_told_on_the_next_receive() -> None:
    process, store, notifier = make()
    process(msg(body()))
    record = store.records["job-1"]
    store.records["job-1"] = type(record)(job_id=record.job_id, status=record.status)
    notifier.sent.clear()
    notifier.delivered.clear()  # the provider never got it either
    assert process(msg(body(), count=2)).status == "already_finished"
    assert [n.kind for n in notifier.sent] == [NotificationKind.COMPLETED]


def test_a_failed_email_is_recorded_and_does_not_fail_the_job() -> None:
    notifier = FakeNotifier(fail_for=frozenset({"planner@example.gov.uk"}))
    process, store, _ = make(notifier=notifier)
    assert process(msg(body())).status == "succeeded"
    (recorded,) = store.records["job-1"].notifications
    assert (recorded.sent, recorded.error) == (False, "fake_failure")


def test_retry_delay_doubles_and_caps() -> None:
    # docs/worker.md: NRF_RETRY_BASE_SECONDS (30) × 2^(receives−1), cap 900 s, up to +20 %.
    # 30 × 2^0, 2^1, 2^2, 2^3 = 30, 60, 120, 240.
    assert [retry_delay(n) for n in (1, 2, 3, 4)] == [30, 60, 120, 240]
    assert retry_delay(20) == 900  # 30 × 2^19 = 15,728,640 > 900: the cap
    assert retry_delay(1, jitter=0.2) == 36  # 30 × 1.2
    assert retry_delay(6, jitter=0.2) == 900  # 30 × 2^5 = 960 → 900, and jitter stays capped


def test_a_bad_message_whose_job_is_claimed_by_another_message_is_dropped_silently() -> None:
    from nrf.domain.claims import Lease

    process, store, notifier = make()
    store.leases["job-1"] = Lease(job_id="job-1", owner="another-message/0123", expires_at=1e12)
    outcome = process(msg(body(development={"dwellings": -1})))
    assert (outcome.status, outcome.delete) == ("duplicate", True)
    assert notifier.sent == [] and "job-1" not in store.records


def test_a_bad_message_is_failed_even_when_the_claim_cannot_be_taken() -> None:
    process, store, notifier = make()
    store.claim_failures = 1
    outcome = process(msg(body(development={"dwellings": -1})))
    assert (outcome.status, outcome.delete) == ("failed", True)
    assert store.records["job-1"].status is JobStatus.FAILED
    assert [n.kind for n in notifier.sent] == [NotificationKind.FAILED]


def test_a_bad_boundary_with_the_store_down_is_retried_not_failed() -> None:
    # docs/worker.md: a boundary is read and validated under the claim; with the store down
    # the claim cannot be taken, so the message is retried (and, if the store stays down,
    # dead-lettered) rather than failed without a record.
    source = FakeBoundarySource(
        [Problem(code="self_intersection", message="the boundary crosses itself")]
    )
    process, store, notifier = make(source=source)
    store.claim_failures = 1
    outcome = process(msg(body()))
    assert (outcome.status, outcome.delete) == ("retry", False)
    assert 30 <= outcome.retry_after <= 36  # NRF_RETRY_BASE_SECONDS 30 × 2^0, +0-20 % jitter
    assert source.requests == [], "the boundary is not even read without the claim"
    assert notifier.sent == [] and store.records == {}


class Crash(BaseException):
    """The worker process dying (a kill, the OOM killer) in the middle of a call."""


class CrashingOnFirstFailedSave(FakeResultStore):
    """Dies in the first save of a FAILED record, before anything is written."""

    crashed = False

    def save(self, job_id, files, record):
        if record.status is JobStatus.FAILED and not self.crashed:
            self.crashed = True
            raise Crash
        return super().save(job_id, files, record)


def test_a_crash_in_the_first_save_of_a_failure_still_sends_one_failed_email() -> None:
    # The intent is stored before the email goes: a crash before the store has it means
    # nothing was sent, and the next receive sends the one email.
    store = CrashingOnFirstFailedSave()
    process, _, notifier = make(store=store)
    bad = body(development={"dwellings": -1})
    with pytest.raises(Crash):
        process(msg(bad))
    assert store.crashed and notifier.sent == []
    outcome = process(msg(bad, count=2))
    assert (outcome.status, outcome.delete) == ("failed", True)
    assert [n.kind for n in notifier.sent] == [NotificationKind.FAILED]
    assert store.records["job-1"].status is JobStatus.FAILED


def _zipped_shapefile_of_garbage() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for suffix, size in ((".shp", 200), (".shx", 100), (".dbf", 100)):
            archive.writestr(f"site{suffix}", b"x" * size)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "upload", "expected"),
    [
        (
            "site.gpkg",
            b"garbage" * 100,  # SQLite's structure checks, before GDAL, say what it is not
            "the file cannot be read as a GeoPackage: it is not a GeoPackage"
            " (not an SQLite database)",
        ),
        (
            "site.gpkg",
            b"SQLite format 3\x00" + b"\x00" * 200,  # GDAL's text quotes its SQL
            "the file cannot be read as a GeoPackage: it is not a GeoPackage"
            " (not an SQLite database)",
        ),
        (
            "site.zip",
            _zipped_shapefile_of_garbage(),
            "the file cannot be read as a shapefile: it is not a shapefile",
        ),
    ],
)
def test_a_broken_upload_fails_saying_what_is_wrong_not_where_the_server_put_it(
    name: str, upload: bytes, expected: str
) -> None:
    s3 = FakeS3({("inputs", f"uploads/{name}"): upload}, piece=10**9)
    process, store, notifier = make(source=S3JobBoundarySource(s3, "inputs", "uploads/"))
    message = json.loads(body())
    del message["boundary"]
    message["boundary_uri"] = f"s3://inputs/uploads/{name}"
    outcome = process(msg(json.dumps(message)))
    assert (outcome.status, outcome.error_codes) == ("failed", ("unreadable_file",))
    stored = store.records["job-1"].message
    emailed = notifier.sent[-1].personalisation["error_message"]
    for text in (stored, emailed):
        assert tempfile.gettempdir() not in text and "nrf-boundary" not in text
        assert "sqlite3_" not in text and "SELECT" not in text
    assert stored == f"unreadable_file: {expected}"
