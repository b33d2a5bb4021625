"""The operator's commands' root (`nrf status`, `nrf housekeep`): read and tidy the fleet."""

from __future__ import annotations

import boto3
from dependency_injector import providers

from nrf.adapters.environment.settings import WorkerSettings
from nrf.adapters.job_queue.sqs_queue_inspector import SqsQueueInspector
from nrf.adapters.result_store.local_store_inventory import LocalStoreInventory
from nrf.adapters.result_store.s3_store_inventory import S3StoreInventory
from nrf.entrypoints.roots import builders
from nrf.entrypoints.roots.core import Core, build
from nrf.service_layer.fleet_status import ReadFleetStatus
from nrf.service_layer.housekeeping import Housekeep
from nrf.service_layer.sent_once import SentOnce
from nrf.service_layer.stall_alerts import WatchForStalls


class OpsRoot(Core):
    """The fleet's status, the store's tidying and the stall watch."""

    config = Core.config
    cloudwatch_client = providers.Singleton(
        boto3.client, "cloudwatch", region_name=config.region, endpoint_url=config.endpoint_url
    )
    dead_letter_queue = providers.Singleton(
        builders.queue, client=Core.sqs_client, url=None, name=config.dlq_name
    )
    queue_inspector = providers.Singleton(
        SqsQueueInspector,
        sqs=Core.sqs_client,
        queue_url=Core.job_queue.provided.queue_url,
        dlq_url=providers.Callable(builders.dlq_url, dead_letter_queue.provider),
        clock=Core.clock,
        cloudwatch=cloudwatch_client,
    )
    # The listings of what is kept beside the results, for status and housekeeping.
    store_inventory = builders.by_result_store(
        config, Core.s3_client, local=LocalStoreInventory, s3=S3StoreInventory
    )
    read_fleet_status = providers.Factory(
        ReadFleetStatus,
        queue=queue_inspector,
        records=Core.ops_records,
        inventory=store_inventory,
        store=Core.result_store,
        clock=Core.clock,
        stuck_after_seconds=config.stuck_after_seconds.as_(float),
    )
    housekeep = providers.Factory(
        Housekeep,
        inventory=store_inventory,
        records=Core.ops_records,
        clock=Core.clock,
        retention_days=config.result_retention_days.as_(int),
    )
    # Stall and delay notices: the at-most-once channel beside the ledger (sent_once.py).
    sent_once = providers.Singleton(
        SentOnce, records=Core.ops_records, notifier=Core.notifier, clock=Core.clock
    )
    watch_for_stalls = providers.Factory(
        WatchForStalls,
        queue=queue_inspector,
        records=Core.ops_records,
        once=sent_once,
        clock=Core.clock,
        support_email=config.support_email,
        threshold_seconds=config.stall_alert_seconds.as_(float),
    )


def build_ops_root(settings: WorkerSettings | None = None) -> OpsRoot:
    """The root of one operator's command."""
    return build(OpsRoot, settings=settings)
