"""The job process's root: one job from its files to its results, emails and outcome.

The worker process builds on it too (worker.py): a job that outlives its deadline is ended
there with this root's ``fail_job``, so the two processes end a job with the same wiring.
"""

from __future__ import annotations

from dependency_injector import providers

from nrf.adapters.environment.settings import WorkerSettings
from nrf.adapters.notifier.data_labelling_notifier import DataLabellingNotifier
from nrf.adapters.outputs.html_report import report_renderer
from nrf.adapters.result_store.local_result_links import LocalResultLinks
from nrf.adapters.result_store.s3_presigned_links import S3PresignedLinks
from nrf.adapters.site_boundaries.s3_job_boundary_source import S3JobBoundarySource
from nrf.domain.email_fields import NotifySettings
from nrf.entrypoints.roots import builders
from nrf.entrypoints.roots.core import Core, build
from nrf.service_layer.fail_job import FailJob
from nrf.service_layer.job_end import JobEnd
from nrf.service_layer.notifications import NotificationLedger
from nrf.service_layer.process_job import ProcessJob
from nrf.service_layer.started_email import StartedEmail


class JobRoot(Core):
    """ProcessJob and FailJob over the core's bundle, store and notifier."""

    config = Core.config
    # A job's emails say whether its bundle is synthetic; with BACKEND_BASE_URL they go with
    # the result reports to the backend (delivery_channels.py).
    job_notifier = providers.Singleton(
        DataLabellingNotifier, inner=Core.notifier, bundle=Core.boundary_data
    )
    job_delivery = builders.delivery_provider(
        job_notifier, Core.ops_records, Core.clock, Core.sleeper, config
    )
    boundary_source = providers.Singleton(
        S3JobBoundarySource,
        client=Core.s3_client,
        bucket=config.input_bucket,
        prefix=config.input_prefix,
        limits=Core.limits,
    )
    result_links = providers.Selector(
        config.result_store,
        local=providers.Singleton(
            LocalResultLinks, root=config.results_dir, base_url=config.results_base_url
        ),
        s3=providers.Singleton(
            S3PresignedLinks,
            client=providers.Singleton(
                builders.link_signer,
                region=config.region,
                endpoint_url=config.endpoint_url,
                key_id=config.result_link_access_key_id,
                secret=config.result_link_secret_access_key,
            ),
            bucket=config.results_bucket,
            prefix=config.results_prefix,
            seconds=config.result_link_seconds,
        ),
    )
    notify_settings = providers.Factory(
        NotifySettings,
        results_base_url=config.results_base_url,
        support_email=config.support_email,
    )
    ledger = providers.Singleton(
        NotificationLedger,
        store=Core.result_store,
        notifier=job_delivery,
        settings=notify_settings,
        links=result_links,
        clock=Core.clock,
        report_results=providers.Callable(bool, config.backend_base_url),
    )
    # Every ending of a job (job_end.py): store, settle the notifications, decide the message.
    job_end = providers.Singleton(
        JobEnd,
        store=Core.result_store,
        ledger=ledger,
        decider=Core.outcome_decider,
        clock=Core.clock,
    )
    fail_job = providers.Singleton(FailJob, end=job_end)
    job_report = providers.Factory(report_renderer, Core.boundary_data, Core.clock)
    process_job = providers.Singleton(
        ProcessJob,
        assess=Core.assess_developments,
        boundaries=boundary_source,
        store=Core.result_store,
        started=providers.Singleton(StartedEmail, notifier=job_delivery, settings=notify_settings),
        end=job_end,
        clock=Core.clock,
        render=job_report,
        default_rules=config.default_rules,
        limits=Core.limits,
        bundle=Core.boundary_data,
        quote_clock=providers.Callable(builders.quote_clock, config.test_quote_date),
    )


def build_job_root(settings: WorkerSettings | None = None) -> JobRoot:
    """The root of one job process (each builds its own: clients and the bundle are per process)."""
    return build(JobRoot, settings=settings)
