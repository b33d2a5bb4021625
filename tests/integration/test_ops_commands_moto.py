"""`nrf status` and `nrf housekeep` on moto: what they read, what they refuse, next steps."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from support.moto_server import FAKE_CREDENTIALS, REGION, MotoServer
from support.worker_jobs import make_queues

BUCKET = "nrf-ops-results"


def env(aws: MotoServer, **overrides: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "NRF_", "GOVUK_"))}
    base.update(
        AWS_ENDPOINT_URL=aws.endpoint_url,
        AWS_REGION=REGION,
        AWS_ACCESS_KEY_ID=FAKE_CREDENTIALS["aws_access_key_id"],
        AWS_SECRET_ACCESS_KEY=FAKE_CREDENTIALS["aws_secret_access_key"],
        AWS_SQS_QUEUE_NAME="ops_q",
        NRF_RESULT_STORE="s3",
        NRF_RESULTS_BUCKET=BUCKET,
    )
    base.update(overrides)
    return {k: v for k, v in base.items() if v != ""}


def nrf(*args: str, environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", *args],
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


def fleet(aws: MotoServer) -> Any:
    queues = make_queues(aws.client("sqs"), "ops_q")
    aws.client("s3").create_bucket(
        Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": REGION}
    )
    return queues


def test_status_names_the_queue_region_and_store_it_read(aws: MotoServer) -> None:
    fleet(aws)
    done = nrf("status", environ=env(aws))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == (
        f"read: queue ops_q and dead-letter queue ops_q_dlq in {REGION} via {aws.endpoint_url}; "
        f"result store s3://{BUCKET}/results"
    )
    assert lines[-1] == "all well"


def test_status_refuses_a_local_store_that_does_not_exist(aws: MotoServer, tmp_path: Path) -> None:
    # The old fault: no S3 settings read an empty ./results and said "all well", exit 0.
    fleet(aws)
    missing = tmp_path / "results"
    environ = env(aws, NRF_RESULT_STORE="", NRF_RESULTS_BUCKET="", NRF_RESULTS_DIR=str(missing))
    done = nrf("status", environ=environ)
    assert done.returncode == 2
    assert done.stderr.startswith(
        f"error: result_store_not_found: the local result store {missing}"
    )
    assert "NRF_RESULTS_DIR" in done.stderr and "NRF_RESULT_STORE=s3" in done.stderr
    assert done.stdout == ""
    assert nrf("housekeep", "--dry-run", environ=environ).returncode == 2
    missing.mkdir()  # an existing folder is read
    assert nrf("status", environ=environ).returncode == 0


def test_a_queue_that_cannot_be_reached_is_named_with_its_region_and_variable(
    aws: MotoServer,
) -> None:
    fleet(aws)
    done = nrf("status", environ=env(aws, AWS_SQS_QUEUE_NAME="no_such_q"))
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith("error: queue_unavailable: SQS GetQueueUrl failed with ")
    assert line.endswith(
        f"queue 'no_such_q' (AWS_SQS_QUEUE_NAME) in region {REGION} (AWS_REGION), "
        f"endpoint {aws.endpoint_url} (AWS_ENDPOINT_URL)"
    )


def test_no_live_worker_says_which_service_to_look_at(aws: MotoServer) -> None:
    queues = fleet(aws)
    aws.client("sqs").send_message(QueueUrl=queues.url, MessageBody="{}")
    done = nrf("status", environ=env(aws))
    assert done.returncode == 1
    [line] = [x for x in done.stdout.splitlines() if x.startswith("no_live_worker")]
    assert line.startswith("no_live_worker: 1 message(s) waiting and no live worker; next: ")
    assert "ECS service nrf-worker" in line


def test_the_dry_runs_stall_line_agrees_with_its_metric(aws: MotoServer) -> None:
    queues = fleet(aws)

    def dry_run() -> tuple[str, int]:
        done = nrf("housekeep", "--dry-run", environ=env(aws))
        assert done.returncode == 0, done.stderr
        [line] = [x for x in done.stdout.splitlines() if x.startswith("stall:")]
        events = [json.loads(x) for x in done.stderr.splitlines() if x.startswith("{")]
        [summary] = [e for e in events if e["event"] == "housekeeping_done"]
        return line, summary["QueueStalled"]

    assert dry_run() == ("stall: none, 0 waiting (QueueStalled 0)", 0)
    aws.client("sqs").send_message(QueueUrl=queues.url, MessageBody="{}")
    line, stalled = dry_run()
    # One message, no worker: a stall (under the 900 s threshold, so no alert yet).
    assert stalled == 1
    assert line.startswith("stall: yes, 1 waiting with no live worker for ")
    assert line.endswith("(QueueStalled 1)")
