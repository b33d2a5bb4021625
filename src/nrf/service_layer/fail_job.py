"""Use case: record a job as failed for good (bad input, a timeout, a refused quote) and tell once.

A Defra quote given no levy (``refused``) fails the same way, at once, with its figures kept
beside the record and support told as well as the requester: it is the data, not the input,
that has to change.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from nrf.domain.boundary_codes import defra_codes
from nrf.domain.errors import InvalidInput, NrfError, Problem
from nrf.domain.fleet import BundleStamp
from nrf.domain.job_request import IncomingJob, Receipt
from nrf.domain.jobs import (
    JobRecord,
    JobStatus,
    NotificationKind,
    NotificationRecord,
    ResultStoreUnavailable,
)
from nrf.domain.ports import Clock, ResultStore
from nrf.domain.results import LevyRefusal
from nrf.service_layer.job_outcome import JobOutcome, OutcomeDecider, OutcomeStatus
from nrf.service_layer.notifications import (
    NotificationLedger,
    entry_notification,
    failure_fields,
    intent,
)

log = logging.getLogger("nrf.job")


def timeout_error(seconds: float) -> InvalidInput:
    return InvalidInput(
        [
            Problem(
                code="job_timeout",
                message=f"the assessment took longer than {seconds:g} s and was stopped; "
                "boundaries with very many vertices take far longer, so simplify the boundary "
                "and submit it again",
            )
        ]
    )


class FailJob:
    """Permanent failures: retrying never makes bad input good, so the message is deleted
    (once the failure's emails are settled; a pending one keeps it, as for any job)."""

    def __init__(
        self,
        *,
        store: ResultStore,
        ledger: NotificationLedger,
        decider: OutcomeDecider,
        clock: Clock,
        support_email: str | None = None,
    ) -> None:
        self._store, self._ledger, self._decider, self._clock = store, ledger, decider, clock
        self._support = support_email

    def refused(
        self,
        job_id: str,
        refusal: LevyRefusal,
        email: str | None,
        trace_id: str | None,
        receipt: Receipt,
        files: Mapping[str, bytes],
        bundle: BundleStamp,
        rerun: bool = False,
    ) -> JobOutcome:
        """A quote given no levy: failed with the refusal's code, its files kept, support told.

        The record names the bundle that refused it, so a later bundle may run it again; a
        ``rerun`` (refused before, by another bundle) replaces the earlier refusal's record.
        """
        error = InvalidInput([Problem(code=refusal.code, message=refusal.message)])
        return self(
            job_id,
            error,
            email,
            trace_id,
            receipt,
            files=files,
            tell_support=True,
            bundle=bundle,
            replace=rerun,
        )

    def timed_out(self, job: IncomingJob, seconds: float) -> JobOutcome:
        """The job's process was killed after ``seconds``: fail it for good (it would again).

        Runs in the worker process, which still holds the job's claim.
        """
        return self(job.job_id, timeout_error(seconds), job.email, job.trace_id, job.receipt)

    # Long: a failure's store, settle and decide steps; to move into one JobEnd seam (issue 29).
    def __call__(
        self,
        job_id: str,
        error: InvalidInput,
        email: str | None,
        trace_id: str | None,
        receipt: Receipt,
        *,
        files: Mapping[str, bytes] | None = None,
        tell_support: bool = False,
        bundle: BundleStamp | None = None,
        replace: bool = False,
    ) -> JobOutcome:
        ctx = {"job_id": job_id, "trace_id": trace_id, "codes": error.codes}
        try:
            existing = None if replace else self._store.record(job_id)
            if existing is not None:
                # A bad message received again: it was failed (and told, or is being) before.
                finished = self._ledger.finish(existing)
                return self._decider.already_finished(finished, receipt, ctx)
        except ResultStoreUnavailable:
            log.warning("result_store_unavailable", extra=ctx)
        except NrfError as exc:  # a failed lookup: settle on the next receive
            return self._decider.retry(receipt, job_id, exc.code, ctx)
        log.warning("job_invalid", extra={**ctx, "error": error.message[:2000]})
        told: tuple[NotificationRecord, ...] = ()
        personal = failure_fields(job_id, error.codes, error.message)
        if email:
            told = (intent(NotificationKind.FAILED, email, personal),)
        if tell_support and self._support:
            told += (intent(NotificationKind.QUOTE_REFUSED, self._support, personal),)
        elif tell_support:
            log.warning("quote_refusal_unreported", extra={**ctx, "reason": "no support address"})
        record = JobRecord(
            job_id=job_id,
            status=JobStatus.FAILED,
            error_codes=tuple(error.codes),
            defra_codes=defra_codes(error.codes),
            message=error.message[:10_000],
            finished_at=self._clock.now(),
            notifications=told,
            trace_id=trace_id,
            bundle=bundle,
        )
        try:
            self._store.save(job_id, dict(files or {}), record)
        except ResultStoreUnavailable:
            # Told anyway, and the message still deleted: retrying never makes bad input good.
            log.warning("failure_not_recorded", extra=ctx)
            for entry in told:
                self._ledger.send_unrecorded(entry_notification(entry, job_id))
            return JobOutcome(
                job_id=job_id,
                status=OutcomeStatus.FAILED,
                delete=True,
                error_codes=tuple(error.codes),
            )
        try:
            record = self._ledger.settle(record, ask_provider=False)
        except NrfError as exc:  # the intent is stored: the next receive settles it
            return self._decider.retry(receipt, job_id, exc.code, ctx)
        return self._decider.end(record, receipt, OutcomeStatus.FAILED, ctx)
