"""Use case: end every dead-lettered job on the record and tell support, so none is stuck.

An unfinished job is failed (support and the requester told); a finished job whose email never
went gets it once more, and support hears how it went; a finished and told job's message is
only deleted. Each ending is handed to ``job_end.py`` like any other: the intents are stored
with the job before they are sent, so a crash between the sends and the save finds them on the
next drain (the message is deleted last) and the provider is asked before anything is sent
again.
"""

from __future__ import annotations

import logging

from nrf.domain.job_request import IncomingJob
from nrf.domain.jobs import JobRecord, JobStatus, NotificationKind
from nrf.domain.ports import Clock, JobInbox, ResultStore
from nrf.domain.tell import DeadLetterTell, FinishedTell, Tell
from nrf.service_layer.job_end import Ending, JobEnd
from nrf.service_layer.job_outcome import OutcomeStatus
from nrf.service_layer.notifications import DEAD_LETTER_CODES

log = logging.getLogger("nrf.dlq")


class DrainDeadLetters:
    """Each dead-lettered message: its job ended on the record, support told when it must be,
    then the message deleted (an error before that leaves it for the next drain)."""

    def __init__(self, *, dlq: JobInbox, store: ResultStore, end: JobEnd, clock: Clock) -> None:
        self._dlq, self._store, self._end, self._clock = dlq, store, end, clock

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
        existing = self._store.record(job.job_id)
        record = existing or self._failed(job)
        outcome = self._end(
            Ending(
                record=record,
                receipt=job.receipt,
                status=OutcomeStatus.DEAD_LETTERED,
                tell=self._tell(job, existing),
                found=existing is not None,
            )
        )
        if outcome.delete:
            self._dlq.delete(job)

    def _tell(self, job: IncomingJob, existing: JobRecord | None) -> Tell:
        """Whom the dead letter tells, from the record as the drain found it."""
        ctx = {"job_id": job.job_id, "trace_id": job.trace_id}
        if existing is not None and _support_heard(existing):
            log.info("dead_letter_already_handled", extra={"job_id": job.job_id})
            return FinishedTell()
        if existing is not None and existing.status is JobStatus.SUCCEEDED:
            if existing.has_pending():
                # Stored, but the email kept failing until the message was dead-lettered:
                # tried once more (the provider asked first); support hears what happened.
                return DeadLetterTell(email=job.email, reason="", stored=True)
            log.info("dead_letter_already_finished", extra={"job_id": job.job_id})
            return FinishedTell()
        log.warning("job_dead_lettered", extra={**ctx, "receive_count": job.receipt.receive_count})
        return DeadLetterTell(email=job.email, reason=_reason(job))

    def _failed(self, job: IncomingJob) -> JobRecord:
        return JobRecord(
            job_id=job.job_id,
            status=JobStatus.FAILED,
            error_codes=DEAD_LETTER_CODES,
            message=_reason(job),
            finished_at=self._clock.now(),
            trace_id=job.trace_id,
        )


def _reason(job: IncomingJob) -> str:
    return (
        f"the job failed {job.receipt.receive_count} times and was moved to the dead-letter queue"
    )


def _support_heard(record: JobRecord) -> bool:
    return any(n.kind is NotificationKind.DEAD_LETTERED for n in record.notifications)
