"""ProcessJob under crashes at every step: each job stored once, each email sent once."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from test_process_job import FakeBoundarySource, body, msg, render, repo

from fakes import FakeClock, FakeNotifier, FakeResultStore
from nrf.adapters.job_queue.job_message import claim_owner
from nrf.domain.jobs import (
    JobRecord,
    Notification,
    NotificationKind,
    NotificationRecord,
    QueueMessage,
)
from nrf.service_layer.notifications import OUTCOME_UNKNOWN
from support.receives import LEASE, Receives


class Crash(BaseException):
    """The process dies here: nothing after it runs, no handler sees it."""


class CrashingStore(FakeResultStore):
    """Dies on the ``crash_on``-th save (1-based), before that save lands."""

    def __init__(self, crash_on: int | None = None) -> None:
        super().__init__()
        self.crash_on = crash_on
        self.save_calls = 0

    def save(self, job_id: str, files: Mapping[str, bytes], record: JobRecord) -> str:
        self.save_calls += 1
        if self.save_calls == self.crash_on:
            self.crash_on = None
            raise Crash()
        return super().save(job_id, files, record)


class CrashingNotifier(FakeNotifier):
    """Dies on the ``crash_on``-th send of ``kind``, before or after the provider got it."""

    def __init__(self, kind: NotificationKind, *, after_sending: bool, **options: bool) -> None:
        super().__init__(**options)  # type: ignore[arg-type]
        self.kind, self.after_sending = kind, after_sending
        self.armed = True

    def send(self, notification: Notification) -> NotificationRecord:
        if self.armed and notification.kind is self.kind:
            self.armed = False
            if self.after_sending:
                super().send(notification)
            raise Crash()
        return super().send(notification)


def make(store: FakeResultStore, notifier: FakeNotifier, clock: FakeClock) -> Receives:
    return Receives(
        repository=repo(),
        source=FakeBoundarySource(),
        render=render,
        store=store,
        notifier=notifier,
        clock=clock,
    )


def delivered(notifier: FakeNotifier, kind: NotificationKind) -> int:
    return sum(1 for n in notifier.delivered if n.kind is kind)


def crash_then_receive_again(process: Receives, clock: FakeClock) -> str:
    """Receive once (it dies), then again after the dead holder's lease ran out."""
    with pytest.raises(Crash):
        process(msg(body(), count=1))
    clock.advance(LEASE + 1)  # the message comes back when its visibility (= lease) ends
    return process(msg(body(), count=2)).status


@pytest.mark.parametrize("crash_on_save", [1, 2])
def test_a_crash_at_a_save_stores_once_and_emails_once(crash_on_save: int) -> None:
    # Save 1 holds the result and the intent to email; save 2 records the email as sent.
    clock, store, notifier = FakeClock(), CrashingStore(crash_on_save), FakeNotifier()
    process = make(store, notifier, clock)

    status = crash_then_receive_again(process, clock)

    assert status == ("succeeded" if crash_on_save == 1 else "already_finished")
    assert delivered(notifier, NotificationKind.COMPLETED) == 1
    assert delivered(notifier, NotificationKind.STARTED) == 1
    [entry] = store.records["job-1"].notifications
    assert (entry.kind, entry.sent, entry.pending) == (NotificationKind.COMPLETED, True, False)
    assert store.files["job-1"]["result.json"]
    if crash_on_save == 2:
        assert notifier.lookups, "the provider was asked before anything was sent again"


@pytest.mark.parametrize("after_sending", [False, True])
def test_a_crash_around_the_completed_email_sends_it_exactly_once(after_sending: bool) -> None:
    clock, store = FakeClock(), CrashingStore()
    notifier = CrashingNotifier(NotificationKind.COMPLETED, after_sending=after_sending)
    process = make(store, notifier, clock)

    assert crash_then_receive_again(process, clock) == "already_finished"

    assert delivered(notifier, NotificationKind.COMPLETED) == 1
    [entry] = store.records["job-1"].notifications
    assert entry.sent and not entry.pending
    # The resend says what the first would have said: totals come from the ledger entry.
    # Same repo() and body() as test_process_job, whose comment works these figures by hand.
    [completed] = [n for n in notifier.delivered if n.kind is NotificationKind.COMPLETED]
    assert completed.personalisation["nitrogen_total_kg_per_year"] == "38.53"
    # The levy's fields come from the same entry (their wording is worked in test_job_emails).
    assert dict(entry.details)["levy_details"] == completed.personalisation["levy_details"]


def test_without_a_provider_lookup_an_email_that_may_have_gone_is_not_sent_again() -> None:
    clock, store = FakeClock(), CrashingStore()
    notifier = CrashingNotifier(NotificationKind.COMPLETED, after_sending=True, can_look_up=False)
    process = make(store, notifier, clock)

    assert crash_then_receive_again(process, clock) == "already_finished"

    assert delivered(notifier, NotificationKind.COMPLETED) == 1
    [entry] = store.records["job-1"].notifications
    assert (entry.sent, entry.pending, entry.error) == (False, False, OUTCOME_UNKNOWN)


def test_without_a_lookup_a_recorded_provider_failure_is_retried() -> None:
    clock, store = FakeClock(), FakeResultStore()
    notifier = FakeNotifier(
        frozenset({"planner@example.gov.uk"}), retryable=True, can_look_up=False
    )
    process = make(store, notifier, clock)

    first = process(msg(body(), count=1))
    assert (first.status, first.delete) == ("retry", False)
    assert store.records["job-1"].notifications[0].pending
    notifier.fail_for = frozenset()
    assert process(msg(body(), count=2)).status == "already_finished"

    assert delivered(notifier, NotificationKind.COMPLETED) == 1
    [entry] = store.records["job-1"].notifications
    # The fake makes one attempt per send; the ledger adds them up: 1 (failed) + 1 (sent).
    assert (entry.sent, entry.pending, entry.attempts) == (True, False, 2)
    assert store.saves.count("job-1") == 3, "result+intent, the failure, then the success"


def test_a_notify_outage_keeps_the_message_until_the_email_is_sent_once() -> None:
    clock, store = FakeClock(), FakeResultStore()
    notifier = FakeNotifier(frozenset({"planner@example.gov.uk"}), retryable=True)
    process = make(store, notifier, clock)

    for count in (1, 2, 3):
        outcome = process(msg(body(), count=count))
        assert (outcome.delete, outcome.error_codes) == (False, ("notification_pending",))
    notifier.fail_for = frozenset()
    assert process(msg(body(), count=4)).delete

    assert delivered(notifier, NotificationKind.COMPLETED) == 1
    assert store.saves.count("job-1") == 5  # computed once: 1 result save, 4 ledger updates


def test_a_duplicate_message_while_the_job_runs_elsewhere_is_deleted_not_computed() -> None:
    clock, store, notifier = FakeClock(), FakeResultStore(), FakeNotifier()
    process = make(store, notifier, clock)
    first = msg(body(), count=1)
    store.claim("job-1", claim_owner(first), clock.now(), LEASE)  # another process has it
    clock.advance(100)
    copy = QueueMessage(
        message_id="m-2", receipt_handle="r-other", body=first.body
    )  # another message, same job

    outcome = process(copy)

    # The holder's message still carries the job: the copy would only burn receives.
    assert (outcome.status, outcome.delete) == ("duplicate", True)
    assert notifier.sent == [] and store.saves == []


def test_another_receive_of_the_holders_own_message_waits_for_its_lease() -> None:
    clock, store, notifier = FakeClock(), FakeResultStore(), FakeNotifier()
    process = make(store, notifier, clock)
    first = msg(body(), count=1)
    store.claim("job-1", claim_owner(first), clock.now(), LEASE)
    clock.advance(100)
    # The same message received again (a new receipt handle): deleting it would delete the
    # holder's own message, so it comes back just after the holder's lease ends.
    again = QueueMessage(
        message_id=first.message_id, receipt_handle="r-again", body=first.body, receive_count=2
    )

    outcome = process(again)

    assert (outcome.status, outcome.delete) == ("claimed_elsewhere", False)
    assert outcome.retry_after == LEASE - 100 + 1
    assert notifier.sent == [] and store.saves == []


def test_the_started_email_goes_only_with_the_very_first_claim() -> None:
    clock, store, notifier = FakeClock(), CrashingStore(crash_on=1), FakeNotifier()
    process = make(store, notifier, clock)
    with pytest.raises(Crash):
        process(msg(body(), count=1))
    clock.advance(LEASE + 1)
    # A duplicate message on its own first receive, after the crash: not a second "started".
    copy = QueueMessage(message_id="m-2", receipt_handle="r-copy", body=body())
    assert process(copy).status == "succeeded"
    assert delivered(notifier, NotificationKind.STARTED) == 1


def test_a_timed_out_job_is_failed_for_good_and_the_requester_told_once() -> None:
    clock, store, notifier = FakeClock(), FakeResultStore(), FakeNotifier()
    process = make(store, notifier, clock)

    outcome = process.timed_out(msg(body(), count=1), 901.5)
    again = process.timed_out(msg(body(), count=2), 901.5)

    assert (outcome.status, outcome.delete, outcome.error_codes) == (
        "failed",
        True,
        ("job_timeout",),
    )
    assert (again.status, again.delete) == ("already_finished", True)
    record = store.records["job-1"]
    assert record.error_codes == ("job_timeout",)
    assert "901.5 s" in record.message
    assert delivered(notifier, NotificationKind.FAILED) == 1
    assert [n for n in notifier.sent if n.kind is NotificationKind.COMPLETED] == []
    assert store.leases["job-1"].expires_at == clock.now(), "released"


def test_every_outcome_releases_the_claim() -> None:
    clock, store, notifier = FakeClock(), FakeResultStore(), FakeNotifier()
    process = make(store, notifier, clock)
    message = msg(body(), count=1)
    process(message)
    assert store.releases == [("job-1", claim_owner(message))]
    store.failures = 1  # a transient failure on a fresh job: released too
    other = QueueMessage(message_id="m-9", receipt_handle="r-9", body=body(job_id="job-2"))
    assert process(other).status == "retry"
    assert ("job-2", claim_owner(other)) in store.releases
