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
from nrf.domain.jobs import (
    JobRecord,
    JobStatus,
    Notification,
    NotificationKind,
    NotificationRecord,
    ResultStoreUnavailable,
)
from nrf.domain.model import Development
from nrf.domain.ports import BoundaryDataRepository, Clock, JobBoundarySource, ResultStore
from nrf.domain.quote_refusal import quote_refusal
from nrf.domain.result_links import STORED_NAMES, ResultLinker, ResultLinks
from nrf.domain.results import AssessmentRun
from nrf.domain.rules import rule_set_named
from nrf.domain.validation import DEFAULT_LIMITS, InputLimits, validate_features
from nrf.service_layer.fail_job import FailJob
from nrf.service_layer.job_outcome import JobOutcome, OutcomeDecider, OutcomeStatus
from nrf.service_layer.notifications import (
    NotificationLedger,
    NotifySettings,
    completed_without_run,
    failure_fields,
    intent,
    personalisation,
    result_intent,
)
from nrf.service_layer.rerun_refused import MESSAGE_FILE

log = logging.getLogger("nrf.job")

Renderer = Callable[[AssessmentRun, list[Development]], Mapping[str, bytes]]


class ProcessJob:
    """Check the store, assess, store, notify; every job is judged on its own.

    The caller (the worker) holds the job's claim for as long as this runs: the job's
    receipt says whether that claim was the first ever taken.
    """

    def __init__(
        self,
        *,
        assess: AssessDevelopments,
        boundaries: JobBoundarySource,
        store: ResultStore,
        ledger: NotificationLedger,
        decider: OutcomeDecider,
        fail: FailJob,
        clock: Clock,
        render: Renderer,
        settings: NotifySettings | None = None,
        limits: InputLimits = DEFAULT_LIMITS,
        default_rules: str | None = None,
        report_results: bool = False,
        bundle: BoundaryDataRepository | None = None,
        quote_clock: Clock | None = None,
        links: ResultLinker | None = None,
    ) -> None:
        self._assess, self._boundaries, self._store = assess, boundaries, store
        self._ledger, self._decider, self._fail = ledger, decider, fail
        self._clock, self._render = clock, render
        self._settings, self._limits = settings or NotifySettings(), limits
        self._default_rules = default_rules
        # Defra quotes' results also go to the backend, as one more entry in the ledger.
        self._report_results = report_results
        # The open bundle: its EDP names check a Defra quote's, its digest says whether a
        # quote refused for want of data was refused by another bundle (and so may run again).
        self._bundle = bundle
        # Whose UTC day prices a quote: the job's start on the clock, unless a test pins it.
        self._quote_clock = quote_clock
        # The "completed" email's links to the stored files (presigned in S3).
        self._links = links

    def __call__(self, job: IncomingJob) -> JobOutcome:
        ctx = {"job_id": job.job_id, "trace_id": job.trace_id}
        try:
            body = job.body
            if isinstance(body, RejectedJob):
                return self._fail(body.job_id, body.error(), body.email, body.trace_id, job.receipt)
            return self._run(body, job.receipt, self._clock.now(), job.message.body)
        except (ResultStoreUnavailable, OSError) as exc:
            return self._decider.retry(
                job.receipt, job.job_id, getattr(exc, "code", "io_error"), ctx
            )
        except NrfError as exc:
            log.error("job_error", extra={**ctx, "code": exc.code, "error": exc.message})
            return self._decider.retry(job.receipt, job.job_id, exc.code, ctx)
        except Exception:
            log.exception("job_unexpected_error", extra=ctx)
            return self._decider.retry(job.receipt, job.job_id, "unexpected_error", ctx)

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

    def _missing_email(
        self, record: JobRecord, request: JobRequest
    ) -> tuple[str, dict[str, str]] | None:
        """The requester's email for a finished record saved without one (``nrf dlq``, an older
        worker), with every field its template needs: a failure's codes and message from the
        record; a success's figures are only in its stored report, so the email points there."""
        failed = record.status is JobStatus.FAILED
        wanted = NotificationKind.FAILED if failed else NotificationKind.COMPLETED
        if not request.email or any(n.kind is wanted for n in record.notifications):
            return None
        if failed:
            details = personalisation(self._settings, request, None)
            details.update(failure_fields(record.job_id, record.error_codes, record.message))
            return request.email, details
        links = self._links_to(request.job_id, STORED_NAMES)
        return request.email, completed_without_run(self._settings, request, links)

    def _links_to(self, job_id: str, names: tuple[str, ...]) -> ResultLinks | None:
        return self._links.links(job_id, names, self._clock.now()) if self._links else None

    # Long: the job's steps and its ending written out; the JobEnd seam of issue 29 shortens it.
    def _run(self, request: JobRequest, receipt: Receipt, started: float, body: str) -> JobOutcome:
        ctx: dict[str, Any] = {"job_id": request.job_id, "trace_id": request.trace_id}
        existing = self._store.record(request.job_id)
        rerun = existing is not None and self._refused_by_another_bundle(existing)
        if rerun:
            # Sent again (`nrf dlq --rerun`) after a bundle update: assessed afresh.
            assert existing is not None and existing.bundle is not None
            log.info("quote_rerun", extra={**ctx, "refused_by": existing.bundle.label()})
            existing = None
        if existing is not None:
            finished = self._ledger.finish(existing, self._missing_email(existing, request))
            return self._decider.already_finished(finished, receipt, ctx)
        if receipt.receive_count <= 1 and receipt.first_claim and request.email:
            # At most once: only the very first claim of a job ever sends it.
            self._ledger.send_unrecorded(
                Notification(
                    kind=NotificationKind.STARTED,
                    recipient=request.email,
                    job_id=request.job_id,
                    personalisation=personalisation(self._settings, request, None),
                    reference=request.job_id,
                )
            )
        try:
            developments = [self._development(request)]
            rules = rule_set_named(request.rules or self._default_rules)
        except InvalidInput as exc:
            return self._fail(request.job_id, exc, request.email, request.trace_id, receipt)
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
            edp_names = self._bundle.lookups().edps if self._bundle is not None else {}
            refusal = quote_refusal(run, request.edp_labels, edp_names)
            if refusal is not None:
                # No levy, so nothing to PATCH: failed now, as a retry would only say it again.
                # The message is kept so `nrf dlq --rerun` can send it after a bundle update.
                log.info("quote_refused", extra={**ctx, "code": refusal.code})
                files[MESSAGE_FILE] = body.encode("utf-8", "surrogatepass")
                return self._fail.refused(
                    request.job_id,
                    refusal,
                    request.email,
                    request.trace_id,
                    receipt,
                    files,
                    bundle,
                    rerun=rerun,
                )
        told: tuple[NotificationRecord, ...] = ()
        if request.email:
            links = self._links_to(request.job_id, tuple(n for n in STORED_NAMES if n in files))
            details = personalisation(self._settings, request, run, links)
            told = (intent(NotificationKind.COMPLETED, request.email, details),)
        if self._report_results and request.schema == "defra-quote":
            told += (result_intent(run.sites[0], request.trace_id, request.edp_labels),)
        record = JobRecord(
            job_id=request.job_id,
            status=JobStatus.SUCCEEDED,
            finished_at=self._clock.now(),
            notifications=told,
            trace_id=request.trace_id,
            bundle=bundle,
        )
        files["timings.json"] = (
            f'{{"started_at": {started}, "finished_at": {record.finished_at}, '
            f'"seconds": {record.finished_at - started:.3f}}}\n'
        ).encode()
        # The result and the intent to tell land together: a crash after this line is
        # finished by the next receive, which sends the email unless it went already.
        where = self._store.save(request.job_id, files, record)
        log.info("job_stored", extra={**ctx, "where": where})
        record = self._ledger.settle(record, ask_provider=False)
        return self._decider.end(record, receipt, OutcomeStatus.SUCCEEDED, ctx)
