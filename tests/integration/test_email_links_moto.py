"""The shipped worker's emails: links that open the stored files, and no false warnings.

The real `nrf worker`, configured as worker.yaml configures it (S3 result store, links signed
by a dedicated key, no "started" template), stores a job's results in S3 (moto's server) and
sends the completed email through the fake GOV.UK Notify; the links in that email are fetched
with a plain HTTP client, as a planner's browser would, with no AWS credentials.
"""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from support.fake_notify import FakeNotifyServer, running_fake_notify
from support.moto_server import MotoServer, free_port
from support.worker_jobs import TEMPLATES, job_body, make_queues, worker_env
from support.worker_process import WorkerProcess

BUCKET, PREFIX = "nrf-link-results", "results"
SIGNER = "AKIALINKSIGNER000001"  # the dedicated key's id, as worker.yaml's secret gives it
LIFETIME = 3600


@pytest.fixture(scope="module")
def stack(
    moto_server: MotoServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Any, Any, FakeNotifyServer]]:
    aws = moto_server
    aws.reset()
    tmp_path = tmp_path_factory.mktemp("links")
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
        # worker.yaml's default: NotifyTemplateStarted blank, so no "started" email.
        env["GOVUK_NOTIFY_TEMPLATE_JOB_STARTED"] = ""
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
        "result.bng.geojson",
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


def test_a_kind_left_without_a_template_is_said_once_at_start_and_never_warned(
    stack: Any,
) -> None:
    worker, (sqs, queue_url, _), notify = stack
    sqs.send_message(QueueUrl=queue_url, MessageBody=job_body("quiet-1"))
    worker.wait_for("job_finished", timeout=60, job_id="quiet-1")
    sqs.send_message(QueueUrl=queue_url, MessageBody=job_body("quiet-2"))
    worker.wait_for("job_finished", timeout=60, job_id="quiet-2")

    # The two jobs' completed emails went; no started email was asked for.
    sent = {(e["reference"], e["template_id"]) for e in notify.emails}
    assert ("quiet-1", TEMPLATES["COMPLETED"]) in sent
    assert ("quiet-2", TEMPLATES["COMPLETED"]) in sent
    assert not [e for e in notify.emails if e["template_id"] == TEMPLATES["STARTED"]]
    # Said once, at start (worker_env gives no "delayed" template either) ...
    off = [e for e in worker.events if e.get("event") == "emails_not_sent"]
    assert [e["kinds"] for e in off] == [["started", "delayed"]]
    # ... and no job logs a warning (nor an error) about it, or about anything else.
    for job in ("quiet-1", "quiet-2"):
        lines = [e for e in worker.events if e.get("job_id") == job]
        assert lines, job
        assert [e for e in lines if e.get("level") not in ("info", "debug")] == []
        assert not [e for e in lines if e.get("error") == "no_template_for_kind"]
