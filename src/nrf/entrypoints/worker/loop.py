"""The worker process's loop: poll, dispatch to job processes, acknowledge; nothing else.

In-flight state (visibility, lease, deadlines) belongs to :class:`InFlight`; the job
processes to :class:`JobProcesses`; acknowledgements run on one background thread.
Over 200 lines: poll, dispatch, collect, time out and drain all move jobs between the same
in-flight map and the same acknowledgement queue, and read best side by side.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from nrf.adapters.environment.settings import WorkerSettings
from nrf.domain.health import WorkerStatus
from nrf.domain.job_request import IncomingJob
from nrf.domain.jobs import QueueFatalError, QueueTransientError
from nrf.domain.ports import Clock, HeartbeatStore, JobInbox
from nrf.entrypoints.worker.acks import Acks, InlineAcks, Metrics, QueueAcknowledger
from nrf.entrypoints.worker.exit_codes import ExitCode
from nrf.entrypoints.worker.in_flight import InFlight, Tracked
from nrf.service_layer.job_outcome import JobOutcome, OutcomeStatus, RetryPolicy

log = logging.getLogger("nrf.worker")

RecordTimeout = Callable[[IncomingJob, float], JobOutcome]

# An idle receive waits at most this long (AWS_SQS_WAIT_TIME_SECONDS caps it lower), so a stop
# is seen within it: an ECS stop of an idle task takes seconds, not the rest of a 20 s long poll.
# A stop is only seen between receives: cutting one off mid-request could strand the messages in
# its answer, hidden for the visibility timeout. Cost: 30 empty receives a minute per idle
# worker, about 1.3 million a month ($0.52 at SQS's $0.40 a million).
IDLE_POLL_SLICE_SECONDS = 2


class Executor(Protocol):
    """What the loop needs from the job processes (JobProcesses, or a fake in tests)."""

    def submit(self, key: str, work: Any) -> Future[Any]: ...
    def recover(self) -> bool: ...
    def died_running(self, key: str) -> bool: ...
    def forget(self, key: str) -> None: ...
    def replace(self) -> None: ...
    def terminate(self) -> None: ...


class WorkerLoop:
    """One loop; each message succeeds, fails or is retried on its own."""

    def __init__(
        self,
        *,
        inbox: JobInbox,
        in_flight: InFlight,
        heartbeat: HeartbeatStore,
        executor: Executor,
        settings: WorkerSettings,
        clock: Clock,
        stop: threading.Event,
        retry: RetryPolicy,
        record_timeout: RecordTimeout,
        acks: Acks | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self._inbox, self._in_flight, self._heartbeat = inbox, in_flight, heartbeat
        self._executor, self._s, self._clock, self._stop = executor, settings, clock, stop
        self._retry, self._record_timeout = retry, record_timeout
        self._acks = acks or InlineAcks()
        self._acknowledge = QueueAcknowledger(inbox, metrics)
        self._pending_acks: list[Future[None]] = []
        self._queue_failures = 0

    @property
    def jobs_in_flight(self) -> int:
        """Messages being worked on now (read by the fleet heartbeat thread)."""
        return len(self._in_flight)

    def run(self) -> ExitCode:
        """Poll until told to stop; returns the process exit code."""
        self._heartbeat.set_status(WorkerStatus.RUNNING)
        self._heartbeat.beat(self._clock.now())
        try:
            while not self._stop.is_set():
                self._step()
            self._drain()
            self._reap_acks(block=True)
        except QueueFatalError as exc:
            log.error("queue_fatal", extra={"code": exc.code, "error": exc.message})
            self._heartbeat.set_status(WorkerStatus.ERROR)
            self._in_flight.hand_back_all()
            return ExitCode.FATAL
        self._heartbeat.set_status(WorkerStatus.STOPPED)
        return ExitCode.CLEAN

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
        self._in_flight.extend_due(now)
        free = self._s.concurrency - len(self._in_flight)
        if free <= 0:
            self._collect(timeout=1.0)
            return
        # Long-poll only when idle, in slices a stop can come between; with jobs running, come
        # back every second to tend them.
        idle_wait = min(self._s.wait_time_seconds, IDLE_POLL_SLICE_SECONDS)
        wait_seconds = 1 if self._in_flight else idle_wait
        try:
            jobs = self._inbox.receive(
                min(free, self._s.max_messages), wait_seconds, self._s.visibility_timeout
            )
        except QueueTransientError as exc:
            self._queue_failures += 1
            self._heartbeat.set_ready(bundle_loaded=True, queue_reachable=False)
            delay = min(60.0, 2.0 ** min(self._queue_failures, 6)) * self._retry.rng.uniform(
                0.5, 1.0
            )
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
        for job in jobs:
            self._start(job)

    def _start(self, job: IncomingJob) -> None:
        if self._stop.is_set():  # received as the stop came: back at once, untouched
            now = self._clock.now()
            self._in_flight.hand_back(Tracked(job=job, started=now, extended_at=now))
            return
        tracked, outcome = self._in_flight.claim(job)
        if outcome is None:
            try:
                future = self._executor.submit(job.receipt.message_id, tracked.job)
            except Exception:  # the pool could not be replaced: the message goes back at once
                log.exception("job_dispatch_failed", extra={"message_id": job.receipt.message_id})
                self._in_flight.hand_back(tracked)
                return
            self._in_flight.add(future, tracked)
            self._update_job_state()
        log.info(
            "job_received",
            extra={
                "message_id": job.receipt.message_id,
                "receive_count": job.receipt.receive_count,
            },
        )
        if outcome is not None:  # a duplicate, or a claim that could not be taken
            self._finish(tracked, outcome)

    def _collect(self, timeout: float) -> None:
        if not self._in_flight:
            if timeout:
                self._stop.wait(timeout)
            return
        done, _ = wait(self._in_flight.futures(), timeout=timeout, return_when=FIRST_COMPLETED)
        if any(isinstance(future.exception(), BrokenProcessPool) for future in done):
            # Replace the pool before anything else; it remembers whose process died.
            self._executor.recover()
        for future in done:
            tracked = self._in_flight.pop(future)
            self._finish(tracked, self._outcome_of(future, tracked))
        self._update_job_state()

    def _outcome_of(self, future: Future[JobOutcome], tracked: Tracked) -> JobOutcome:
        """The job's outcome; a dead job process means a retry (its own job) or a hand-back."""
        job, key = tracked.job, tracked.job.receipt.message_id
        try:
            return future.result()
        except BrokenProcessPool:
            if not self._executor.died_running(key):
                # Killed with the pool beside the dead one: nothing wrong with it, back at once.
                reason = "job_process_died_beside"
                log.warning("job_handed_back", extra={"message_id": key, "reason": reason})
                return JobOutcome(
                    job_id=job.job_id,
                    status=OutcomeStatus.RETRY,
                    delete=False,
                    error_codes=("job_process_died_beside",),
                )
            self._executor.forget(key)
            log.error("job_process_died", extra={"message_id": key, "job_id": job.job_id})
            code = "job_process_died"
        except Exception:
            log.exception("job_unexpected_error", extra={"job_id": job.job_id})
            code = "unexpected_error"
        return self._retry.outcome(job.job_id, job.receipt.receive_count, code)

    def _finish(self, tracked: Tracked, outcome: JobOutcome) -> None:
        seconds = self._clock.now() - tracked.started
        self._in_flight.release(tracked)
        self._pending_acks.append(
            self._acks.submit(lambda: self._acknowledge(tracked, outcome, seconds))
        )

    def _enforce_timeout(self, now: float) -> None:
        """Kill jobs past JOB_TIMEOUT_SECONDS and record their failure from here.

        Job processes share one pool, which cannot lose one process and keep the others:
        the jobs running beside them are handed back at once (and their claims released).
        The failure is recorded on the acknowledgement thread, under the claim still held.
        """
        late = self._in_flight.late(now)
        if not late:
            return
        log.error(
            "job_timeout",
            extra={"job_ids": [t.job.job_id for t in late], "limit": self._s.job_timeout_seconds},
        )
        others = [t for t in self._in_flight.clear() if t not in late]
        self._executor.replace()
        for tracked in others:
            self._in_flight.hand_back(tracked)
        for tracked in late:
            record = functools.partial(self._fail_timed_out, tracked, now - tracked.started)
            self._pending_acks.append(self._acks.submit(record))
        self._update_job_state()

    def _fail_timed_out(self, tracked: Tracked, seconds: float) -> None:
        outcome = self._record_timeout(tracked.job, seconds)
        self._in_flight.release(tracked)
        self._acknowledge(tracked, outcome, seconds)

    def _update_job_state(self) -> None:
        self._in_flight.publish(self._heartbeat)

    def _drain(self) -> None:
        """Stop polling; let jobs finish within the grace period, then hand the rest back."""
        self._heartbeat.set_draining(True)
        deadline = self._clock.now() + self._s.shutdown_grace_seconds
        log.info("draining", extra={"in_flight": len(self._in_flight)})
        while self._in_flight and self._clock.now() < deadline:
            self._heartbeat.beat(self._clock.now())
            self._in_flight.extend_due(self._clock.now())
            done, _ = wait(self._in_flight.futures(), timeout=0.5, return_when=FIRST_COMPLETED)
            if done:
                self._collect(timeout=0)
        if self._in_flight:
            self._executor.terminate()
            self._in_flight.hand_back_all()
            self._update_job_state()
