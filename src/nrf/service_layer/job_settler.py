"""How a delivery ends once the job has a record: delete when every email is settled, else retry."""

from __future__ import annotations

import logging
from typing import Any

from attrs import evolve

from nrf.domain.job_request import Receipt
from nrf.domain.jobs import JobRecord, JobStatus, NotificationKind
from nrf.service_layer.job_outcome import JobOutcome, OutcomeStatus, RetryPolicy
from nrf.service_layer.notifications import NotificationLedger, has_pending, intent

log = logging.getLogger("nrf.job")


class JobSettler:
    """Shared by processing and failing a job: a retry, a settled end, a finished job met again."""

    def __init__(self, ledger: NotificationLedger, retry: RetryPolicy) -> None:
        self._ledger, self._retry = ledger, retry

    def retry(self, receipt: Receipt, job_id: str, code: str, ctx: dict[str, Any]) -> JobOutcome:
        outcome = self._retry.outcome(job_id, receipt.receive_count, code)
        log.warning(
            "job_retry",
            extra={
                **ctx,
                "code": code,
                "retry_after": outcome.retry_after,
                "receive_count": receipt.receive_count,
            },
        )
        return outcome

    def settled(
        self, record: JobRecord, receipt: Receipt, status: OutcomeStatus, ctx: dict[str, Any]
    ) -> JobOutcome:
        """Delete the message once every email is settled; else keep it to retry them."""
        if has_pending(record):
            return self.retry(receipt, record.job_id, "notification_pending", ctx)
        if status is OutcomeStatus.SUCCEEDED:
            log.info("job_succeeded", extra=ctx)
        return JobOutcome(
            job_id=record.job_id, status=status, delete=True, error_codes=record.error_codes
        )

    def finish_existing(
        self,
        record: JobRecord,
        receipt: Receipt,
        ctx: dict[str, Any],
        missing_email: tuple[str, dict[str, str]] | None = None,
    ) -> JobOutcome:
        """A job found finished: settle only its unsettled emails, never recompute it.

        ``missing_email`` (recipient, details) adds the requester's email when the record was
        written without its intent (``nrf dlq``, an older worker).
        """
        wanted = (
            NotificationKind.COMPLETED
            if record.status is JobStatus.SUCCEEDED
            else (NotificationKind.FAILED)
        )
        if missing_email and wanted not in {n.kind for n in record.notifications}:
            entry = intent(wanted, missing_email[0], missing_email[1])
            record = evolve(record, notifications=(*record.notifications, entry))
        if has_pending(record):
            record = self._ledger.settle(record, ask_provider=True)
        log.info("job_already_finished", extra={**ctx, "status": str(record.status)})
        return self.settled(record, receipt, OutcomeStatus.ALREADY_FINISHED, ctx)
