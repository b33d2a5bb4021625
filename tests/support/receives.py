"""The job path as the worker runs it, without processes: read, claim, process, release.

Unit tests drive ProcessJob through the real edge reader and the real in-flight owner
(the claim, the duplicate rule, the release), with recording fakes for the ports. Every
use case comes from the worker's root (roots/worker.py) with the fakes as overrides, so the
wiring under test is the worker's own and cannot drift from it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakes import FakeClock, FakeJobQueue, FakeNotifier, FakeResultStore
from nrf.adapters.environment.settings import WorkerSettings
from nrf.adapters.job_queue.job_message import read_job
from nrf.domain.jobs import QueueMessage
from nrf.domain.ports import BoundaryDataRepository, JobBoundarySource
from nrf.entrypoints.roots.worker import WorkerRoot
from nrf.service_layer.job_outcome import JobOutcome
from nrf.service_layer.process_job import Renderer
from support.wiring import wired

LEASE = 600


class Receives:
    """Call with a QueueMessage: what one receive of it does, claim to release.

    ``assess`` stands in for the assessment when given; ``settings`` are more WorkerSettings
    fields (the support address, the backend's URL, ...).
    """

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
        assess: Callable[..., Any] | None = None,
        **settings: Any,
    ) -> None:
        self.store, self.notifier, self.clock = store, notifier, clock
        fields = {"results_base_url": "https://results.example/jobs/", **settings}
        fakes: dict[str, object] = {"assess_developments": assess} if assess else {}
        container = wired(
            WorkerRoot,
            WorkerSettings(visibility_timeout=LEASE, retry_base_seconds=retry_base, **fields),
            boundary_data=repository,
            site_map=map,
            boundary_source=source,
            job_report=render,
            result_store=store,
            job_delivery=notifier,
            clock=clock,
            job_queue=FakeJobQueue(clock),
            **fakes,
        )
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
