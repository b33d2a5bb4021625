"""The composition root: one dependency-injector container per process."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import attrs
import boto3
from dependency_injector import containers, providers

from nrf.adapters.aws_config import client_config
from nrf.adapters.boundary_data.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.adapters.clock.system_clock import SystemClock, SystemSleeper
from nrf.adapters.job_queue.sqs_job_queue import SqsJobQueue
from nrf.adapters.notifier.govuk_notify_notifier import NOTIFY_BASE_URL, GovUkNotifyNotifier
from nrf.adapters.notifier.log_notifier import LogNotifier
from nrf.adapters.notifier.ses_notifier import SesNotifier
from nrf.adapters.outputs.result_files import job_files
from nrf.adapters.result_store.local_result_store import LocalResultStore
from nrf.adapters.result_store.s3_result_store import S3ResultStore
from nrf.adapters.site_boundaries.s3_job_boundary_source import S3JobBoundarySource
from nrf.adapters.site_map.forked_site_map import ForkedSiteMap
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.jobs import NotificationKind
from nrf.domain.validation import InputLimits
from nrf.entrypoints.settings import WorkerSettings
from nrf.service_layer.job_emails import NotifySettings
from nrf.service_layer.process_job import ProcessJob


def bundled_reference_data() -> Path:
    """The synthetic Norfolk demo bundle shipped inside the package."""
    return Path(str(resources.files("nrf") / "data" / "synthetic-norfolk.gpkg"))


def bundled_samples() -> Path:
    """The Open Government Licence sample boundaries shipped inside the package."""
    return Path(str(resources.files("nrf") / "data" / "samples" / "defra-rlb-samples"))


def _queue(client: object, url: str | None, name: str) -> SqsJobQueue:
    return SqsJobQueue(client, url) if url else SqsJobQueue.from_queue_name(client, name)


def _templates(started: str | None, completed: str | None, failed: str | None) -> dict:
    return {
        NotificationKind.STARTED: started or "",
        NotificationKind.COMPLETED: completed or "",
        NotificationKind.FAILED: failed or "",
        NotificationKind.DEAD_LETTERED: failed or "",
    }


class Container(containers.DeclarativeContainer):
    """Wires adapters to the domain; tests override providers with fakes."""

    config = providers.Configuration()

    clock = providers.Singleton(SystemClock)
    sleeper = providers.Singleton(SystemSleeper)

    boundary_data = providers.Singleton(GeoPackageBoundaryData, path=config.reference_data)
    site_map = providers.Singleton(ForkedSiteMap, processes=config.assess_processes.as_(int))
    assess_developments = providers.Factory(
        AssessDevelopments, repository=boundary_data, site_map=site_map
    )

    # boto3 clients are made here, lazily, once per process (they are not fork-safe).
    sqs_client = providers.Singleton(
        boto3.client,
        "sqs",
        region_name=config.region,
        endpoint_url=config.endpoint_url,
        config=providers.Callable(client_config, "sqs"),
    )
    s3_client = providers.Singleton(
        boto3.client,
        "s3",
        region_name=config.region,
        endpoint_url=config.endpoint_url,
        config=providers.Callable(client_config, "s3"),
    )
    ses_client = providers.Singleton(
        boto3.client,
        "sesv2",
        region_name=config.region,
        endpoint_url=config.endpoint_url,
        config=providers.Callable(client_config, "sesv2"),
    )

    job_queue = providers.Singleton(
        _queue, client=sqs_client, url=config.queue_url, name=config.queue_name
    )
    dead_letter_queue = providers.Singleton(
        _queue, client=sqs_client, url=None, name=config.dlq_name
    )

    result_store = providers.Selector(
        config.result_store,
        local=providers.Singleton(LocalResultStore, root=config.results_dir),
        s3=providers.Singleton(
            S3ResultStore, client=s3_client, bucket=config.results_bucket,
            prefix=config.results_prefix,
        ),
    )  # fmt: skip

    notifier = providers.Selector(
        config.notifier,
        log=providers.Singleton(LogNotifier),
        govuk_notify=providers.Singleton(
            GovUkNotifyNotifier.from_api_key,
            config.notify_api_key,
            providers.Callable(
                _templates, config.template_started, config.template_completed,
                config.template_failed,
            ),
            base_url=config.notify_base_url,
            sleeper=sleeper, clock=clock, allowed_domains=config.allowed_domains,
        ),
        ses=providers.Singleton(
            SesNotifier, client=ses_client, from_address=config.ses_from_address,
            sleeper=sleeper, clock=clock, allowed_domains=config.allowed_domains,
        ),
    )  # fmt: skip

    limits = providers.Singleton(
        InputLimits,
        max_file_bytes=config.max_file_bytes.as_(int),
        max_features=config.max_sites_per_job.as_(int),
        max_vertices_per_feature=config.max_vertices_per_site.as_(int),
        max_total_vertices=config.max_total_vertices.as_(int),
        max_site_area_ha=config.max_site_area_ha.as_(float),
        max_decompressed_bytes=config.max_decompressed_bytes.as_(int),
    )

    boundary_source = providers.Singleton(
        S3JobBoundarySource, client=s3_client, bucket=config.input_bucket,
        prefix=config.input_prefix, limits=limits,
    )  # fmt: skip

    process_job = providers.Singleton(
        ProcessJob,
        assess=assess_developments,
        boundaries=boundary_source,
        store=result_store,
        notifier=notifier,
        clock=clock,
        render=providers.Object(job_files),
        settings=providers.Factory(
            NotifySettings, results_base_url=config.results_base_url,
            support_email=config.support_email,
        ),
        default_rules=config.default_rules,
        limits=limits,
        # A claim lives as long as the message stays hidden; the worker renews both.
        lease_seconds=config.visibility_timeout.as_(float),
        retry_base=config.retry_base_seconds.as_(int),
    )  # fmt: skip


def build_container(
    reference_data: str | Path | None = None,
    settings: WorkerSettings | None = None,
    assess_processes: int = 1,
) -> Container:
    """One container for this process, configured from worker settings when given.

    ``assess_processes`` > 1 splits a batch of sites over forked processes (`nrf assess`).
    """
    container = Container()
    settings = settings or WorkerSettings()
    values = attrs.asdict(settings)
    values["notify_base_url"] = settings.notify_base_url or NOTIFY_BASE_URL
    values["dlq_name"] = settings.dlq_name or f"{settings.queue_name}_dlq"
    path = reference_data or settings.reference_data
    values["reference_data"] = str(path or bundled_reference_data())
    values["assess_processes"] = assess_processes
    container.config.from_dict(values)
    return container
