"""Use case: end every dead-lettered job on the record and tell support, so none is stuck.

An unfinished job is failed (support and the requester told); a finished job whose email never
went gets it once more, and support hears how it went; a finished and told job's message is
only deleted. Every email goes through the ledger: recorded as pending with the job, then
sent, so a crash between the sends and the save finds the intents on the next drain (the
message is deleted last) and the provider is asked before anything is sent again.
"""

from __future__ import annotations

import logging

from attrs import evolve

from nrf.domain.job_request import IncomingJob
from nrf.domain.jobs import JobRecord, JobStatus, NotificationKind, NotificationRecord
from nrf.domain.ports import Clock, JobInbox, ResultStore
from nrf.service_layer.notifications import NotificationLedger, failure_fields, intent, unsent

_CODES = ("dead_lettered",)

log = logging.getLogger("nrf.dlq")


class DrainDeadLetters:
    """Each dead-lettered message: its job ended on the record, support told when it must be,
    then the message deleted (an error before that leaves it for the next drain)."""

    def __init__(
        self,
        *,
        dlq: JobInbox,
        store: ResultStore,
        ledger: NotificationLedger,
        clock: Clock,
        support_email: str | None,
    ) -> None:
        self._dlq, self._store, self._ledger = dlq, store, ledger
        self._clock, self._support = clock, support_email

    def __call__(self, max_batches: int = 1000) -> list[str]:
        """Drain until the queue is empty; returns the job ids handled."""
        handled: list[str] = []
        for _ in range(max_batches):
            jobs = self._dlq.receive(10, 1, 60)
            if not jobs:
                break
            for job in jobs:
                self._handle(job)
                handled.append(job.job_id)
        return handled

    def _handle(self, job: IncomingJob) -> None:
        job_id, email = job.job_id, job.email
        existing = self._store.record(job_id)
        had_pending = existing is not None and existing.has_pending()
        if existing is not None and had_pending:
            # Emails of an earlier attempt (or an earlier drain that died after saving its
            # intents): the provider is asked before anything goes out again.
            existing = self._ledger.settle(existing, ask_provider=True)
        if existing is not None and _support_heard(existing):
            log.info("dead_letter_already_handled", extra={"job_id": job_id})
        elif existing is not None and existing.status is JobStatus.SUCCEEDED:
            if had_pending:
                # Stored, but the email kept failing until the message was dead-lettered:
                # tried once more above; support hears what happened to it.
                self._record_and_send(
                    existing,
                    self._support_entry(
                        job_id,
                        "the result is stored but the requester's email could not be "
                        f"confirmed: {_email_state(existing)}",
                    ),
                )
            else:
                log.info("dead_letter_already_finished", extra={"job_id": job_id})
        else:
            self._fail(job, existing, email)
        self._dlq.delete(job)

    def _fail(self, job: IncomingJob, existing: JobRecord | None, email: str | None) -> None:
        reason = (
            f"the job failed {job.receipt.receive_count} times and was moved to the "
            "dead-letter queue"
        )
        entries = [self._support_entry(job.job_id, reason)]
        if email and not (existing and existing.notifications):
            entries.append(
                intent(NotificationKind.FAILED, email, failure_fields(job.job_id, _CODES, reason))
            )
        record = existing or JobRecord(
            job_id=job.job_id,
            status=JobStatus.FAILED,
            error_codes=_CODES,
            message=reason,
            finished_at=self._clock.now(),
            trace_id=job.trace_id,
        )
        self._record_and_send(record, *entries)
        ctx = {"job_id": job.job_id, "trace_id": job.trace_id}
        log.warning("job_dead_lettered", extra={**ctx, "receive_count": job.receipt.receive_count})

    def _record_and_send(self, record: JobRecord, *entries: NotificationRecord) -> None:
        record = evolve(record, notifications=(*record.notifications, *entries))
        self._store.save(record.job_id, {}, record)  # the intents first ...
        self._ledger.settle(record, ask_provider=False)  # ... then the sends

    def _support_entry(self, job_id: str, reason: str) -> NotificationRecord:
        if not self._support:
            log.warning("dead_letter_unreported", extra={"job_id": job_id, "reason": reason})
            return unsent(NotificationKind.DEAD_LETTERED, "no_support_address")
        return intent(
            NotificationKind.DEAD_LETTERED, self._support, failure_fields(job_id, _CODES, reason)
        )


def _support_heard(record: JobRecord) -> bool:
    return any(n.kind is NotificationKind.DEAD_LETTERED for n in record.notifications)


def _email_state(record: JobRecord) -> str:
    states = [
        f"{n.kind}: {'sent' if n.sent else (n.error or 'not sent')}"
        for n in record.notifications
        if n.kind is not NotificationKind.DEAD_LETTERED
    ]
    return ", ".join(states) or "none"
