"""Result reports ride the ledger: to the backend, indexed while undelivered, settled by dlq."""

from __future__ import annotations

import json

from fakes import FakeClock, FakeJobQueue, FakeNotifier, FakeResultStore
from nrf.adapters.environment.settings import WorkerSettings
from nrf.adapters.notifier.delivery_channels import DeliveryChannels
from nrf.domain.fleet_status import concerns
from nrf.domain.jobs import (
    JobRecord,
    JobStatus,
    Notification,
    NotificationFailed,
    NotificationKind,
    NotificationRecord,
)
from nrf.domain.result_port import BACKEND_RECIPIENT, undelivered_key
from nrf.entrypoints.roots.dead_letters import DeadLetterRoot
from nrf.entrypoints.roots.job import JobRoot
from nrf.service_layer.fleet_status import ReadFleetStatus
from nrf.service_layer.notifications import NotificationLedger, intent
from ops_fakes import FakeQueueInspector, InMemoryOpsRecords, InMemoryStoreInventory
from support.wiring import wired

JOB = "NRF-000555"


class FakeBackendResults:
    """Records every report; ``outcomes`` scripts (sent, pending) per send; ``held`` is what
    a read-back finds (None: cannot be asked right now)."""

    def __init__(self, outcomes: list[tuple[bool, bool]] | None = None) -> None:
        self.sent: list[Notification] = []
        self.outcomes = outcomes or []
        self.held: bool | None = False

    def send(self, notification: Notification) -> NotificationRecord:
        self.sent.append(notification)
        ok, pending = self.outcomes.pop(0) if self.outcomes else (True, False)
        return NotificationRecord(
            kind=notification.kind,
            recipient=notification.recipient,
            sent=ok,
            attempts=1,
            error=None if ok else "backend_503",
            pending=pending,
        )

    def sent_before(self, notification: Notification) -> bool | None:
        if self.held is None:
            raise NotificationFailed("backend down", retryable=True)
        return self.held


def ledger_of(store: FakeResultStore, channels: DeliveryChannels) -> NotificationLedger:
    """The worker's ledger as its root wires it, settling through ``channels``."""
    return wired(JobRoot, result_store=store, job_delivery=channels).ledger()


def pending_record() -> JobRecord:
    entry = intent(
        NotificationKind.BACKEND_RESULT,
        BACKEND_RECIPIENT,
        {"body": json.dumps({"edps": []}), "trace_id": "t"},
    )
    return JobRecord(
        job_id=JOB, status=JobStatus.SUCCEEDED, finished_at=1.0, notifications=(entry,)
    )


def test_reports_go_to_the_backend_and_emails_to_the_notifier() -> None:
    emails, backend, records = FakeNotifier(), FakeBackendResults(), InMemoryOpsRecords()
    channels = DeliveryChannels(emails=emails, backend=backend, records=records, clock=FakeClock())
    store = FakeResultStore()
    record = pending_record()
    email = intent(NotificationKind.COMPLETED, "planner@example.gov.uk", {"x": "y"})
    record = JobRecord(
        job_id=JOB, status=JobStatus.SUCCEEDED, notifications=(email, *record.notifications)
    )
    settled = ledger_of(store, channels).settle(record, ask_provider=False)
    assert [n.kind for n in emails.sent] == [NotificationKind.COMPLETED]
    assert [n.reference for n in backend.sent] == [JOB]
    assert all(n.sent and not n.pending for n in settled.notifications)


def test_an_undelivered_report_shows_in_status_until_dlq_settles_it() -> None:
    backend = FakeBackendResults(outcomes=[(False, True)])  # a 503 outage: stays pending
    records, clock, store = InMemoryOpsRecords(), FakeClock(), FakeResultStore()
    channels = DeliveryChannels(
        emails=FakeNotifier(), backend=backend, records=records, clock=clock
    )
    record = ledger_of(store, channels).settle(pending_record(), ask_provider=False)
    assert record.notifications[0].pending
    status = ReadFleetStatus(
        queue=FakeQueueInspector(),
        records=records,
        inventory=InMemoryStoreInventory(),
        store=store,
        clock=clock,
    )()
    assert status.undelivered == (JOB,)
    assert "undelivered_callbacks" in [c.code for c in concerns(status)]

    # The message ran out of receives: `nrf dlq` asks the backend, then sends it once more.
    dlq = FakeJobQueue(clock)
    dlq.send(
        json.dumps(
            {
                "reference": JOB,
                "boundaryGeojson": {
                    "boundaryGeometryOriginal": {"type": "Polygon", "coordinates": []}
                },
                "housingUnits": 3,
            }
        )
    )
    notifier = FakeNotifier()
    channels = DeliveryChannels(emails=notifier, backend=backend, records=records, clock=clock)
    wired(
        DeadLetterRoot,
        WorkerSettings(support_email="support@example.gov.uk"),
        dead_letter_queue=dlq,
        result_store=store,
        delivery=channels,
        clock=clock,
    ).drain_dead_letters()()
    assert len(backend.sent) == 2
    assert store.records[JOB].notifications[0].sent
    assert records.get(undelivered_key(JOB)) is None
    assert [n.kind for n in notifier.sent] == [NotificationKind.DEAD_LETTERED]  # support told


def test_a_report_the_backend_already_holds_is_not_sent_again() -> None:
    backend, records = FakeBackendResults(), InMemoryOpsRecords()
    backend.held = True  # the last attempt died after the PATCH landed
    records.put(undelivered_key(JOB), b'{"at": 1}')
    channels = DeliveryChannels(
        emails=FakeNotifier(), backend=backend, records=records, clock=FakeClock()
    )
    settled = ledger_of(FakeResultStore(), channels).settle(pending_record(), ask_provider=True)
    assert backend.sent == []
    assert settled.notifications[0].sent
    assert records.get(undelivered_key(JOB)) is None
