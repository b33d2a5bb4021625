"""The one owner of the worker's in-flight state: each job's visibility, lease and deadline.

The lease lives here and only here: taken before a job is dispatched (as long as the
message's visibility), renewed each time the visibility is extended, released on every
way out. Job processes never touch it.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future

from attrs import define, evolve, field

from nrf.adapters.environment.settings import WorkerSettings
from nrf.domain.errors import NrfError
from nrf.domain.job_request import IncomingJob, RejectedJob
from nrf.domain.jobs import QueueFatalError, QueueTransientError, ResultStoreUnavailable
from nrf.domain.ports import Clock, HeartbeatStore, JobClaims, JobInbox
from nrf.service_layer.job_outcome import JobOutcome, OutcomeStatus, RetryPolicy

log = logging.getLogger("nrf.worker")

MAX_WAIT_SECONDS = 900  # SQS's longest visibility change that still makes sense for a retry


def expected_seconds(job: IncomingJob) -> float:
    """A generous guess at a job's duration from its size, for the health check."""
    return 30.0 + job.receipt.body_bytes / 10_000


@define(kw_only=True)
class Tracked:
    """A job being worked on and its visibility-extension bookkeeping."""

    job: IncomingJob
    started: float
    extended_at: float
    claimed: bool = False
    extensions: int = 0
    seconds_extended: int = 0
    last_error: str | None = field(default=None)


class InFlight:
    """Claims, extends, hands back and releases; knows which job is past its deadline."""

    def __init__(
        self,
        inbox: JobInbox,
        claims: JobClaims,
        settings: WorkerSettings,
        clock: Clock,
        retry: RetryPolicy,
    ) -> None:
        self._inbox, self._claims, self._s, self._clock = inbox, claims, settings, clock
        self._retry = retry
        self._jobs: dict[Future[JobOutcome], Tracked] = {}

    def __len__(self) -> int:
        return len(self._jobs)

    def add(self, future: Future[JobOutcome], tracked: Tracked) -> None:
        """Track a dispatched job by the future that will hold its outcome."""
        self._jobs[future] = tracked

    def pop(self, future: Future[JobOutcome]) -> Tracked:
        """Stop tracking a finished job; its lease is still held until :meth:`release`."""
        return self._jobs.pop(future)

    def clear(self) -> list[Tracked]:
        """Stop tracking every job (their leases still held); returns what was tracked."""
        tracked = list(self._jobs.values())
        self._jobs.clear()
        return tracked

    def futures(self) -> list[Future[JobOutcome]]:
        """The outcomes still to come, to wait on."""
        return list(self._jobs)

    def claim(self, job: IncomingJob) -> tuple[Tracked, JobOutcome | None]:
        """Take the job's lease: (tracked, None) to dispatch it, or the outcome to ack now."""
        now = self._clock.now()
        tracked = Tracked(job=job, started=now, extended_at=now)
        receipt, ctx = job.receipt, {"job_id": job.job_id, "trace_id": job.trace_id}
        try:
            lease = self._claims.claim(
                job.job_id, receipt.claim_owner, now, self._s.visibility_timeout
            )
        except (ResultStoreUnavailable, OSError, NrfError) as exc:
            code = getattr(exc, "code", "io_error")
            if isinstance(job.body, RejectedJob):
                # Bad input needs no claim to be judged; a store that is down must not keep it.
                log.warning("claim_unavailable", extra=ctx)
                return tracked, None
            return tracked, self._retry.logged(receipt, job.job_id, code, ctx)
        if lease.held_by(receipt.claim_owner):
            tracked.claimed = True
            tracked.job = evolve(job, receipt=evolve(receipt, first_claim=lease.first))
            return tracked, None
        if not lease.held_by_message(receipt.message_id):
            # Another message holds the job and carries it to the end (or comes back if its
            # holder dies): this copy is not needed, and would only burn receives.
            log.info("job_duplicate_deleted", extra={**ctx, "holder": lease.owner})
            return tracked, JobOutcome(
                job_id=job.job_id,
                status=OutcomeStatus.DUPLICATE,
                delete=True,
                error_codes=("duplicate",),
            )
        # An earlier receive of this very message still holds it: back when its lease ends.
        delay = min(MAX_WAIT_SECONDS, lease.seconds_left(now) + 1)
        log.info("job_claimed_elsewhere", extra={**ctx, "retry_after": delay})
        return tracked, JobOutcome(
            job_id=job.job_id,
            status=OutcomeStatus.CLAIMED_ELSEWHERE,
            delete=False,
            retry_after=delay,
            error_codes=("claimed_elsewhere",),
        )

    def extend_due(self, now: float) -> None:
        """Extend the visibility (and the lease with it) of every job due for it."""
        for tracked in self._jobs.values():
            if now - tracked.extended_at < self._s.extend_visibility_every_seconds:
                continue
            tracked.extended_at = now
            seconds = self._s.visibility_extension_seconds
            self._renew(tracked, now, seconds)
            try:
                self._inbox.change_visibility(tracked.job, seconds)
                tracked.extensions += 1
                tracked.seconds_extended += seconds
                log.info(
                    "visibility_extended",
                    extra={"message_id": tracked.job.receipt.message_id, "seconds": seconds},
                )
            except (QueueTransientError, QueueFatalError) as exc:
                tracked.last_error = exc.code
                log.warning("visibility_extend_failed", extra={"error": exc.message})

    def publish(self, heartbeat: HeartbeatStore) -> None:
        """Tell /health which job is oldest and how long the longest may take."""
        if not self._jobs:
            heartbeat.end_job(self._clock.now())
            return
        oldest = min(self._jobs.values(), key=lambda t: t.started)
        expected = max(expected_seconds(t.job) for t in self._jobs.values())
        heartbeat.start_job(oldest.job.receipt.message_id, expected, oldest.started)

    def late(self, now: float) -> list[Tracked]:
        """The jobs running longer than JOB_TIMEOUT_SECONDS."""
        limit = self._s.job_timeout_seconds
        return [t for t in self._jobs.values() if now - t.started > limit]

    def hand_back(self, tracked: Tracked) -> None:
        """Make a message visible again at once, so another task picks it up."""
        try:
            self._inbox.change_visibility(tracked.job, 0)
            log.info("job_handed_back", extra={"message_id": tracked.job.receipt.message_id})
        except (QueueTransientError, QueueFatalError) as exc:
            log.warning("hand_back_failed", extra={"error": exc.message})
        self.release(tracked)

    def hand_back_all(self) -> None:
        for tracked in self.clear():
            self.hand_back(tracked)

    def release(self, tracked: Tracked) -> None:
        if not tracked.claimed:
            return
        job = tracked.job
        try:
            self._claims.release(job.job_id, job.receipt.claim_owner, self._clock.now())
        except NrfError as exc:  # the lease runs out by itself
            log.warning("claim_release_failed", extra={"job_id": job.job_id, "error": exc.message})

    def _renew(self, tracked: Tracked, now: float, seconds: int) -> None:
        if not tracked.claimed:
            return
        job = tracked.job
        try:
            lease = self._claims.claim(job.job_id, job.receipt.claim_owner, now, seconds)
            if not lease.held_by(job.receipt.claim_owner):
                log.error("claim_lost", extra={"job_id": job.job_id})
        except NrfError as exc:
            log.warning("claim_renew_failed", extra={"job_id": job.job_id, "error": exc.message})
