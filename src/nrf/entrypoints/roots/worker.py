"""The worker process's root: the queue loop, its claims and the pool of job processes.

Built on the job root because the worker ends a job that outlives its deadline itself
(``record_timeout``); each job process builds its own job root (job_processes.py).
"""

from __future__ import annotations

import functools

from dependency_injector import providers

from nrf.adapters.environment.settings import WorkerSettings
from nrf.adapters.job_queue.job_inbox import ReadingJobInbox
from nrf.adapters.telemetry.logging_setup import publish_metrics
from nrf.entrypoints.roots.core import Core, build
from nrf.entrypoints.roots.job import JobRoot
from nrf.entrypoints.worker.in_flight import InFlight
from nrf.entrypoints.worker.job_processes import JobProcesses
from nrf.entrypoints.worker.loop import WorkerLoop
from nrf.service_layer.fleet_heartbeat import FleetHeartbeat


class WorkerRoot(JobRoot):
    """The loop; the heartbeat store, stop event and ack thread are passed in by the process."""

    # The stores implement both ports: a job's claim lives beside its results.
    job_claims = Core.result_store
    job_inbox = providers.Singleton(ReadingJobInbox, queue=Core.job_queue)
    job_processes = providers.Factory(JobProcesses, settings=Core.worker_settings)
    in_flight = providers.Factory(
        InFlight,
        inbox=job_inbox,
        claims=job_claims,
        settings=Core.worker_settings,
        clock=Core.clock,
        retry=Core.retry_policy,
    )
    worker_loop = providers.Factory(
        WorkerLoop,
        inbox=job_inbox,
        in_flight=in_flight,
        settings=Core.worker_settings,
        clock=Core.clock,
        retry=Core.retry_policy,
        record_timeout=JobRoot.fail_job.provided.timed_out,
        metrics=providers.Factory(
            functools.partial, publish_metrics, Core.config.metrics_namespace
        ),
    )
    # The worker passes its identity and activity (fleet_beats.py).
    fleet_heartbeat = providers.Factory(FleetHeartbeat, records=Core.ops_records, clock=Core.clock)


def build_worker_root(settings: WorkerSettings | None = None) -> WorkerRoot:
    """The worker process's root."""
    return build(WorkerRoot, settings=settings)
