"""Use case: fail every dead-lettered job on the record and tell support, so none is stuck."""

from __future__ import annotations

import logging

from attrs import evolve

from nrf.domain.job_message import InvalidJobMessage, parse_job_message
from nrf.domain.jobs import (
    JobRecord,
    JobStatus,
    Notification,
    NotificationKind,
    NotificationRecord,
    QueueMessage,
)
from nrf.domain.ports import Clock, JobQueue, Notifier, ResultStore
from nrf.service_layer.notification_ledger import NotificationLedger, has_pending

log = logging.getLogger("nrf.dlq")


class DrainDeadLetters:
    """Mark each dead-lettered job failed, notify support (and the requester), delete it."""

    def __init__(
        self,
        dlq: JobQueue,
        store: ResultStore,
        notifier: Notifier,
        clock: Clock,
        support_email: str | None,
    ) -> None:
        self._dlq, self._store, self._notifier = dlq, store, notifier
        self._clock, self._support = clock, support_email

    def __call__(self, max_batches: int = 1000) -> list[str]:
        """Drain until the queue is empty; returns the job ids handled."""
        handled: list[str] = []
        for _ in range(max_batches):
            messages = self._dlq.receive(10, 1, 60)
            if not messages:
                break
            for message in messages:
                handled.append(self._handle(message))
        return handled

    def _handle(self, message: QueueMessage) -> str:
        email = trace = None
        try:
            request = parse_job_message(message.body)
            job_id, email, trace = request.job_id, request.email, request.trace_id
        except InvalidJobMessage as exc:
            job_id = exc.job_id or f"message-{message.message_id}"
            email, trace = exc.email, exc.trace_id
        existing = self._store.record(job_id)
        if existing is not None and existing.status is JobStatus.SUCCEEDED:
            if has_pending(existing):
                # Stored, but the email kept failing until the message was dead-lettered:
                # try it once more, and tell support whatever happens.
                settled = NotificationLedger(self._store, self._notifier).settle(
                    existing, ask_provider=True
                )
                self._tell_support(job_id, "the result is stored but the requester's email "
                                   f"could not be confirmed: {_email_state(settled)}")  # fmt: skip
            else:
                log.info("dead_letter_already_finished", extra={"job_id": job_id})
            self._dlq.delete(message)
            return job_id
        reason = (
            f"the job failed {message.receive_count} times and was moved to the dead-letter queue"
        )
        sent: list[NotificationRecord] = []
        personal = {"job_reference": job_id, "error_codes": "dead_lettered",
                    "error_message": reason}  # fmt: skip
        if self._support:
            sent.append(self._tell_support(job_id, reason))
        if email and not (existing and existing.notifications):
            sent.append(self._notifier.send(Notification(
                NotificationKind.FAILED, email, job_id, personal, job_id)))  # fmt: skip
        record = existing or JobRecord(job_id, JobStatus.FAILED, ("dead_lettered",), reason,
                                       self._clock.now(), (), trace)  # fmt: skip
        record = evolve(record, notifications=(*record.notifications, *sent))
        self._store.save(job_id, {}, record)
        self._dlq.delete(message)
        log.warning(
            "job_dead_lettered",
            extra={"job_id": job_id, "trace_id": trace, "receive_count": message.receive_count},
        )
        return job_id

    def _tell_support(self, job_id: str, reason: str) -> NotificationRecord:
        personal = {"job_reference": job_id, "error_codes": "dead_lettered",
                    "error_message": reason}  # fmt: skip
        if not self._support:
            log.warning("dead_letter_unreported", extra={"job_id": job_id, "reason": reason})
            return NotificationRecord(NotificationKind.DEAD_LETTERED, "", False,
                                      error="no_support_address")  # fmt: skip
        return self._notifier.send(
            Notification(NotificationKind.DEAD_LETTERED, self._support, job_id, personal, job_id)
        )


def _email_state(record: JobRecord) -> str:
    states = [
        f"{n.kind}: {'sent' if n.sent else (n.error or 'not sent')}"
        for n in record.notifications
        if n.kind is not NotificationKind.DEAD_LETTERED
    ]
    return ", ".join(states) or "none"
