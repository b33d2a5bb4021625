"""botocore settings for each AWS client, stated here rather than inherited from defaults.

botocore retries on its own (legacy mode: up to 5 attempts) beneath whatever the caller
does. The SES notifier already retries with its own backoff and time budget (4 attempts),
so botocore's retries there would multiply into 20 sends, past that budget: SES gets one
attempt per call. SQS and S3 calls have no retry of ours, so botocore's standard mode
(3 attempts, jittered backoff, throttling-aware) does it. Timeouts are explicit: the SQS
read timeout must outlast a 20-second long poll, or every empty receive would time out.
"""

from __future__ import annotations

from botocore.config import Config

CONNECT_TIMEOUT_SECONDS = 5
READ_TIMEOUTS_SECONDS = {"sqs": 30, "s3": 60, "sesv2": 15}
TOTAL_ATTEMPTS = {"sqs": 3, "s3": 3, "sesv2": 1}


def client_config(service: str) -> Config:
    """The Config for a boto3 client of ``service`` ("sqs", "s3" or "sesv2")."""
    return Config(
        retries={"mode": "standard", "total_max_attempts": TOTAL_ATTEMPTS[service]},
        connect_timeout=CONNECT_TIMEOUT_SECONDS,
        read_timeout=READ_TIMEOUTS_SECONDS[service],
    )
