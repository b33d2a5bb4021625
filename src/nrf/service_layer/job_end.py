"""Every ending of a job, in one function: store, settle, decide (:meth:`JobEnd.__call__`).

Success, failure, a refused quote, a dead letter and a job found already finished each hand
JobEnd the record, its files and the receipt; here alone is answered when the email goes and
when the message is deleted, so no use case writes its ending out by hand.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from attrs import field, frozen

from nrf.domain.boundary_codes import defra_codes
from nrf.domain.errors import InvalidInput, NrfError, Problem
from nrf.domain.fleet import BundleStamp
from nrf.domain.job_request import Receipt
from nrf.domain.jobs import JobRecord, JobStatus, ResultStoreUnavailable
from nrf.domain.ports import Clock, ResultStore
from nrf.domain.results import LevyRefusal
from nrf.domain.tell import FailedTell, FinishedTell, Tell
from nrf.service_layer.job_outcome import JobOutcome, OutcomeDecider, OutcomeStatus
from nrf.service_layer.notifications import NotificationLedger

log = logging.getLogger("nrf.job")


@frozen(kw_only=True)
class Ending:
    """One job's ending as its use case hands it over: the record (new, or ``found`` stored
    before), the result's files, the receipt, how the receive ended, and whom to tell."""

    record: JobRecord
    receipt: Receipt
    status: OutcomeStatus
    tell: Tell
    files: Mapping[str, bytes] = field(factory=dict)
    found: bool = False


class JobEnd:
    """Ends a job: its record and pending emails stored together, then sent, then the message's
    fate decided from what was settled."""

    def __init__(
        self,
        *,
        store: ResultStore,
        ledger: NotificationLedger,
        decider: OutcomeDecider,
        clock: Clock,
    ) -> None:
        self._store, self._ledger, self._decider, self._clock = store, ledger, decider, clock

    def __call__(self, end: Ending) -> JobOutcome:
        """Store → settle → decide, for every ending.

        When the email goes: a new record lands with the result's files and its pending
        entries in one save; only then does the ledger send each entry and save what became
        of it. A record ``found`` stored before is not stored again: what it left pending is
        settled, asking the provider first (an earlier receive may have sent it and died).

        When the message is deleted: once nothing in the record is pending. An entry still
        pending (the provider down) keeps it, to come back after the back-off and settle only
        that. A failure is deleted even when the store refuses its record (the requester is
        told anyway: retrying never makes bad input good), and so is a dead letter. When the
        store or the provider fails (the store down, a lookup refused) the message is kept to
        retry, except a dead letter's: the drain stops there, its message kept for the next.
        """
        record, receipt = end.record, end.receipt
        ctx: dict[str, Any] = {"job_id": record.job_id, "trace_id": record.trace_id}
        if record.error_codes:
            ctx["codes"] = list(record.error_codes)
        try:
            settled = self._ledger.store_and_settle(
                record, end.tell, files=end.files, found=end.found
            )
        except NrfError as exc:
            if end.status is OutcomeStatus.DEAD_LETTERED:
                raise
            return self._decider.retry(receipt, record.job_id, exc.code, ctx)
        if settled is None:
            return self._decider.unrecorded(record)
        if end.status is OutcomeStatus.ALREADY_FINISHED:
            return self._decider.already_finished(settled, receipt, ctx)
        return self._decider.end(settled, receipt, end.status, ctx)

    def retry(self, receipt: Receipt, job_id: str, code: str, ctx: dict[str, Any]) -> JobOutcome:
        """A receive that failed before its job could end: kept, back after the back-off."""
        return self._decider.retry(receipt, job_id, code, ctx)

    def failed(
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
        """Failed for good (bad input, a timeout, a refused quote): retrying never makes bad
        input good. A job found already ended is only finished; ``replace`` ignores it."""
        ctx = {"job_id": job_id, "trace_id": trace_id, "codes": error.codes}
        try:
            found = None if replace else self._store.record(job_id)
        except ResultStoreUnavailable:
            log.warning("result_store_unavailable", extra=ctx)
            found = None
        except NrfError as exc:  # a failed lookup: settle on the next receive
            return self._decider.retry(receipt, job_id, exc.code, ctx)
        if found is not None:
            # A bad message received again: it was failed (and told, or is being) before.
            again = OutcomeStatus.ALREADY_FINISHED
            return self(
                Ending(record=found, receipt=receipt, status=again, tell=FinishedTell(), found=True)
            )
        log.warning("job_invalid", extra={**ctx, "error": error.message[:2000]})
        record = JobRecord(
            job_id=job_id,
            status=JobStatus.FAILED,
            error_codes=tuple(error.codes),
            defra_codes=defra_codes(error.codes),
            message=error.message[:10_000],
            finished_at=self._clock.now(),
            trace_id=trace_id,
            bundle=bundle,
        )
        tell = FailedTell(email=email, to_support=tell_support)
        status = OutcomeStatus.FAILED
        return self(
            Ending(record=record, receipt=receipt, status=status, tell=tell, files=files or {})
        )

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
        return self.failed(
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
