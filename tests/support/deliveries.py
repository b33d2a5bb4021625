"""The job path as the worker runs it, without processes: read, claim, process, release.

Unit tests drive ProcessJob through the real edge reader and the real in-flight owner
(the claim, the duplicate rule, the release), with recording fakes for the ports.
"""

from __future__ import annotations

from collections.abc import Callable

from fakes import FakeClock, FakeJobQueue, FakeNotifier, FakeResultStore
from nrf.adapters.job_queue.job_inbox import ReadingJobInbox
from nrf.adapters.job_queue.job_message import read_job
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.jobs import QueueMessage
from nrf.domain.ports import BoundaryDataRepository, JobBoundarySource
from nrf.entrypoints.settings import WorkerSettings
from nrf.entrypoints.worker.in_flight import InFlight
from nrf.service_layer.fail_job import FailJob
from nrf.service_layer.job_emails import NotifySettings
from nrf.service_layer.job_outcome import JobOutcome, RetryPolicy
from nrf.service_layer.job_settler import JobSettler
from nrf.service_layer.notification_ledger import NotificationLedger
from nrf.service_layer.process_job import ProcessJob, Renderer

LEASE = 600


class Deliveries:
    """Call with a QueueMessage: what one receive of it does, claim to release."""

    def __init__(
        self,
        *,
        repository: BoundaryDataRepository,
        source: JobBoundarySource,
        render: Renderer,
        store: FakeResultStore,
        notifier: FakeNotifier,
        clock: FakeClock,
        retry_base: int = 30,
    ) -> None:
        self.store, self.notifier, self.clock = store, notifier, clock
        retry = RetryPolicy(base_seconds=retry_base)
        settler = JobSettler(NotificationLedger(store, notifier), retry)
        self.fail = FailJob(store, settler, clock)
        self.process = ProcessJob(
            assess=AssessDevelopments(repository),
            boundaries=source,
            store=store,
            settler=settler,
            fail=self.fail,
            clock=clock,
            render=render,
            settings=NotifySettings(results_base_url="https://results.example/jobs/"),
        )
        settings = WorkerSettings(visibility_timeout=LEASE)
        self.in_flight = InFlight(
            ReadingJobInbox(FakeJobQueue(clock)), store, settings, clock, retry
        )

    def __call__(self, message: QueueMessage) -> JobOutcome:
        return self._claimed(message, self.process)

    def timed_out(self, message: QueueMessage, seconds: float) -> JobOutcome:
        """What the worker records for a job it killed after ``seconds``."""
        return self._claimed(message, lambda job: self.fail.timed_out(job, seconds))

    def _claimed(self, message: QueueMessage, work: Callable[..., JobOutcome]) -> JobOutcome:
        tracked, outcome = self.in_flight.claim(read_job(message))
        if outcome is not None:
            return outcome
        try:
            return work(tracked.job)
        finally:
            self.in_flight.release(tracked)
