"""The "quote ready" email's links open the stored report and files from a private bucket.

The real `nrf worker` stores a job's results in S3 (moto's server) and sends the completed
email through the fake GOV.UK Notify; the links in that email are fetched with a plain HTTP
client, as a planner's browser would, with no AWS credentials.
"""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from support.fake_notify import FakeNotifyServer, running_fake_notify
from support.moto_server import MotoServer, free_port
from support.worker_jobs import TEMPLATES, job_body, make_queues, worker_env
from support.worker_process import WorkerProcess

BUCKET, PREFIX = "nrf-link-results", "results"
SIGNER = "AKIALINKSIGNER000001"  # the dedicated key's id, as worker.yaml's secret gives it
LIFETIME = 3600


@pytest.fixture
def stack(aws: MotoServer, tmp_path: Path) -> Iterator[tuple[Any, Any, FakeNotifyServer]]:
    sqs, s3 = aws.client("sqs"), aws.client("s3")
    queues = make_queues(sqs, "link_jobs")
    s3.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": "eu-west-2"})
    with running_fake_notify() as notify:
        env = worker_env(
            aws.endpoint_url,
            queues.name,
            tmp_path / "unused",
            free_port(),
            notify,
            NRF_RESULT_STORE="s3",
            NRF_RESULTS_BUCKET=BUCKET,
            NRF_RESULTS_PREFIX=PREFIX,
            NRF_RESULT_LINK_SECONDS=str(LIFETIME),
            NRF_RESULT_LINK_ACCESS_KEY_ID=SIGNER,
            NRF_RESULT_LINK_SECRET_ACCESS_KEY="link-signer-secret",
        )
        # Not the deployment's base URL: in S3 the links are presigned, whatever it says.
        env.pop("GOVUK_NOTIFY_RESULTS_BASE_URL")
        worker = WorkerProcess(env).start()
        try:
            worker.wait_for("worker_started", timeout=90)
            yield worker, (sqs, queues.url, s3), notify
        finally:
            worker.close()


def fetch(url: str) -> bytes:
    assert url.startswith("http://127.0.0.1:"), url  # moto, never the internet
    with urllib.request.urlopen(url, timeout=10) as answer:
        assert answer.status == 200
        return bytes(answer.read())


def test_the_completed_emails_links_fetch_the_stored_report_and_files(stack: Any) -> None:
    worker, (sqs, queue_url, s3), notify = stack
    sqs.send_message(QueueUrl=queue_url, MessageBody=job_body("link-1"))
    worker.wait_for("job_finished", timeout=60, job_id="link-1")

    [email] = [
        e
        for e in notify.emails
        if e["reference"] == "link-1" and e["template_id"] == TEMPLATES["COMPLETED"]
    ]
    personal = email["personalisation"]
    report = s3.get_object(Bucket=BUCKET, Key=f"{PREFIX}/link-1/result.html")["Body"].read()
    assert report.startswith(b"<!doctype html>")
    assert fetch(personal["report_link"]) == report

    # Every stored result file is listed, the report first, and each link fetches its file.
    links = dict(
        line.removeprefix("* ").split(": ", 1) for line in personal["result_files"].splitlines()
    )
    assert list(links) == [
        "result.html",
        "result.json",
        "result.csv",
        "result.levy.csv",
        "result.geojson",
        "result.provenance.json",
    ]
    for name, url in links.items():
        stored = s3.get_object(Bucket=BUCKET, Key=f"{PREFIX}/link-1/{name}")["Body"].read()
        assert fetch(url) == stored, name
    assert json.loads(fetch(links["result.json"]))["stamp"]["reference"] == "link-1"

    # Signed with the dedicated key for the configured lifetime, and the email says until when.
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(personal["report_link"]).query)
    assert query["X-Amz-Algorithm"] == ["AWS4-HMAC-SHA256"]
    assert query["X-Amz-Credential"][0].startswith(SIGNER + "/")
    assert query["X-Amz-Expires"] == [str(LIFETIME)]
    signed = datetime.strptime(query["X-Amz-Date"][0], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    ends = signed.timestamp() + LIFETIME
    # The worker takes its own clock's time a moment before botocore stamps the URL, and
    # floors it to the minute: the same minute, or the one before if a minute turned between.
    stated = {
        f"These links work until {datetime.fromtimestamp(t // 60 * 60, UTC):%d %B %Y %H:%M} UTC."
        for t in (ends, ends - 60)
    }
    assert personal["links_expiry"].split(" After")[0] in stated
