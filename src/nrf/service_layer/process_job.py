"""Use case: turn one claimed job into a stored result and a notification, exactly once."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

import shapely
from attrs import evolve

from nrf.domain.assessment import AssessDevelopments
from nrf.domain.charging import utc_day
from nrf.domain.errors import InvalidInput, NrfError
from nrf.domain.fleet import BundleStamp
from nrf.domain.job_request import IncomingJob, JobRequest, Receipt, RejectedJob
from nrf.domain.jobs import JobRecord, JobStatus, ResultStoreUnavailable
from nrf.domain.model import Development
from nrf.domain.ports import BoundaryDataRepository, Clock, JobBoundarySource, ResultStore
from nrf.domain.quote_refusal import quote_refusal
from nrf.domain.results import AssessmentRun
from nrf.domain.rules import rule_set_named
from nrf.domain.tell import CompletedTell, FinishedTell
from nrf.domain.validation import DEFAULT_LIMITS, InputLimits, validate_features
from nrf.service_layer.job_end import Ending, JobEnd
from nrf.service_layer.job_outcome import JobOutcome, OutcomeStatus
from nrf.service_layer.rerun_refused import MESSAGE_FILE
from nrf.service_layer.started_email import StartedEmail

log = logging.getLogger("nrf.job")

Renderer = Callable[[AssessmentRun, list[Development]], Mapping[str, bytes]]


class ProcessJob:
    """Check the store, assess, render; every job is judged on its own, and ended by JobEnd.

    The caller (the worker) holds the job's claim for as long as this runs: the job's
    receipt says whether that claim was the first ever taken.
    """

    def __init__(
        self,
        *,
        assess: AssessDevelopments,
        boundaries: JobBoundarySource,
        store: ResultStore,
        started: StartedEmail,
        end: JobEnd,
        clock: Clock,
        render: Renderer,
        limits: InputLimits = DEFAULT_LIMITS,
        default_rules: str | None = None,
        bundle: BoundaryDataRepository | None = None,
        quote_clock: Clock | None = None,
    ) -> None:
        self._assess, self._boundaries, self._store = assess, boundaries, store
        # The "started" email goes before the work; every ending's emails go through ``end``.
        self._started, self._end = started, end
        self._clock, self._render = clock, render
        self._limits, self._default_rules = limits, default_rules
        # The open bundle: its EDP names check a Defra quote's, its digest says whether a
        # quote refused for want of data was refused by another bundle (and so may run again).
        self._bundle = bundle
        # Whose UTC day prices a quote: the job's start on the clock, unless a test pins it.
        self._quote_clock = quote_clock

    def __call__(self, job: IncomingJob) -> JobOutcome:
        ctx = {"job_id": job.job_id, "trace_id": job.trace_id}
        try:
            body = job.body
            if isinstance(body, RejectedJob):
                error = body.error()
                return self._end.failed(body.job_id, error, body.email, body.trace_id, job.receipt)
            return self._run(body, job.receipt, self._clock.now(), job.message.body)
        except (ResultStoreUnavailable, OSError) as exc:
            return self._end.retry(job.receipt, job.job_id, getattr(exc, "code", "io_error"), ctx)
        except NrfError as exc:
            log.error("job_error", extra={**ctx, "code": exc.code, "error": exc.message})
            return self._end.retry(job.receipt, job.job_id, exc.code, ctx)
        except Exception:
            log.exception("job_unexpected_error", extra=ctx)
            return self._end.retry(job.receipt, job.job_id, "unexpected_error", ctx)

    def _development(self, request: JobRequest) -> Development:
        raw = self._boundaries.features(request)
        props = {
            "id": request.job_id,
            "name": request.development_name,
            "dwelling_category": request.dwelling_category,
            "source": request.source,
            "dwellings": request.dwellings,
        }
        # A job is one development: every feature's properties come from the message.
        stamped = [evolve(f, properties=props) for f in raw]
        devs = validate_features(stamped, self._limits)
        boundary = (
            devs[0].boundary if len(devs) == 1 else shapely.union_all([d.boundary for d in devs])
        )
        return evolve(devs[0], rlb_id=1, boundary=boundary)

    def _refused_by_another_bundle(self, record: JobRecord) -> bool:
        """A quote failed for want of data (stamped with its bundle) that another bundle refused."""
        if record.status is not JobStatus.FAILED or record.bundle is None or self._bundle is None:
            return False
        return record.bundle.sha256 != self._bundle.info().sha256

    def _run(self, request: JobRequest, receipt: Receipt, started: float, body: str) -> JobOutcome:
        ctx: dict[str, Any] = {"job_id": request.job_id, "trace_id": request.trace_id}
        existing = self._store.record(request.job_id)
        rerun = existing is not None and self._refused_by_another_bundle(existing)
        if existing is not None and rerun:
            # Sent again (`nrf dlq --rerun`) after a bundle update: assessed afresh.
            assert existing.bundle is not None
            log.info("quote_rerun", extra={**ctx, "refused_by": existing.bundle.label()})
        elif existing is not None:
            again, finished = OutcomeStatus.ALREADY_FINISHED, FinishedTell(request=request)
            return self._end(
                Ending(record=existing, receipt=receipt, status=again, tell=finished, found=True)
            )
        if receipt.receive_count <= 1 and receipt.first_claim and request.email:
            # At most once: only the very first claim of a job ever sends it.
            self._started(request)
        try:
            developments = [self._development(request)]
            rules = rule_set_named(request.rules or self._default_rules)
        except InvalidInput as exc:
            return self._end.failed(request.job_id, exc, request.email, request.trace_id, receipt)
        priced_at = started if self._quote_clock is None else self._quote_clock.now()
        run = self._assess(developments, rules, utc_day(priced_at))
        for warning in run.warnings:  # also in result.json and the report
            log.warning(
                "run_warning", extra={**ctx, "code": warning.code, "warning": warning.message}
            )
        files = dict(self._render(run, developments))
        source = run.provenance
        bundle = BundleStamp(
            name=source.bundle_name, version=source.bundle_version, sha256=source.bundle_sha256
        )
        if request.schema == "defra-quote":
            refused = self._refused(request, run, receipt, files, bundle, body, rerun, ctx)
            if refused is not None:
                return refused
        record = JobRecord(
            job_id=request.job_id,
            status=JobStatus.SUCCEEDED,
            finished_at=self._clock.now(),
            trace_id=request.trace_id,
            bundle=bundle,
        )
        files["timings.json"] = (
            f'{{"started_at": {started}, "finished_at": {record.finished_at}, '
            f'"seconds": {record.finished_at - started:.3f}}}\n'
        ).encode()
        tell = CompletedTell(request=request, run=run)
        done = OutcomeStatus.SUCCEEDED
        return self._end(
            Ending(record=record, receipt=receipt, status=done, tell=tell, files=files)
        )

    def _refused(
        self,
        request: JobRequest,
        run: AssessmentRun,
        receipt: Receipt,
        files: dict[str, bytes],
        bundle: BundleStamp,
        body: str,
        rerun: bool,
        ctx: dict[str, Any],
    ) -> JobOutcome | None:
        """A Defra quote given no levy: nothing to PATCH, so failed now, as a retry would only
        say it again; its message is kept so `nrf dlq --rerun` can send it after a bundle update."""
        edp_names = self._bundle.lookups().edps if self._bundle is not None else {}
        refusal = quote_refusal(run, request.edp_labels, edp_names)
        if refusal is None:
            return None
        log.info("quote_refused", extra={**ctx, "code": refusal.code})
        files[MESSAGE_FILE] = body.encode("utf-8", "surrogatepass")
        return self._end.refused(
            request.job_id,
            refusal,
            request.email,
            request.trace_id,
            receipt,
            files,
            bundle,
            rerun=rerun,
        )
