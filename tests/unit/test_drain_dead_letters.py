"""nrf dlq: every dead-lettered job ends on the record, support told, nothing stuck."""

import json

from fakes import FakeClock, FakeJobQueue, FakeNotifier, FakeResultStore
from nrf.domain.jobs import JobRecord, JobStatus, NotificationKind
from nrf.service_layer.drain_dead_letters import DrainDeadLetters
from nrf.service_layer.notification_ledger import intent

SUPPORT = "support@example.gov.uk"


def body(job_id: str) -> str:
    return json.dumps({
        "job_id": job_id,
        "development": {"name": "S", "dwellings": 3, "dwelling_category": "housing"},
        "boundary": {"type": "Polygon", "coordinates": []},
        "email": "planner@example.gov.uk",
    })  # fmt: skip


def make(support: str | None = SUPPORT):
    clock = FakeClock()
    dlq, store, notifier = FakeJobQueue(clock), FakeResultStore(), FakeNotifier()
    return DrainDeadLetters(dlq, store, notifier, clock, support), dlq, store, notifier


def test_an_unfinished_job_is_failed_and_support_and_requester_are_told() -> None:
    drain, dlq, store, notifier = make()
    dlq.send(body("dead-1"))
    assert drain() == ["dead-1"]
    record = store.records["dead-1"]
    assert (record.status, record.error_codes) == (JobStatus.FAILED, ("dead_lettered",))
    kinds = {(n.kind, n.recipient) for n in notifier.sent}
    assert kinds == {(NotificationKind.DEAD_LETTERED, SUPPORT),
                     (NotificationKind.FAILED, "planner@example.gov.uk")}  # fmt: skip
    assert dlq.messages == {}


def test_a_stored_job_whose_email_never_went_gets_it_now_and_support_hears() -> None:
    drain, dlq, store, notifier = make()
    pending = intent(NotificationKind.COMPLETED, "planner@example.gov.uk", {"levy_amount": "£1"})
    store.records["done-1"] = JobRecord("done-1", JobStatus.SUCCEEDED, notifications=(pending,))
    dlq.send(body("done-1"))
    drain()
    completed = [n for n in notifier.sent if n.kind is NotificationKind.COMPLETED]
    assert len(completed) == 1 and completed[0].personalisation["levy_amount"] == "£1"
    (entry,) = [n for n in store.records["done-1"].notifications]
    assert (entry.sent, entry.pending) == (True, False)
    assert [n.recipient for n in notifier.sent if n.kind is NotificationKind.DEAD_LETTERED] == [
        SUPPORT]  # fmt: skip
    assert dlq.messages == {}


def test_a_finished_and_told_job_is_just_deleted() -> None:
    drain, dlq, store, notifier = make()
    store.records["ok-1"] = JobRecord("ok-1", JobStatus.SUCCEEDED)
    dlq.send(body("ok-1"))
    assert drain() == ["ok-1"]
    assert notifier.sent == [] and dlq.messages == {}
