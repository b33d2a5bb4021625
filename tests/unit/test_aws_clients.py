"""Each boto3 client states its retries and timeouts; SES leaves retrying to the notifier.

The figures are the ones docs/worker.md promises: SQS and S3 3 attempts, SES 1; connect 5 s;
read 30 s (SQS), 60 s (S3), 15 s (SES).
"""

from __future__ import annotations

from nrf.adapters.environment.settings import load_settings
from nrf.entrypoints.roots.core import Core, build


def test_ses_makes_one_attempt_so_botocore_does_not_stack_under_the_notifier() -> None:
    client = build(Core, settings=load_settings({})).ses_client()
    assert client.meta.config.retries == {"mode": "standard", "total_max_attempts": 1}
    assert client.meta.config.connect_timeout == 5


def test_sqs_retries_in_standard_mode_and_outwaits_a_long_poll() -> None:
    settings = load_settings({"AWS_SQS_WAIT_TIME_SECONDS": "20"})
    client = build(Core, settings=settings).sqs_client()
    assert client.meta.config.retries == {"mode": "standard", "total_max_attempts": 3}
    # A receive may legitimately wait 20 s for a message: the read timeout must be longer.
    assert client.meta.config.read_timeout > settings.wait_time_seconds


def test_s3_retries_in_standard_mode_with_explicit_timeouts() -> None:
    client = build(Core, settings=load_settings({})).s3_client()
    assert client.meta.config.retries == {"mode": "standard", "total_max_attempts": 3}
    assert client.meta.config.connect_timeout == 5 and client.meta.config.read_timeout == 60
