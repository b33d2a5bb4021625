"""The ledger sends only what is still pending: a settled email is never touched again."""

from __future__ import annotations

import pytest

from fakes import FakeNotifier, FakeResultStore
from nrf.domain.jobs import JobRecord, JobStatus, NotificationKind, NotificationRecord
from nrf.entrypoints.roots.job import JobRoot
from nrf.service_layer.notifications import intent
from support.wiring import wired

PLANNER, SUPPORT = "planner@example.gov.uk", "support@example.gov.uk"


def half_settled() -> JobRecord:
    """The requester's email went (settled); support's is still pending."""
    sent = NotificationRecord(
        kind=NotificationKind.COMPLETED,
        recipient=PLANNER,
        sent=True,
        provider_id="n-1",
        attempts=1,
        details=(("job_reference", "job-1"),),
    )
    pending = intent(NotificationKind.DEAD_LETTERED, SUPPORT, {"job_reference": "job-1"})
    return JobRecord(job_id="job-1", status=JobStatus.SUCCEEDED, notifications=(sent, pending))


@pytest.mark.parametrize("ask_provider", [False, True])
@pytest.mark.parametrize("can_look_up", [True, False], ids=["notify", "ses"])
def test_a_settled_email_is_not_sent_again_on_a_duplicate_delivery(
    ask_provider: bool, can_look_up: bool
) -> None:
    # A fresh notifier knows nothing of the first send (another process, or SES which cannot
    # be asked): only the record says it went, and that must be enough.
    store, notifier = FakeResultStore(), FakeNotifier(can_look_up=can_look_up)
    ledger = wired(JobRoot, result_store=store, job_delivery=notifier).ledger()
    record = ledger.settle(half_settled(), ask_provider=ask_provider)

    sent_to = [n.recipient for n in notifier.sent]
    if ask_provider and not can_look_up:
        # SES cannot say whether a bare intent went: marked unknown, nothing resent.
        assert sent_to == []
    else:
        assert sent_to == [SUPPORT]
    assert record.notifications[0] == half_settled().notifications[0], "left exactly as it was"
    assert all(not n.pending for n in record.notifications)
    assert store.records["job-1"] == record, "saved after settling"
