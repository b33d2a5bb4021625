"""Use case: process one queue message into a stored result and a notification, exactly once."""

from __future__ import annotations

import contextlib
import logging
import random
from collections.abc import Callable, Mapping

import shapely
from attrs import evolve

from nrf.domain.assessment import AssessDevelopments
from nrf.domain.claims import Lease, claim_owner
from nrf.domain.errors import InvalidInput, NrfError, Problem
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
from nrf.service_layer.job_emails import NotifySettings, personalisation
from nrf.service_layer.job_outcome import JobOutcome, retry_delay
from nrf.service_layer.notification_ledger import NotificationLedger, has_pending, intent
from nrf.service_layer.result_delivery import result_intent

log = logging.getLogger("nrf.job")

Renderer = Callable[[AssessmentRun, list[Development]], Mapping[str, bytes]]


class ProcessJob:
    """Claim, check the store, assess, store, notify; every message is judged on its own."""

    def __init__(
        self,
        assess: AssessDevelopments,
        boundaries: JobBoundarySource,
        store: ResultStore,
        notifier: Notifier,
        clock: Clock,
        render: Renderer,
        settings: NotifySettings | None = None,
        limits: InputLimits = DEFAULT_LIMITS,
        rng: random.Random | None = None,
        default_rules: str | None = None,
        lease_seconds: float = 600.0,
        retry_base: int = 30,
        report_results: bool = False,
    ) -> None:
        self._assess, self._boundaries, self._store = assess, boundaries, store
        self._notifier, self._clock, self._render = notifier, clock, render
        self._settings, self._limits = settings or NotifySettings(), limits
        self._rng = rng or random.Random()
        self._default_rules = default_rules
        self._lease_seconds, self._retry_base = lease_seconds, retry_base
        self._ledger = NotificationLedger(store, notifier)
        # Defra quotes' results also go to the backend, as one more entry in the ledger.
        self._report_results = report_results

    def __call__(self, message: QueueMessage) -> JobOutcome:
        started = self._clock.now()
        try:
            request = parse_job_message(message.body)
        except InvalidJobMessage as exc:
            bad, job_id = exc, exc.job_id or f"message-{message.message_id}"
            # Claimed too, so two copies of one bad message cannot both email the requester;
            # but a store that is down must not keep bad input on the queue.
            return self._under_claim(
                message, job_id, bad.trace_id,
                lambda _: self._fail_permanently(job_id, bad, bad.email, bad.trace_id, message),
                required=False,
            )  # fmt: skip

        def run(lease: Lease | None) -> JobOutcome:
            assert lease is not None  # the claim is required here
            return self._run(message, request, lease, started)

        return self._under_claim(message, request.job_id, request.trace_id, run)

    def timed_out(self, message: QueueMessage, seconds: float) -> JobOutcome:
        """The job's process was killed after ``seconds``: fail it for good (it would again)."""
        try:
            request = parse_job_message(message.body)
        except InvalidJobMessage as exc:
            job_id = exc.job_id or f"message-{message.message_id}"
            return self._fail_permanently(job_id, exc, exc.email, exc.trace_id, message)
        error = InvalidInput([Problem(
            "job_timeout",
            f"the assessment took longer than {seconds:g} s and was stopped; boundaries with "
            "very many vertices take far longer, so simplify the boundary and submit it again",
        )])  # fmt: skip
        return self._under_claim(message, request.job_id, request.trace_id, lambda lease: (
            self._fail_permanently(request.job_id, error, request.email, request.trace_id, message)
        ))  # fmt: skip

    # -- steps -------------------------------------------------------------------------

    def _under_claim(
        self,
        message: QueueMessage,
        job_id: str,
        trace_id: str | None,
        work: Callable[[Lease | None], JobOutcome],
        required: bool = True,
    ) -> JobOutcome:
        """Run ``work`` only while holding the job's claim; another holder means retry later.

        With ``required=False`` a store that cannot be reached does not stop the work.
        """
        ctx = {"job_id": job_id, "trace_id": trace_id}
        owner = claim_owner(message)
        try:
            try:
                lease = self._store.claim(job_id, owner, self._clock.now(), self._lease_seconds)
            except (ResultStoreUnavailable, OSError):
                if required:
                    raise
                log.warning("claim_unavailable", extra=ctx)
                return work(None)
            if not lease.held_by(owner):
                delay = min(900, lease.seconds_left(self._clock.now()) + 1)
                log.info("job_claimed_elsewhere", extra={**ctx, "retry_after": delay})
                return JobOutcome(job_id, "claimed_elsewhere", False, delay,
                                  ("claimed_elsewhere",))  # fmt: skip
            try:
                return work(lease)
            finally:
                with contextlib.suppress(ResultStoreUnavailable, OSError):
                    self._store.release(job_id, owner, self._clock.now())
        except (ResultStoreUnavailable, OSError) as exc:
            return self._retry(message, job_id, getattr(exc, "code", "io_error"), ctx)
        except NrfError as exc:
            log.error("job_error", extra={**ctx, "code": exc.code, "error": exc.message})
            return self._retry(message, job_id, exc.code, ctx)
        except Exception:
            log.exception("job_unexpected_error", extra=ctx)
            return self._retry(message, job_id, "unexpected_error", ctx)

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

    def _run(
        self, message: QueueMessage, request: JobRequest, lease: Lease, started: float
    ) -> JobOutcome:
        ctx = {"job_id": request.job_id, "trace_id": request.trace_id}
        existing = self._store.record(request.job_id)
        if existing is not None:
            return self._finish_existing(existing, request, message, ctx)
        if message.receive_count <= 1 and lease.first and request.email:
            # At most once: only the very first claim of a job ever sends it.
            self._notify(NotificationKind.STARTED, request.email, request.job_id,
                         personalisation(self._settings, request, None))  # fmt: skip
        try:
            developments = [self._development(request)]
            rules = rule_set_named(request.rules or self._default_rules)
        except InvalidInput as exc:
            return self._fail_permanently(
                request.job_id, exc, request.email, request.trace_id, message
            )
        run = self._assess(developments, rules)
        files = dict(self._render(run, developments))
        told: tuple[NotificationRecord, ...] = ()
        if request.email:
            details = personalisation(self._settings, request, run)
            told = (intent(NotificationKind.COMPLETED, request.email, details),)
        if self._report_results and request.schema == "defra-quote":
            told += (result_intent(run, request.trace_id),)
        record = JobRecord(request.job_id, JobStatus.SUCCEEDED, (), "", self._clock.now(),
                           told, request.trace_id)  # fmt: skip
        files["timings.json"] = (
            f'{{"started_at": {started}, "finished_at": {record.finished_at}, '
            f'"seconds": {record.finished_at - started:.3f}}}\n'
        ).encode()
        # The result and the intent to tell land together: a crash after this line is
        # finished by the next delivery, which sends the email unless it went already.
        where = self._store.save(request.job_id, files, record)
        log.info("job_stored", extra={**ctx, "where": where})
        record = self._ledger.settle(record, ask_provider=False)
        return self._settled(record, message, "succeeded", ctx)

    def _finish_existing(
        self, record: JobRecord, request: JobRequest, message: QueueMessage, ctx: dict
    ) -> JobOutcome:
        kinds = {n.kind for n in record.notifications}
        wanted = NotificationKind.COMPLETED if record.status is JobStatus.SUCCEEDED else (
            NotificationKind.FAILED)  # fmt: skip
        if request.email and wanted not in kinds:
            # A record written without its email's intent (nrf dlq, an older worker).
            entry = intent(wanted, request.email, personalisation(self._settings, request, None))
            record = evolve(record, notifications=(*record.notifications, entry))
        if has_pending(record):
            record = self._ledger.settle(record, ask_provider=True)
        log.info("job_already_finished", extra={**ctx, "status": str(record.status)})
        return self._settled(record, message, "already_finished", ctx)

    def _settled(
        self, record: JobRecord, message: QueueMessage, status: str, ctx: dict
    ) -> JobOutcome:
        """Delete the message once every email is settled; else keep it to retry them."""
        if has_pending(record):
            return self._retry(message, record.job_id, "notification_pending", ctx)
        if status == "succeeded":
            log.info("job_succeeded", extra=ctx)
        return JobOutcome(record.job_id, status, delete=True,
                          error_codes=record.error_codes)  # fmt: skip

    def _fail_permanently(
        self,
        job_id: str,
        error: InvalidInput,
        email: str | None,
        trace_id: str | None,
        message: QueueMessage,
    ) -> JobOutcome:
        ctx = {"job_id": job_id, "trace_id": trace_id, "codes": error.codes}
        try:
            existing = self._store.record(job_id)
            if existing is not None:
                # A redelivered bad message: it was failed (and told, or is being) before.
                if has_pending(existing):
                    existing = self._ledger.settle(existing, ask_provider=True)
                log.info("job_already_finished", extra={**ctx, "status": str(existing.status)})
                return self._settled(existing, message, "already_finished", ctx)
        except ResultStoreUnavailable:
            log.warning("result_store_unavailable", extra=ctx)
        except NrfError as exc:  # a failed lookup: settle on the next delivery
            return self._retry(message, job_id, exc.code, ctx)
        log.warning("job_invalid", extra={**ctx, "error": error.message[:2000]})
        told: tuple[NotificationRecord, ...] = ()
        if email:
            personal = {"job_reference": job_id, "error_codes": ", ".join(error.codes),
                        "error_message": error.message[:2000]}  # fmt: skip
            told = (intent(NotificationKind.FAILED, email, personal),)
        record = JobRecord(job_id, JobStatus.FAILED, tuple(error.codes), error.message[:10_000],
                           self._clock.now(), told, trace_id)  # fmt: skip
        try:
            self._store.save(job_id, {}, record)
        except ResultStoreUnavailable:
            # Told anyway, and the message still deleted: retrying never makes bad input good.
            log.warning("failure_not_recorded", extra=ctx)
            for entry in told:
                self._notify(entry.kind, entry.recipient, job_id, dict(entry.details))
            return JobOutcome(job_id, "failed", delete=True, error_codes=tuple(error.codes))
        try:
            record = self._ledger.settle(record, ask_provider=False)
        except NrfError as exc:  # the intent is stored: the next delivery settles it
            return self._retry(message, job_id, exc.code, ctx)
        outcome = self._settled(record, message, "failed", ctx)
        return outcome

    def _retry(self, message: QueueMessage, job_id: str, code: str, ctx: dict) -> JobOutcome:
        delay = retry_delay(message.receive_count, base=self._retry_base,
                            jitter=self._rng.random() * 0.2)  # fmt: skip
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
