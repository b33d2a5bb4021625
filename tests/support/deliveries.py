"""The job path as the worker runs it, without processes: read, claim, process, release.

Unit tests drive ProcessJob through the real edge reader and the real in-flight owner
(the claim, the duplicate rule, the release), with recording fakes for the ports. Every
use case comes from ``build_container`` with the fakes as overrides, so the wiring under
test is the worker's own and cannot drift from it.
"""

from __future__ import annotations

from collections.abc import Callable

from dependency_injector import providers

from fakes import FakeClock, FakeJobQueue, FakeNotifier, FakeResultStore
from nrf.adapters.job_queue.job_message import read_job
from nrf.domain.jobs import QueueMessage
from nrf.domain.ports import BoundaryDataRepository, JobBoundarySource
from nrf.entrypoints.container import build_container
from nrf.entrypoints.settings import WorkerSettings
from nrf.service_layer.job_outcome import JobOutcome
from nrf.service_layer.process_job import Renderer

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
        settings = WorkerSettings(
            visibility_timeout=LEASE,
            retry_base_seconds=retry_base,
            results_base_url="https://results.example/jobs/",
        )
        container = build_container(settings=settings)
        for provider, fake in (
            (container.boundary_data, repository),
            (container.site_map, map),
            (container.boundary_source, source),
            (container.job_report, render),
            (container.result_store, store),
            (container.job_delivery, notifier),
            (container.clock, clock),
            (container.job_queue, FakeJobQueue(clock)),
        ):
            provider.override(providers.Object(fake))
        self.fail = container.fail_job()
        self.process = container.process_job()
        self.in_flight = container.in_flight()

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
