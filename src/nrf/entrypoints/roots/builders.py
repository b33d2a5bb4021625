"""The small functions the roots' providers call: an adapter chosen or built from settings.

Kept out of the containers so each root reads as a list of providers, one screen long.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import boto3
from botocore.config import Config
from dependency_injector import providers

from nrf.adapters.backend.http_backend_results import HttpBackendResults
from nrf.adapters.clock.fixed_day_clock import FixedDayClock
from nrf.adapters.job_queue.sqs_job_queue import SqsJobQueue
from nrf.adapters.notifier.delivery_channels import DeliveryChannels
from nrf.domain.jobs import NotificationKind, QueueFatalError


def quote_clock(day: date | None) -> FixedDayClock | None:
    """A test's fixed quote day; None prices each quote on the day its job starts (UTC)."""
    return None if day is None else FixedDayClock(day)


def queue(client: object, url: str | None, name: str) -> SqsJobQueue:
    return SqsJobQueue(client, url) if url else SqsJobQueue.from_queue_name(client, name)


def dlq_url(dead_letter_queue: Any) -> str | None:
    try:
        url: str = dead_letter_queue().queue_url
    except QueueFatalError:
        return None  # no DLQ: its depth reads 0, and the queue still works
    return url


def templates(
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


def delivery(
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


def delivery_provider(emails: Any, records: Any, clock: Any, sleeper: Any, config: Any) -> Any:
    """A Singleton of :func:`delivery` over ``emails``, configured from BACKEND_* settings."""
    return providers.Singleton(
        delivery,
        emails,
        records,
        clock,
        sleeper,
        config.backend_base_url,
        config.backend_api_key,
        config.backend_callback_timeout.as_(float),
        config.backend_callback_max_retries.as_(int),
        config.backend_allow_loopback_http.as_(bool),
    )


def by_result_store(config: Any, s3_client: Any, *, local: type, s3: type) -> Any:
    """The local or the S3 one of a pair, as NRF_RESULT_STORE says, kept where the results are."""
    return providers.Selector(
        config.result_store,
        local=providers.Singleton(local, root=config.results_dir),
        s3=providers.Singleton(
            s3, client=s3_client, bucket=config.results_bucket, prefix=config.results_prefix
        ),
    )


def link_signer(
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
