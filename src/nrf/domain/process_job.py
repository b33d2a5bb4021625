"""Use case: process one queue message into a stored result and a notification, exactly once."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping

import shapely
from attrs import evolve, frozen

from nrf.domain.assessment import AssessDevelopments
from nrf.domain.errors import InvalidInput, NrfError
from nrf.domain.job_message import InvalidJobMessage, JobRequest, parse_job_message
from nrf.domain.jobs import (
    JobRecord,
    JobStatus,
    Notification,
    NotificationKind,
    NotificationRecord,
    QueueMessage,
    ResultStoreUnavailable,
)
from nrf.domain.model import Development
from nrf.domain.ports import Clock, JobBoundarySource, Notifier, ResultStore
from nrf.domain.results import AssessmentRun
from nrf.domain.rules import rule_set_named
from nrf.domain.validation import DEFAULT_LIMITS, InputLimits, RawFeature, validate_features

log = logging.getLogger("nrf.job")

Renderer = Callable[[AssessmentRun, list[Development]], Mapping[str, bytes]]


@frozen
class JobOutcome:
    """What the queue should do with the message: delete it, or retry after ``retry_after``."""

    job_id: str | None
    status: str  # succeeded, failed, already_finished, retry
    delete: bool
    retry_after: int = 0
    error_codes: tuple[str, ...] = ()


@frozen
class NotifySettings:
    """Where emails go and what they link to."""

    results_base_url: str = ""
    support_email: str | None = None


def retry_delay(receive_count: int, base: int = 30, cap: int = 900, jitter: float = 0.0) -> int:
    """Visibility for a transient failure: base × 2^(n−1), capped, plus up to ``jitter`` share."""
    delay = min(cap, base * 2 ** max(0, receive_count - 1))
    return int(min(cap, delay * (1 + jitter)))


class ProcessJob:
    """Parse, check the store, assess, store, notify; every message is judged on its own."""

    def __init__(
        self,
        assess: AssessDevelopments,
        boundaries: JobBoundarySource,
        store: ResultStore,
        notifier: Notifier,
        clock: Clock,
        render: Renderer,
        settings: NotifySettings = NotifySettings(),
        limits: InputLimits = DEFAULT_LIMITS,
        rng: random.Random | None = None,
        default_rules: str | None = None,
    ) -> None:
        self._assess, self._boundaries, self._store = assess, boundaries, store
        self._notifier, self._clock, self._render = notifier, clock, render
        self._settings, self._limits = settings, limits
        self._rng = rng or random.Random()
        self._default_rules = default_rules

    def __call__(self, message: QueueMessage) -> JobOutcome:
        started = self._clock.now()
        try:
            request = parse_job_message(message.body)
        except InvalidJobMessage as exc:
            job_id = exc.job_id or f"message-{message.message_id}"
            return self._fail_permanently(job_id, exc, exc.email, exc.trace_id, started)
        ctx = {"job_id": request.job_id, "trace_id": request.trace_id}
        try:
            existing = self._store.record(request.job_id)
            if existing is not None:
                return self._finish_existing(existing, request, ctx)
            if message.receive_count <= 1 and request.email:
                self._notify(NotificationKind.STARTED, request.email, request.job_id,
                             self._personalisation(request, None))  # fmt: skip
            try:
                developments = [self._development(request)]
                rules = rule_set_named(request.rules or self._default_rules)
            except InvalidInput as exc:
                return self._fail_permanently(
                    request.job_id, exc, request.email, request.trace_id, started
                )
            run = self._assess(developments, rules)
            files = dict(self._render(run, developments))
            record = JobRecord(request.job_id, JobStatus.SUCCEEDED, (), "", self._clock.now(),
                               (), request.trace_id)  # fmt: skip
            files["timings.json"] = (
                f'{{"started_at": {started}, "finished_at": {record.finished_at}, '
                f'"seconds": {record.finished_at - started:.3f}}}\n'
            ).encode()
            where = self._store.save(request.job_id, files, record)
            log.info("job_stored", extra={**ctx, "where": where})
            return self._notify_completed(record, request, run, ctx)
        except (ResultStoreUnavailable, OSError) as exc:
            return self._retry(message, request.job_id, getattr(exc, "code", "io_error"), ctx)
        except NrfError as exc:
            log.error("job_error", extra={**ctx, "code": exc.code, "error": exc.message})
            return self._retry(message, request.job_id, exc.code, ctx)
        except Exception:
            log.exception("job_unexpected_error", extra=ctx)
            return self._retry(message, request.job_id, "unexpected_error", ctx)

    # -- steps -------------------------------------------------------------------------

    def _development(self, request: JobRequest) -> Development:
        raw = self._boundaries.features(request)
        props = {
            "id": request.job_id, "name": request.development_name,
            "dwelling_category": request.dwelling_category, "source": request.source,
            "dwellings": request.dwellings,
        }  # fmt: skip
        # A job is one development: every feature's properties come from the message.
        stamped = [RawFeature(f.index, props, f.geometry, f.crs, f.problems) for f in raw]
        devs = validate_features(stamped, self._limits)
        boundary = devs[0].boundary if len(devs) == 1 else shapely.union_all(
            [d.boundary for d in devs])  # fmt: skip
        return evolve(devs[0], rlb_id=1, boundary=boundary)

    def _finish_existing(self, record: JobRecord, request: JobRequest, ctx: dict) -> JobOutcome:
        kinds = {n.kind for n in record.notifications}
        wanted = NotificationKind.COMPLETED if record.status is JobStatus.SUCCEEDED else (
            NotificationKind.FAILED)  # fmt: skip
        if request.email and wanted not in kinds:
            # Stored but not yet told (the last attempt stopped in between): tell now, once.
            personal = self._personalisation(request, None)
            sent = self._notify(wanted, request.email, request.job_id, personal)
            self._store.save(request.job_id, {}, evolve(
                record, notifications=(*record.notifications, sent)))  # fmt: skip
        log.info("job_already_finished", extra={**ctx, "status": str(record.status)})
        return JobOutcome(request.job_id, "already_finished", delete=True)

    def _notify_completed(
        self, record: JobRecord, request: JobRequest, run: AssessmentRun, ctx: dict
    ) -> JobOutcome:
        if request.email:
            sent = self._notify(NotificationKind.COMPLETED, request.email, request.job_id,
                                self._personalisation(request, run))  # fmt: skip
            try:
                self._store.save(request.job_id, {}, evolve(record, notifications=(sent,)))
            except ResultStoreUnavailable:
                log.warning("notification_not_recorded", extra=ctx)
        log.info("job_succeeded", extra=ctx)
        return JobOutcome(request.job_id, "succeeded", delete=True)

    def _fail_permanently(
        self,
        job_id: str,
        error: InvalidInput,
        email: str | None,
        trace_id: str | None,
        started: float,
    ) -> JobOutcome:
        ctx = {"job_id": job_id, "trace_id": trace_id, "codes": error.codes}
        try:
            if self._store.record(job_id) is not None:
                # A redelivered bad message: it was failed and reported the first time.
                log.info("job_already_finished", extra={**ctx, "status": "failed"})
                return JobOutcome(job_id, "already_finished", delete=True)
        except ResultStoreUnavailable:
            log.warning("result_store_unavailable", extra=ctx)
        log.warning("job_invalid", extra={**ctx, "error": error.message[:2000]})
        notifications: tuple[NotificationRecord, ...] = ()
        if email:
            personal = {"job_reference": job_id, "error_codes": ", ".join(error.codes),
                        "error_message": error.message[:2000]}  # fmt: skip
            notifications = (self._notify(NotificationKind.FAILED, email, job_id, personal),)
        record = JobRecord(job_id, JobStatus.FAILED, tuple(error.codes), error.message[:10_000],
                           self._clock.now(), notifications, trace_id)  # fmt: skip
        try:
            self._store.save(job_id, {}, record)
        except ResultStoreUnavailable:
            # The message is still deleted: retrying can never make bad input good.
            log.warning("failure_not_recorded", extra=ctx)
        return JobOutcome(job_id, "failed", delete=True, error_codes=tuple(error.codes))

    def _retry(self, message: QueueMessage, job_id: str, code: str, ctx: dict) -> JobOutcome:
        delay = retry_delay(message.receive_count, jitter=self._rng.random() * 0.2)
        log.warning("job_retry", extra={**ctx, "code": code, "retry_after": delay,
                                         "receive_count": message.receive_count})  # fmt: skip
        return JobOutcome(job_id, "retry", delete=False, retry_after=delay, error_codes=(code,))

    def _notify(
        self, kind: NotificationKind, recipient: str, job_id: str, personal: Mapping[str, str]
    ) -> NotificationRecord:
        sent = self._notifier.send(Notification(kind, recipient, job_id, personal, job_id))
        if not sent.sent:
            log.warning("notification_failed", extra={"job_id": job_id, "kind": str(kind),
                                                       "error": sent.error})  # fmt: skip
        return sent

    def _personalisation(self, request: JobRequest, run: AssessmentRun | None) -> dict[str, str]:
        base = self._settings.results_base_url.rstrip("/")
        personal = {
            "job_reference": request.job_id,
            "development_name": request.development_name or "Unnamed development",
            "results_link": f"{base}/{request.job_id}" if base else request.job_id,
        }
        if run is not None:
            n = sum(round(s.n_total * 100) for s in run.sites) / 100
            p = sum(round(s.p_total * 100) for s in run.sites) / 100
            levy = run.levy_total
            personal.update({
                "nitrogen_total_kg_per_year": f"{n:.2f}",
                "phosphorus_total_kg_per_year": f"{p:.2f}",
                "levy_amount": f"£{levy.levy_gbp:,.2f}",
                "monitoring_amount": f"£{levy.monitoring_gbp:,.2f}",
                "maintenance_amount": f"£{levy.maintenance_gbp:,.2f}",
                "admin_amount": f"£{levy.admin_gbp:,.2f}",
                "in_scope": "yes" if run.sites else "no",
            })  # fmt: skip
        return personal
