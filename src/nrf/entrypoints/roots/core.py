"""The shared core every process's root builds on: settings, clock, bundle, clients, stores.

Each process has its own small root (job.py, worker.py, api.py, ops.py, dead_letters.py) that
subclasses :class:`Core` and adds only what that process runs, so no root names a provider
another process needs, and nothing here imports a process's own modules (no import cycle).
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

import attrs
import boto3
from dependency_injector import containers, providers

from nrf.adapters.aws_config import client_config
from nrf.adapters.boundary_data.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.adapters.boundary_data.packaged import bundled_reference_data
from nrf.adapters.clock.system_clock import SystemClock, SystemSleeper
from nrf.adapters.environment.assess_limits import input_limits
from nrf.adapters.environment.settings import WorkerSettings
from nrf.adapters.notifier.govuk_notify_notifier import NOTIFY_BASE_URL, GovUkNotifyNotifier
from nrf.adapters.notifier.log_notifier import LogNotifier
from nrf.adapters.notifier.ses_notifier import SesNotifier
from nrf.adapters.result_store.local_ops_records import LocalOpsRecords
from nrf.adapters.result_store.local_result_store import LocalResultStore
from nrf.adapters.result_store.result_file_readers import LocalResultFiles, S3ResultFiles
from nrf.adapters.result_store.s3_ops_records import S3OpsRecords
from nrf.adapters.result_store.s3_result_store import S3ResultStore
from nrf.adapters.site_map.forked_site_map import ForkedSiteMap
from nrf.domain.assessment import AssessDevelopments
from nrf.entrypoints.roots import builders
from nrf.service_layer.job_outcome import OutcomeDecider, RetryPolicy


def _client(service: str, config: providers.Configuration) -> providers.Singleton:
    """A boto3 client made lazily, once per process (clients are not fork-safe)."""
    return providers.Singleton(
        boto3.client,
        service,
        region_name=config.region,
        endpoint_url=config.endpoint_url,
        config=providers.Callable(client_config, service),
    )


class Core(containers.DeclarativeContainer):
    """What every process shares; tests override providers with fakes."""

    config = providers.Configuration()
    worker_settings = providers.Object(WorkerSettings())
    clock = providers.Singleton(SystemClock)
    sleeper = providers.Singleton(SystemSleeper)
    limits = providers.Singleton(input_limits, worker_settings)
    # One policy for the worker loop, the claim step and the use cases; one decider of how a
    # receive ends, for the job processes, the worker's timeouts and the dead letters alike.
    retry_policy = providers.Singleton(RetryPolicy, base_seconds=config.retry_base_seconds.as_(int))
    outcome_decider = providers.Singleton(OutcomeDecider, retry=retry_policy)

    boundary_data = providers.Singleton(
        GeoPackageBoundaryData, path=config.reference_data, verified=config.reference_data_verified
    )
    site_map = providers.Singleton(ForkedSiteMap, processes=config.assess_processes.as_(int))
    assess_developments = providers.Factory(
        AssessDevelopments, repository=boundary_data, site_map=site_map
    )

    sqs_client = _client("sqs", config)
    s3_client = _client("s3", config)
    ses_client = _client("sesv2", config)
    job_queue = providers.Singleton(
        builders.queue, client=sqs_client, url=config.queue_url, name=config.queue_name
    )

    result_store = builders.by_result_store(
        config, s3_client, local=LocalResultStore, s3=S3ResultStore
    )
    # Beside the results, in the same place: heartbeats, stall state, notices.
    ops_records = builders.by_result_store(
        config, s3_client, local=LocalOpsRecords, s3=S3OpsRecords
    )
    result_files = providers.Selector(
        config.result_store,
        local=providers.Singleton(LocalResultFiles, result_store),
        s3=providers.Singleton(S3ResultFiles, result_store, s3_client),
    )

    notifier = providers.Selector(
        config.notifier,
        log=providers.Singleton(LogNotifier),
        govuk_notify=providers.Singleton(
            GovUkNotifyNotifier.from_api_key,
            config.notify_api_key,
            providers.Callable(
                builders.templates,
                config.template_started,
                config.template_completed,
                config.template_failed,
                config.template_delayed,
            ),
            base_url=config.notify_base_url,
            sleeper=sleeper,
            clock=clock,
            allowed_domains=config.allowed_domains,
        ),
        ses=providers.Singleton(
            SesNotifier,
            client=ses_client,
            from_address=config.ses_from_address,
            sleeper=sleeper,
            clock=clock,
            allowed_domains=config.allowed_domains,
        ),
    )


Root = TypeVar("Root", bound=Core)


def build(
    root: type[Root],
    settings: WorkerSettings | None = None,
    reference_data: str | Path | None = None,
    assess_processes: int = 1,
) -> Root:
    """One ``root`` for this process, configured from worker settings when given.

    ``assess_processes`` > 1 splits a batch of sites over forked processes (`nrf assess`).
    """
    container = root()
    settings = settings or WorkerSettings()
    values = attrs.asdict(settings)
    values["notify_base_url"] = settings.notify_base_url or NOTIFY_BASE_URL
    values["dlq_name"] = settings.dlq_name or f"{settings.queue_name}_dlq"
    path = reference_data or settings.reference_data
    values["reference_data"] = str(path or bundled_reference_data())
    if reference_data is not None or settings.reference_data is None:
        # The verified digest belongs to settings.reference_data only (verify_reference_data).
        values["reference_data_verified"] = None
    values["assess_processes"] = assess_processes
    container.config.from_dict(values)
    container.worker_settings.override(providers.Object(settings))
    return container
