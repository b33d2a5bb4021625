"""How a receive ends: what the queue does with the message, and the one retry back-off.

When the message is deleted: :meth:`OutcomeDecider.end` deletes it once the job's record is
stored and no entry of it is still pending (:meth:`JobRecord.has_pending`; ``notifications.py``
sends the entries). Otherwise, and on any transient failure, the message is kept and comes
back after the back-off of :class:`RetryPolicy`; that receive finds the record and settles
what is left (``NotificationLedger.finish``) without assessing the job again. Three ends
delete a message without a settled record: a copy of a job another message holds
(the worker's ``InFlight``), and bad input whose failure could not be stored
(:meth:`OutcomeDecider.unrecorded`: its requester is told anyway, and retrying never makes bad
input good), and a dead letter (``nrf dlq``: ended on the record, with support told).
``job_end.py`` is where every ending reaches this decision.
"""

from __future__ import annotations

import logging
import random
from enum import StrEnum
from typing import Any

from attrs import define, field, frozen

from nrf.domain.job_request import Receipt
from nrf.domain.jobs import JobRecord

log = logging.getLogger("nrf.job")


class OutcomeStatus(StrEnum):
    """How one receive of a job ended (the job itself may have ended earlier)."""

    SUCCEEDED = "succeeded"
    FAILED = "failed"
    ALREADY_FINISHED = "already_finished"
    CLAIMED_ELSEWHERE = "claimed_elsewhere"  # an earlier receive of this message holds it
    DUPLICATE = "duplicate"  # another message holds the job: this copy is deleted
    RETRY = "retry"
    DEAD_LETTERED = "dead_lettered"  # ended by `nrf dlq`: deleted, even with an email pending


@frozen(kw_only=True)
class JobOutcome:
    """What the queue should do with the message: delete it, or retry after ``retry_after``."""

    job_id: str | None
    status: OutcomeStatus
    delete: bool
    retry_after: int = 0
    error_codes: tuple[str, ...] = ()


def retry_delay(receive_count: int, base: int = 30, cap: int = 900, jitter: float = 0.0) -> int:
    """Visibility for a transient failure: base × 2^(n−1), capped, plus up to ``jitter`` share."""
    delay = min(cap, base * 2 ** max(0, receive_count - 1))
    return int(min(cap, delay * (1 + jitter)))


@define
class RetryPolicy:
    """The one place a failed receive's back-off is decided: ``NRF_RETRY_BASE_SECONDS``
    doubling per receive.

    Up to 20 % jitter, so jobs that failed together do not all come back together. (A message
    whose earlier receive still holds the job is not a failure: it waits out that lease,
    ``InFlight.claim``.)
    """

    base_seconds: int = 30
    cap_seconds: int = 900
    rng: random.Random = field(factory=random.Random)

    def delay(self, receive_count: int) -> int:
        return retry_delay(
            receive_count,
            base=self.base_seconds,
            cap=self.cap_seconds,
            jitter=self.rng.random() * 0.2,
        )

    def outcome(self, job_id: str | None, receive_count: int, code: str) -> JobOutcome:
        return JobOutcome(
            job_id=job_id,
            status=OutcomeStatus.RETRY,
            delete=False,
            retry_after=self.delay(receive_count),
            error_codes=(code,),
        )

    def logged(self, receipt: Receipt, job_id: str, code: str, ctx: dict[str, Any]) -> JobOutcome:
        """A retry of a job, logged once here as ``job_retry`` whoever decides it."""
        outcome = self.outcome(job_id, receipt.receive_count, code)
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


class OutcomeDecider:
    """Whether a job's message is deleted or kept to retry, for processing and failing alike.

    It sends nothing: the ledger (``notifications.py``) has settled the record it is given
    ("settle" is the ledger's word only: send what is pending and record what happened).
    """

    def __init__(self, retry: RetryPolicy) -> None:
        self._retry = retry

    def retry(self, receipt: Receipt, job_id: str, code: str, ctx: dict[str, Any]) -> JobOutcome:
        return self._retry.logged(receipt, job_id, code, ctx)

    def end(
        self, record: JobRecord, receipt: Receipt, status: OutcomeStatus, ctx: dict[str, Any]
    ) -> JobOutcome:
        """Delete the message once every email is settled; else keep it to retry them.

        A dead letter's is deleted anyway: its job is ended on the record and support told
        (or the entry says why not), and nothing would ever receive it again.
        """
        if record.has_pending() and status is not OutcomeStatus.DEAD_LETTERED:
            return self.retry(receipt, record.job_id, "notification_pending", ctx)
        if status is OutcomeStatus.SUCCEEDED:
            log.info("job_succeeded", extra=ctx)
        return JobOutcome(
            job_id=record.job_id, status=status, delete=True, error_codes=record.error_codes
        )

    def unrecorded(self, record: JobRecord) -> JobOutcome:
        """Bad input whose failure the store refused: deleted, its requester told anyway."""
        return JobOutcome(
            job_id=record.job_id,
            status=OutcomeStatus.FAILED,
            delete=True,
            error_codes=record.error_codes,
        )

    def already_finished(
        self, record: JobRecord, receipt: Receipt, ctx: dict[str, Any]
    ) -> JobOutcome:
        """A job found finished, its emails settled again by the ledger: never recomputed."""
        log.info("job_already_finished", extra={**ctx, "status": str(record.status)})
        return self.end(record, receipt, OutcomeStatus.ALREADY_FINISHED, ctx)
