"""The worker process: poll SQS, hand jobs to job processes, extend visibility, beat."""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol

from attrs import define, field

from nrf.domain.claims import claim_owner
from nrf.domain.errors import NrfError
from nrf.domain.job_message import InvalidJobMessage, parse_job_message
from nrf.domain.jobs import QueueFatalError, QueueMessage, QueueTransientError
from nrf.domain.ports import Clock, HeartbeatStore, JobQueue, ResultStore
from nrf.entrypoints.settings import WorkerSettings
from nrf.entrypoints.worker.acks import Acks, InlineAcks
from nrf.service_layer.job_outcome import JobOutcome, retry_delay

log = logging.getLogger("nrf.worker")

STATUS_ERROR, STATUS_STOPPED, STATUS_RUNNING = -1, 0, 1
EXIT_CLEAN, EXIT_FATAL = 0, 3
Metrics = Callable[[str, float, "str | None"], None]


def job_id_of(message: QueueMessage) -> str | None:
    """The job id a message carries, or None when it cannot be read (it is failed anyway)."""
    try:
        return parse_job_message(message.body).job_id
    except InvalidJobMessage as exc:
        return exc.job_id


def expected_seconds(message: QueueMessage) -> float:
    """A generous guess at a job's duration from its size, for the health check."""
    return 30.0 + len(message.body) / 10_000


@define
class InFlight:
    """A message being worked on and its visibility-heartbeat bookkeeping."""

    message: QueueMessage
    started: float
    extended_at: float
    expected: float
    extensions: int = 0
    seconds_extended: int = 0
    last_error: str | None = field(default=None)
    job_id: str | None = None
    timed_out: bool = False  # its process was killed; now only its failure is being recorded


class Executor(Protocol):
    """What the loop needs from the job processes (JobProcesses, or a fake in tests)."""

    def submit(self, message: QueueMessage) -> Future[JobOutcome]: ...
    def submit_timed_out(self, message: QueueMessage, seconds: float) -> Future[JobOutcome]: ...
    def replace(self) -> None: ...
    def terminate(self) -> None: ...


class WorkerLoop:
    """One loop; each message succeeds, fails or is retried on its own.

    A finished message is acknowledged through ``acks``: on a background thread in the
    worker, so the next receive does not wait for the delete's round trip.
    """

    def __init__(
        self,
        queue: JobQueue,
        heartbeat: HeartbeatStore,
        executor: Executor,
        settings: WorkerSettings,
        clock: Clock,
        stop: threading.Event,
        metrics: Metrics | None = None,
        rng: random.Random | None = None,
        claims: ResultStore | None = None,
        acks: Acks | None = None,
    ) -> None:
        self._queue, self._heartbeat, self._executor = queue, heartbeat, executor
        self._s, self._clock, self._stop = settings, clock, stop
        self._metrics = metrics
        self._rng = rng or random.Random()
        self._claims = claims  # renewed with the visibility, released on every way out
        self._in_flight: dict[Future[JobOutcome], InFlight] = {}
        self._acks = acks or InlineAcks()
        self._pending_acks: list[Future[None]] = []
        self._queue_failures = 0

    @property
    def jobs_in_flight(self) -> int:
        """Messages being worked on now (read by the fleet heartbeat thread)."""
        return len(self._in_flight)

    def run(self) -> int:
        """Poll until told to stop; returns the process exit code."""
        self._heartbeat.set_status(STATUS_RUNNING)
        self._heartbeat.beat(self._clock.now())
        try:
            while not self._stop.is_set():
                self._step()
            self._drain()
            self._reap_acks(block=True)
        except QueueFatalError as exc:
            log.error("queue_fatal", extra={"code": exc.code, "error": exc.message})
            self._heartbeat.set_status(STATUS_ERROR)
            self._hand_back_all()
            return EXIT_FATAL
        self._heartbeat.set_status(STATUS_STOPPED)
        return EXIT_CLEAN

    def _reap_acks(self, block: bool = False) -> None:
        """Collect finished acknowledgements; a fatal queue error in one stops the loop."""
        pending = []
        for future in self._pending_acks:
            if block or future.done():
                future.result()
            else:
                pending.append(future)
        self._pending_acks = pending

    def _step(self) -> None:
        self._reap_acks()
        now = self._clock.now()
        self._heartbeat.beat(now)
        self._collect(timeout=0)
        self._enforce_timeout(now)
        self._extend_visibility(now)
        free = self._s.concurrency - len(self._in_flight)
        if free <= 0:
            self._collect(timeout=1.0)
            return
        # Long-poll only when idle; with jobs running, come back every second to tend them.
        wait_seconds = self._s.wait_time_seconds if not self._in_flight else 1
        try:
            messages = self._queue.receive(
                min(free, self._s.max_messages), wait_seconds, self._s.visibility_timeout
            )
        except QueueTransientError as exc:
            self._queue_failures += 1
            self._heartbeat.set_ready(bundle_loaded=True, queue_reachable=False)
            delay = min(60.0, 2.0 ** min(self._queue_failures, 6)) * self._rng.uniform(0.5, 1.0)
            log.warning("queue_unreachable", extra={"error": exc.message, "retry_in": delay})
            self._stop.wait(delay)
            return
        except QueueFatalError:
            raise
        except Exception:
            log.exception("poll_unexpected_error")
            self._stop.wait(1.0)
            return
        self._queue_failures = 0
        self._heartbeat.set_ready(bundle_loaded=True, queue_reachable=True)
        for message in messages:
            self._start(message)

    def _start(self, message: QueueMessage) -> None:
        now = self._clock.now()
        if self._stop.is_set():
            self._hand_back(message)
            return
        expected = expected_seconds(message)
        future = self._executor.submit(message)
        self._in_flight[future] = InFlight(message, now, now, expected, job_id=job_id_of(message))
        self._update_job_state()
        log.info("job_received", extra={"message_id": message.message_id,
                                        "receive_count": message.receive_count})  # fmt: skip

    def _collect(self, timeout: float) -> None:
        if not self._in_flight:
            if timeout:
                self._stop.wait(timeout)
            return
        done, _ = wait(list(self._in_flight), timeout=timeout, return_when=FIRST_COMPLETED)
        broken = False
        for future in done:
            tracked = self._in_flight.pop(future)
            try:
                outcome = future.result()
            except BrokenProcessPool:
                broken = True
                outcome = JobOutcome(None, "retry", False,
                                     retry_delay(tracked.message.receive_count),
                                     ("job_process_died",))  # fmt: skip
                log.error("job_process_died", extra={"message_id": tracked.message.message_id})
            except Exception:
                log.exception("job_unexpected_error")
                outcome = JobOutcome(None, "retry", False,
                                     retry_delay(tracked.message.receive_count),
                                     ("unexpected_error",))  # fmt: skip
            self._finish(tracked, outcome)
        if broken:
            self._executor.replace()
        self._update_job_state()

    def _finish(self, tracked: InFlight, outcome: JobOutcome) -> None:
        seconds = self._clock.now() - tracked.started
        # The job process released its claim already; this undoes a renewal made after that.
        self._release_claim(tracked)
        self._pending_acks.append(
            self._acks.submit(lambda: self._acknowledge(tracked, outcome, seconds))
        )

    def _acknowledge(self, tracked: InFlight, outcome: JobOutcome, seconds: float) -> None:
        """Delete or delay the message, then log the job as finished: settled on the queue."""
        try:
            if outcome.delete:
                self._queue.delete(tracked.message)
            else:
                self._queue.change_visibility(tracked.message, outcome.retry_after)
        except QueueTransientError as exc:
            # Harmless: the message comes back and is found finished in the result store.
            log.warning("queue_ack_failed", extra={"job_id": outcome.job_id, "error": exc.message})
        log.info("heartbeat_stats", extra={
            "job_id": outcome.job_id, "count": tracked.extensions,
            "seconds_extended": tracked.seconds_extended, "last_error": tracked.last_error,
        })  # fmt: skip
        log.info("job_finished", extra={"job_id": outcome.job_id, "status": outcome.status,
                                        "seconds": round(seconds, 3),
                                        "codes": list(outcome.error_codes)})  # fmt: skip
        if self._metrics is not None:
            self._metrics(outcome.status, seconds, outcome.job_id)

    def _extend_visibility(self, now: float) -> None:
        for tracked in self._in_flight.values():
            if now - tracked.extended_at < self._s.visibility_heartbeat_seconds:
                continue
            tracked.extended_at = now
            seconds = self._s.visibility_extension_seconds
            self._renew_claim(tracked, now, seconds)
            try:
                self._queue.change_visibility(tracked.message, seconds)
                tracked.extensions += 1
                tracked.seconds_extended += seconds
                log.info("heartbeat_extended", extra={
                    "message_id": tracked.message.message_id, "seconds": seconds})  # fmt: skip
            except (QueueTransientError, QueueFatalError) as exc:
                tracked.last_error = exc.code
                log.warning("heartbeat_extend_failed", extra={"error": exc.message})

    def _enforce_timeout(self, now: float) -> None:
        """Kill a job past JOB_TIMEOUT_SECONDS and have its failure recorded instead.

        Job processes share one pool, which cannot lose one process and keep the others:
        the jobs running beside it are handed back at once (and their claims released).
        """
        limit = self._s.job_timeout_seconds
        late = [t for t in self._in_flight.values() if not t.timed_out and now - t.started > limit]
        if not late:
            return
        log.error("job_timeout", extra={"job_ids": [t.job_id for t in late], "limit": limit})
        others = [t for t in self._in_flight.values() if t not in late]
        self._in_flight.clear()
        self._executor.replace()
        for tracked in others:
            self._hand_back(tracked.message)
            self._release_claim(tracked)
        for tracked in late:
            future = self._executor.submit_timed_out(tracked.message, now - tracked.started)
            tracked.timed_out = True
            self._in_flight[future] = tracked
        self._update_job_state()

    def _renew_claim(self, tracked: InFlight, now: float, seconds: int) -> None:
        if self._claims is None or tracked.job_id is None:
            return
        try:
            lease = self._claims.claim(tracked.job_id, claim_owner(tracked.message), now, seconds)
            if not lease.held_by(claim_owner(tracked.message)):
                log.error("claim_lost", extra={"job_id": tracked.job_id})
        except NrfError as exc:
            log.warning("claim_renew_failed", extra={"job_id": tracked.job_id,
                                                      "error": exc.message})  # fmt: skip

    def _release_claim(self, tracked: InFlight) -> None:
        if self._claims is None or tracked.job_id is None:
            return
        try:
            self._claims.release(tracked.job_id, claim_owner(tracked.message), self._clock.now())
        except NrfError as exc:  # the lease runs out by itself
            log.warning("claim_release_failed", extra={"job_id": tracked.job_id,
                                                        "error": exc.message})  # fmt: skip

    def _update_job_state(self) -> None:
        if not self._in_flight:
            self._heartbeat.end_job(self._clock.now())
            return
        oldest = min(self._in_flight.values(), key=lambda t: t.started)
        expected = max(t.expected for t in self._in_flight.values())
        self._heartbeat.start_job(oldest.message.message_id, expected, oldest.started)

    def _drain(self) -> None:
        """Stop polling; let jobs finish within the grace period, then hand the rest back."""
        self._heartbeat.set_draining(True)
        deadline = self._clock.now() + self._s.shutdown_grace_seconds
        log.info("draining", extra={"in_flight": len(self._in_flight)})
        while self._in_flight and self._clock.now() < deadline:
            self._heartbeat.beat(self._clock.now())
            self._extend_visibility(self._clock.now())
            done, _ = wait(list(self._in_flight), timeout=0.5, return_when=FIRST_COMPLETED)
            if done:
                self._collect(timeout=0)
        if self._in_flight:
            self._executor.terminate()
            self._hand_back_all()

    def _hand_back_all(self) -> None:
        for tracked in list(self._in_flight.values()):
            self._hand_back(tracked.message)
            self._release_claim(tracked)
        self._in_flight.clear()
        self._update_job_state()

    def _hand_back(self, message: QueueMessage) -> None:
        """Make a message visible again at once, so another task picks it up."""
        try:
            self._queue.change_visibility(message, 0)
            log.info("job_handed_back", extra={"message_id": message.message_id})
        except (QueueTransientError, QueueFatalError) as exc:
            log.warning("hand_back_failed", extra={"error": exc.message})
