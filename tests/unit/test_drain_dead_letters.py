"""nrf dlq: every dead-lettered job ends on the record, support told, nothing stuck."""

import json

import pytest

from fakes import FakeClock, FakeJobQueue, FakeNotifier, FakeResultStore
from nrf.adapters.environment.settings import WorkerSettings
from nrf.domain.jobs import (
    JobRecord,
    JobStatus,
    Notification,
    NotificationKind,
    NotificationRecord,
)
from nrf.entrypoints.roots.dead_letters import DeadLetterRoot
from nrf.service_layer.drain_dead_letters import DrainDeadLetters
from nrf.service_layer.notifications import intent
from support.wiring import wired

SUPPORT = "support@example.gov.uk"


def body(job_id: str) -> str:
    return json.dumps(
        {
            "job_id": job_id,
            "development": {"name": "S", "dwellings": 3, "dwelling_category": "housing"},
            "boundary": {"type": "Polygon", "coordinates": []},
            "email": "planner@example.gov.uk",
        }
    )


def drain_of(
    dlq: FakeJobQueue, store: FakeResultStore, notifier: FakeNotifier, clock: FakeClock
) -> DrainDeadLetters:
    """`nrf dlq` as its root wires it, over the fakes."""
    return wired(
        DeadLetterRoot,
        WorkerSettings(support_email=SUPPORT),
        dead_letter_queue=dlq,
        result_store=store,
        delivery=notifier,
        clock=clock,
    ).drain_dead_letters()


def make():
    clock = FakeClock()
    dlq, store, notifier = FakeJobQueue(clock), FakeResultStore(), FakeNotifier()
    return drain_of(dlq, store, notifier, clock), dlq, store, notifier


def test_an_unfinished_job_is_failed_and_support_and_requester_are_told() -> None:
    drain, dlq, store, notifier = make()
    dlq.send(body("dead-1"))
    assert drain() == ["dead-1"]
    record = store.records["dead-1"]
    assert (record.status, record.error_codes) == (JobStatus.FAILED, ("dead_lettered",))
    kinds = {(n.kind, n.recipient) for n in notifier.sent}
    assert kinds == {
        (NotificationKind.DEAD_LETTERED, SUPPORT),
        (NotificationKind.FAILED, "planner@example.gov.uk"),
    }
    assert dlq.messages == {}


def test_a_stored_job_whose_email_never_went_gets_it_now_and_support_hears() -> None:
    drain, dlq, store, notifier = make()
    pending = intent(NotificationKind.COMPLETED, "planner@example.gov.uk", {"levy_amount": "£1"})
    store.records["done-1"] = JobRecord(
        job_id="done-1", status=JobStatus.SUCCEEDED, notifications=(pending,)
    )
    dlq.send(body("done-1"))
    drain()
    completed = [n for n in notifier.sent if n.kind is NotificationKind.COMPLETED]
    assert len(completed) == 1 and completed[0].personalisation["levy_amount"] == "£1"
    entries = {n.kind: n for n in store.records["done-1"].notifications}
    assert set(entries) == {NotificationKind.COMPLETED, NotificationKind.DEAD_LETTERED}
    assert all((n.sent, n.pending) == (True, False) for n in entries.values())
    assert [n.recipient for n in notifier.sent if n.kind is NotificationKind.DEAD_LETTERED] == [
        SUPPORT
    ]
    assert dlq.messages == {}


def test_a_finished_and_told_job_is_just_deleted() -> None:
    drain, dlq, store, notifier = make()
    store.records["ok-1"] = JobRecord(job_id="ok-1", status=JobStatus.SUCCEEDED)
    dlq.send(body("ok-1"))
    assert drain() == ["ok-1"]
    assert notifier.sent == [] and dlq.messages == {}


class DiesAfterSending(FakeNotifier):
    """The drain's process dies right after the provider took the ``kind`` email."""

    def __init__(self, kind: NotificationKind) -> None:
        super().__init__()
        self.kind, self.armed = kind, True

    def send(self, notification: Notification) -> NotificationRecord:
        record = super().send(notification)
        if self.armed and notification.kind is self.kind:
            self.armed = False
            raise Died()
        return record


class Died(BaseException):
    """The process ends here: nothing after it runs."""


@pytest.mark.parametrize("dies_after", [NotificationKind.DEAD_LETTERED, NotificationKind.FAILED])
def test_a_drain_killed_between_its_sends_and_its_save_sends_nothing_twice(
    dies_after: NotificationKind,
) -> None:
    clock = FakeClock()
    dlq, store, notifier = (
        FakeJobQueue(clock, visibility_timeout=60),
        FakeResultStore(),
        (DiesAfterSending(dies_after)),
    )
    drain = drain_of(dlq, store, notifier, clock)
    dlq.send(body("dead-2"))
    with pytest.raises(Died):
        drain()
    clock.advance(61)  # the message was not deleted: it comes back to the next drain
    assert drain() == ["dead-2"]

    kinds = [n.kind for n in notifier.delivered]
    # Each email reached the provider once: the second drain found the intents on the record
    # and asked the provider (fake Notify knows what it took) before sending anything.
    assert sorted(kinds) == sorted([NotificationKind.DEAD_LETTERED, NotificationKind.FAILED])
    entries = store.records["dead-2"].notifications
    assert sorted(n.kind for n in entries) == sorted(kinds), "both settled on the record"
    assert all(n.sent and not n.pending for n in entries)
    assert dlq.messages == {}
