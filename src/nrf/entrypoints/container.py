"""The composition root: one dependency-injector container per process.

Over 200 lines: the composition root names every provider in one place, on purpose.
"""

from __future__ import annotations

import functools
from datetime import date
from importlib import resources
from pathlib import Path
from typing import Any

import attrs
import boto3
from botocore.config import Config
from dependency_injector import containers, providers

from nrf.adapters.aws_config import client_config
from nrf.adapters.backend.http_backend_results import HttpBackendResults
from nrf.adapters.boundary_data.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.adapters.clock.fixed_day_clock import FixedDayClock
from nrf.adapters.clock.system_clock import SystemClock, SystemSleeper
from nrf.adapters.job_queue.job_inbox import ReadingJobInbox
from nrf.adapters.job_queue.sqs_job_queue import SqsJobQueue
from nrf.adapters.job_queue.sqs_queue_inspector import SqsQueueInspector
from nrf.adapters.notifier.data_labelling_notifier import DataLabellingNotifier
from nrf.adapters.notifier.delivery_channels import DeliveryChannels
from nrf.adapters.notifier.govuk_notify_notifier import NOTIFY_BASE_URL, GovUkNotifyNotifier
from nrf.adapters.notifier.log_notifier import LogNotifier
from nrf.adapters.notifier.ses_notifier import SesNotifier
from nrf.adapters.outputs.html_report import report_renderer
from nrf.adapters.result_store.local_ops_records import LocalOpsRecords
from nrf.adapters.result_store.local_result_links import LocalResultLinks
from nrf.adapters.result_store.local_result_store import LocalResultStore
from nrf.adapters.result_store.local_store_inventory import LocalStoreInventory
from nrf.adapters.result_store.result_file_readers import LocalResultFiles, S3ResultFiles
from nrf.adapters.result_store.s3_ops_records import S3OpsRecords
from nrf.adapters.result_store.s3_presigned_links import S3PresignedLinks
from nrf.adapters.result_store.s3_result_store import S3ResultStore
from nrf.adapters.result_store.s3_store_inventory import S3StoreInventory
from nrf.adapters.site_boundaries.s3_job_boundary_source import S3JobBoundarySource
from nrf.adapters.site_map.forked_site_map import ForkedSiteMap
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.email_fields import NotifySettings
from nrf.domain.jobs import NotificationKind, QueueFatalError
from nrf.entrypoints.assess_limits import input_limits
from nrf.entrypoints.logging_setup import publish_metrics
from nrf.entrypoints.settings import WorkerSettings
from nrf.entrypoints.worker.in_flight import InFlight
from nrf.entrypoints.worker.job_processes import JobProcesses
from nrf.entrypoints.worker.loop import WorkerLoop
from nrf.service_layer.boundary_checks import CheckBoundary
from nrf.service_layer.defra_boundary_check import CheckBoundaryAsDefra
from nrf.service_layer.drain_dead_letters import DrainDeadLetters
from nrf.service_layer.fail_job import FailJob
from nrf.service_layer.fleet_heartbeat import FleetHeartbeat
from nrf.service_layer.fleet_status import ReadFleetStatus
from nrf.service_layer.housekeeping import Housekeep
from nrf.service_layer.job_end import JobEnd
from nrf.service_layer.job_outcome import OutcomeDecider, RetryPolicy
from nrf.service_layer.notifications import NotificationLedger
from nrf.service_layer.process_job import ProcessJob
from nrf.service_layer.quotes import GetQuote
from nrf.service_layer.rerun_refused import RerunRefusedQuotes
from nrf.service_layer.sent_once import SentOnce
from nrf.service_layer.stall_alerts import WatchForStalls


def bundled_reference_data() -> Path:
    """The synthetic Norfolk demo bundle shipped inside the package."""
    return Path(str(resources.files("nrf") / "data" / "synthetic-norfolk.gpkg"))


def bundled_samples() -> Path:
    """The Open Government Licence sample boundaries shipped inside the package."""
    return Path(str(resources.files("nrf") / "data" / "samples" / "defra-rlb-samples"))


def _quote_clock(day: date | None) -> FixedDayClock | None:
    """A test's fixed quote day; None prices each quote on the day its job starts (UTC)."""
    return None if day is None else FixedDayClock(day)


def _queue(client: object, url: str | None, name: str) -> SqsJobQueue:
    return SqsJobQueue(client, url) if url else SqsJobQueue.from_queue_name(client, name)


def _dlq_url(dead_letter_queue: Any) -> str | None:
    try:
        url: str = dead_letter_queue().queue_url
    except QueueFatalError:
        return None  # no DLQ: its depth reads 0, and the queue still works
    return url


def _templates(
    started: str | None, completed: str | None, failed: str | None, delayed: str | None = None
) -> dict:
    return {
        NotificationKind.STARTED: started or "",
        NotificationKind.COMPLETED: completed or "",
        NotificationKind.FAILED: failed or "",
        NotificationKind.DEAD_LETTERED: failed or "",
        NotificationKind.QUEUE_STALLED: failed or "",  # to support, like dead letters
        NotificationKind.QUOTE_REFUSED: failed or "",  # to support, like dead letters
        NotificationKind.DELAYED: delayed or "",
    }


def _delivery(
    emails: Any,
    records: Any,
    clock: Any,
    sleeper: Any,
    base_url: str | None,
    api_key: str | None,
    timeout: float,
    retries: int,
    allow_loopback_http: bool = False,
) -> Any:
    """The emails alone; with BACKEND_BASE_URL, emails and result reports to the backend."""
    if not base_url:
        return emails
    backend = HttpBackendResults(
        base_url,
        api_key or "",
        timeout=timeout,
        max_retries=retries,
        sleeper=sleeper,
        clock=clock,
        allow_loopback_http=allow_loopback_http,
    )
    return DeliveryChannels(emails=emails, backend=backend, records=records, clock=clock)


def _by_result_store(config: Any, s3_client: Any, *, local: type, s3: type) -> Any:
    """The local or the S3 one of a pair, as NRF_RESULT_STORE says, kept where the results are."""
    return providers.Selector(
        config.result_store,
        local=providers.Singleton(local, root=config.results_dir),
        s3=providers.Singleton(
            s3, client=s3_client, bucket=config.results_bucket, prefix=config.results_prefix
        ),
    )


def _link_signer(
    region: str, endpoint_url: str | None, key_id: str | None, secret: str | None
) -> Any:
    """The S3 client that signs the email's links: SigV4, with the dedicated key when set
    (a role's temporary credentials would end the links with the role's session)."""
    keys = {"aws_access_key_id": key_id, "aws_secret_access_key": secret} if key_id else {}
    return boto3.client(
        "s3",
        region_name=region,
        endpoint_url=endpoint_url,
        config=Config(signature_version="s3v4"),
        **keys,
    )


class Container(containers.DeclarativeContainer):
    """Wires adapters to the domain; tests override providers with fakes."""

    config = providers.Configuration()
    worker_settings = providers.Object(WorkerSettings())

    clock = providers.Singleton(SystemClock)
    sleeper = providers.Singleton(SystemSleeper)

    boundary_data = providers.Singleton(
        GeoPackageBoundaryData, path=config.reference_data, verified=config.reference_data_verified
    )
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
    cloudwatch_client = providers.Singleton(
        boto3.client, "cloudwatch", region_name=config.region, endpoint_url=config.endpoint_url
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

    result_store = _by_result_store(config, s3_client, local=LocalResultStore, s3=S3ResultStore)
    result_links = providers.Selector(
        config.result_store,
        local=providers.Singleton(
            LocalResultLinks, root=config.results_dir, base_url=config.results_base_url
        ),
        s3=providers.Singleton(
            S3PresignedLinks,
            client=providers.Singleton(
                _link_signer,
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

    # Beside the results, in the same place: heartbeats, stall state, notices; and listings.
    ops_records = _by_result_store(config, s3_client, local=LocalOpsRecords, s3=S3OpsRecords)
    store_inventory = _by_result_store(
        config, s3_client, local=LocalStoreInventory, s3=S3StoreInventory
    )

    notifier = providers.Selector(
        config.notifier,
        log=providers.Singleton(LogNotifier),
        govuk_notify=providers.Singleton(
            GovUkNotifyNotifier.from_api_key,
            config.notify_api_key,
            providers.Callable(
                _templates,
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

    # A job's emails say whether its bundle is synthetic (nrf dlq's need no bundle).
    job_notifier = providers.Singleton(DataLabellingNotifier, inner=notifier, bundle=boundary_data)

    # What the ledger settles through: emails and, when BACKEND_BASE_URL is set, the backend.
    # A job's go through the synthetic label; `nrf dlq` opens no bundle, so its go unlabelled.
    job_delivery = providers.Singleton(
        _delivery,
        job_notifier,
        ops_records,
        clock,
        sleeper,
        config.backend_base_url,
        config.backend_api_key,
        config.backend_callback_timeout.as_(float),
        config.backend_callback_max_retries.as_(int),
        config.backend_allow_loopback_http.as_(bool),
    )
    delivery = providers.Singleton(
        _delivery,
        notifier,
        ops_records,
        clock,
        sleeper,
        config.backend_base_url,
        config.backend_api_key,
        config.backend_callback_timeout.as_(float),
        config.backend_callback_max_retries.as_(int),
        config.backend_allow_loopback_http.as_(bool),
    )

    limits = providers.Singleton(input_limits, worker_settings)

    boundary_source = providers.Singleton(
        S3JobBoundarySource,
        client=s3_client,
        bucket=config.input_bucket,
        prefix=config.input_prefix,
        limits=limits,
    )

    # The stores implement both ports; a job's claim lives beside its results.
    job_claims = result_store
    job_inbox = providers.Singleton(ReadingJobInbox, queue=job_queue)
    dead_letter_inbox = providers.Singleton(ReadingJobInbox, queue=dead_letter_queue)

    retry_policy = providers.Singleton(RetryPolicy, base_seconds=config.retry_base_seconds.as_(int))
    notify_settings = providers.Factory(
        NotifySettings,
        results_base_url=config.results_base_url,
        support_email=config.support_email,
    )
    ledger = providers.Singleton(
        NotificationLedger,
        store=result_store,
        notifier=job_delivery,
        settings=notify_settings,
        links=result_links,
        clock=clock,
        report_results=providers.Callable(bool, config.backend_base_url),
    )
    # nrf dlq opens no bundle, so its emails go out unlabelled.
    dead_letter_ledger = providers.Singleton(
        NotificationLedger, store=result_store, notifier=delivery, settings=notify_settings
    )
    outcome_decider = providers.Singleton(OutcomeDecider, retry=retry_policy)
    # Every ending of a job (job_end.py): the worker's, and nrf dlq's over its own ledger.
    job_end = providers.Singleton(
        JobEnd, store=result_store, ledger=ledger, decider=outcome_decider, clock=clock
    )
    dead_letter_end = providers.Singleton(
        JobEnd, store=result_store, ledger=dead_letter_ledger, decider=outcome_decider, clock=clock
    )
    fail_job = providers.Singleton(FailJob, end=job_end)

    job_report = providers.Factory(report_renderer, boundary_data, clock)
    process_job = providers.Singleton(
        ProcessJob,
        assess=assess_developments,
        boundaries=boundary_source,
        store=result_store,
        ledger=ledger,
        end=job_end,
        clock=clock,
        render=job_report,
        default_rules=config.default_rules,
        limits=limits,
        bundle=boundary_data,
        quote_clock=providers.Callable(_quote_clock, config.test_quote_date),
    )

    # The operator's commands (`nrf status`, `nrf housekeep`) and the fleet heartbeat.
    queue_inspector = providers.Singleton(
        SqsQueueInspector,
        sqs=sqs_client,
        queue_url=job_queue.provided.queue_url,
        dlq_url=providers.Callable(_dlq_url, dead_letter_queue.provider),
        clock=clock,
        cloudwatch=cloudwatch_client,
    )
    read_fleet_status = providers.Factory(
        ReadFleetStatus,
        queue=queue_inspector,
        records=ops_records,
        inventory=store_inventory,
        store=result_store,
        clock=clock,
        stuck_after_seconds=config.stuck_after_seconds.as_(float),
    )
    housekeep = providers.Factory(
        Housekeep,
        inventory=store_inventory,
        records=ops_records,
        clock=clock,
        retention_days=config.result_retention_days.as_(int),
    )
    # Stall and delay notices: the at-most-once channel beside the ledger (sent_once.py).
    sent_once = providers.Singleton(SentOnce, records=ops_records, notifier=notifier, clock=clock)
    watch_for_stalls = providers.Factory(
        WatchForStalls,
        queue=queue_inspector,
        records=ops_records,
        once=sent_once,
        clock=clock,
        support_email=config.support_email,
        threshold_seconds=config.stall_alert_seconds.as_(float),
    )
    # The worker process passes its identity and activity (fleet_beats.py).
    fleet_heartbeat = providers.Factory(FleetHeartbeat, records=ops_records, clock=clock)

    drain_dead_letters = providers.Factory(
        DrainDeadLetters,
        dlq=dead_letter_inbox,
        store=result_store,
        end=dead_letter_end,
        clock=clock,
    )

    # The worker process; the heartbeat store, stop event and ack thread are passed in by it.
    job_processes = providers.Factory(JobProcesses, settings=worker_settings)
    in_flight = providers.Factory(
        InFlight,
        inbox=job_inbox,
        claims=job_claims,
        settings=worker_settings,
        clock=clock,
        retry=retry_policy,
    )
    worker_loop = providers.Factory(
        WorkerLoop,
        inbox=job_inbox,
        in_flight=in_flight,
        settings=worker_settings,
        clock=clock,
        retry=retry_policy,
        record_timeout=fail_job.provided.timed_out,
        metrics=providers.Factory(functools.partial, publish_metrics, config.metrics_namespace),
    )

    # The quote API (`nrf serve`): the same assessment, limits and store as the worker.
    get_quote = providers.Factory(
        GetQuote,
        assess=assess_developments,
        limits=limits,
        default_rules=config.default_rules,
        clock=clock,
    )
    check_boundary = providers.Factory(
        CheckBoundary, repository=boundary_data, limits=limits, default_rules=config.default_rules
    )
    check_boundary_as_defra = providers.Factory(CheckBoundaryAsDefra, repository=boundary_data)
    result_files = providers.Selector(
        config.result_store,
        local=providers.Singleton(LocalResultFiles, result_store),
        s3=providers.Singleton(S3ResultFiles, result_store, s3_client),
    )
    rerun_refused_quotes = providers.Factory(
        RerunRefusedQuotes, store=result_store, files=result_files, queue=job_queue
    )


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
    if reference_data is not None or settings.reference_data is None:
        # The verified digest belongs to settings.reference_data only (verify_reference_data).
        values["reference_data_verified"] = None
    values["assess_processes"] = assess_processes
    container.config.from_dict(values)
    container.worker_settings.override(providers.Object(settings))
    return container
