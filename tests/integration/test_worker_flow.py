"""The real `nrf worker` against moto over HTTP and the fake Notify server: jobs end to end."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import suppress
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from attrs import frozen

from support.fake_notify import FakeNotifyServer, running_fake_notify
from support.moto_server import MotoServer, free_port
from support.worker_jobs import (
    BNG,
    TEMPLATES,
    Queues,
    job_body,
    make_queues,
    queue_counts,
    receive_all,
    result_dirs,
    slow_boundary_geojson,
    status_of,
    worker_env,
)
from support.worker_process import WorkerProcess

INPUT_BUCKET, INPUT_PREFIX = "nrf-input", "boundaries"


@frozen
class Flow:
    worker: WorkerProcess
    sqs: Any
    s3: Any
    queues: Queues
    notify: FakeNotifyServer
    results: Path


@pytest.fixture(scope="module")
def flow(moto_server: MotoServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flow]:
    """One worker for the module (two job processes), with a short visibility timeout."""
    moto_server.reset()
    sqs, s3 = moto_server.client("sqs"), moto_server.client("s3")
    queues = make_queues(sqs, "flow_jobs", max_receive_count=3)
    s3.create_bucket(
        Bucket=INPUT_BUCKET, CreateBucketConfiguration={"LocationConstraint": "eu-west-2"}
    )
    results = tmp_path_factory.mktemp("flow-results")
    with running_fake_notify() as notify:
        env = worker_env(
            moto_server.endpoint_url,
            queues.name,
            results,
            free_port(),
            notify,
            WORKER_CONCURRENCY="2",
            AWS_SQS_MAX_MESSAGES="2",
            SQS_VISIBILITY_TIMEOUT="3",
            VISIBILITY_HEARTBEAT_SECONDS="1",
            VISIBILITY_EXTENSION_SECONDS="3",
            NRF_INPUT_BUCKET=INPUT_BUCKET,
            NRF_INPUT_PREFIX=INPUT_PREFIX,
        )
        worker = WorkerProcess(env).start()
        try:
            worker.wait_for("worker_started", timeout=90)
            yield Flow(worker, sqs, s3, queues, notify, results)
        finally:
            worker.close()


def emails_for(notify: FakeNotifyServer, job_id: str, template: str) -> list[dict[str, Any]]:
    return [
        e
        for e in notify.emails
        if e.get("reference") == job_id and e["template_id"] == TEMPLATES[template]
    ]


def assert_queues_empty(flow: Flow) -> None:
    assert queue_counts(flow.sqs, flow.queues.url) == (0, 0)
    assert queue_counts(flow.sqs, flow.queues.dlq_url) == (0, 0)


def test_a_job_flows_from_the_queue_to_a_stored_result_and_a_completed_email(flow: Flow) -> None:
    sent = flow.sqs.send_message(QueueUrl=flow.queues.url, MessageBody=job_body("flow-ok-1"))

    flow.worker.wait_for("job_finished", timeout=60, job_id="flow-ok-1")

    folder = flow.results / "flow-ok-1"
    stored = {p.name for p in folder.iterdir()}
    assert {"result.json", "result.csv", "result.levy.csv", "status.json"} <= stored
    status = status_of(flow.results, "flow-ok-1")
    assert status["status"] == "succeeded"
    assert status["trace_id"] == "trace-flow-ok-1"
    result = json.loads((folder / "result.json").read_text())
    [site] = result["sites"]
    rows = list(csv.DictReader(io.StringIO((folder / "result.csv").read_text())))
    assert len(rows) == 1
    # Worked by hand from the bundle rows the site lies in (tests/support/worker_sample_site.py:
    # land use N 0.05, P -0.01 kg/yr; 10 dwellings, under 50, so no SuDS). Wastewater at the
    # fallback works' 2030 permit, run at 90 %: 10 x 2.4 x 120 x 365.25 = 1 051 920 l/yr;
    #   N 1 051 920 x 25e-6 x 0.9 = 23.6682;  P 1 051 920 x 4.5e-6 x 0.9 = 4.260276.
    # Plus the 20 % buffer: N (0.05 + 23.6682) x 1.2 = 28.46184 -> 28.46;
    #                       P (-0.01 + 4.260276) x 1.2 = 5.1003312 -> 5.10.
    assert (site["n_total"], site["p_total"]) == (28.46, 5.1)

    assert len(emails_for(flow.notify, "flow-ok-1", "STARTED")) == 1
    [completed] = emails_for(flow.notify, "flow-ok-1", "COMPLETED")
    assert completed["email_address"] == "planner@example.gov.uk"
    personal = completed["personalisation"]
    assert personal["job_reference"] == "flow-ok-1"
    assert personal["development_name"] == "Site flow-ok-1"
    # The local store links each file under GOVUK_NOTIFY_RESULTS_BASE_URL (worker_env).
    assert personal["report_link"] == "https://nrf.example/results/flow-ok-1/result.html"
    assert personal["nitrogen_total_kg_per_year"] == "28.46"
    assert personal["phosphorus_total_kg_per_year"] == "5.10"
    # The email's levy is the stored result's: its amount excluding VAT, or "not quoted" with
    # the refusal's code (the wording is worked by hand in tests/unit/test_job_emails.py).
    if site["pricing"]:
        assert (
            personal["levy_amount"] == f"£{Decimal(site['pricing']['amount_excluding_vat']):,.2f}"
        )
    else:
        assert personal["levy_amount"].startswith("not quoted")
    # Every stored output is stamped with the job's reference (its id here).
    assert result["stamp"]["reference"] == "flow-ok-1"
    assert [n["kind"] for n in status["notifications"]] == ["completed"]

    [received] = flow.worker.matching("job_received", message_id=sent["MessageId"])
    assert received["receive_count"] == 1
    assert_queues_empty(flow)


BOWTIE = [
    [582800.0, 328200.0],
    [582840.0, 328240.0],
    [582840.0, 328200.0],
    [582800.0, 328240.0],
    [582800.0, 328200.0],
]


def test_invalid_input_is_failed_once_with_its_codes_and_deleted_at_once(flow: Flow) -> None:
    bad_geometry = job_body(
        "flow-bowtie", boundary={"type": "Polygon", "crs": BNG, "coordinates": [BOWTIE]}
    )
    bowtie = flow.sqs.send_message(QueueUrl=flow.queues.url, MessageBody=bad_geometry)
    garbage = flow.sqs.send_message(QueueUrl=flow.queues.url, MessageBody="this is { not json")
    garbage_job = f"message-{garbage['MessageId']}"

    flow.worker.wait_for("job_finished", timeout=60, job_id="flow-bowtie")
    flow.worker.wait_for("job_finished", timeout=60, job_id=garbage_job)

    status = status_of(flow.results, "flow-bowtie")
    assert status["status"] == "failed"
    assert "self_intersecting_geometry" in status["error_codes"]
    [failed_email] = emails_for(flow.notify, "flow-bowtie", "FAILED")
    assert "self_intersecting_geometry" in failed_email["personalisation"]["error_codes"]
    assert emails_for(flow.notify, "flow-bowtie", "COMPLETED") == []
    not_json = status_of(flow.results, garbage_job)
    assert (not_json["status"], not_json["error_codes"]) == ("failed", ["not_json"])
    assert not (flow.results / "flow-bowtie" / "result.json").exists()

    for sent in (bowtie, garbage):
        [received] = flow.worker.matching("job_received", message_id=sent["MessageId"])
        assert received["receive_count"] == 1
    # Deleted at once: not waiting for a retry, and never sent on to the dead-letter queue.
    assert_queues_empty(flow)
    time.sleep(3.5)  # past the visibility timeout: nothing comes back either
    assert_queues_empty(flow)
    assert flow.worker.count("job_finished", job_id="flow-bowtie") == 1


def test_a_duplicate_message_is_neither_recomputed_nor_emailed_again(flow: Flow) -> None:
    body = job_body("flow-dup")
    flow.sqs.send_message(QueueUrl=flow.queues.url, MessageBody=body)
    flow.worker.wait_for("job_finished", timeout=60, job_id="flow-dup", status="succeeded")
    stored = (flow.results / "flow-dup" / "result.json").stat().st_mtime_ns

    flow.sqs.send_message(QueueUrl=flow.queues.url, MessageBody=body)
    flow.worker.wait_for("job_already_finished", timeout=60, job_id="flow-dup")
    flow.worker.wait_for("job_finished", timeout=30, job_id="flow-dup", status="already_finished")

    assert flow.worker.count("job_stored", job_id="flow-dup") == 1
    assert (flow.results / "flow-dup" / "result.json").stat().st_mtime_ns == stored
    assert len(emails_for(flow.notify, "flow-dup", "COMPLETED")) == 1
    assert len(emails_for(flow.notify, "flow-dup", "STARTED")) == 1
    assert_queues_empty(flow)


def test_a_job_longer_than_the_visibility_timeout_is_not_handed_to_another_consumer(
    flow: Flow,
) -> None:
    # The job is held up for twice the 3 s visibility timeout by stopping the job processes
    # before it is sent: it outlasts the timeout on any machine, however fast, and the worker
    # process alone must keep its message hidden meanwhile.
    job_processes = [int(e["pid"]) for e in flow.worker.matching("job_process_ready")]
    for pid in job_processes:
        os.kill(pid, signal.SIGSTOP)
    try:
        sent = flow.sqs.send_message(QueueUrl=flow.queues.url, MessageBody=job_body("flow-slow"))
        flow.worker.wait_for("job_received", timeout=30, message_id=sent["MessageId"])
        held_until = time.monotonic() + 2 * 3
        stolen: list[dict[str, Any]] = []
        while time.monotonic() < held_until:
            # Another consumer polling all along: it must never see the message in flight.
            stolen += receive_all(flow.sqs, flow.queues.url, wait=1)
        ran = flow.worker.count("job_finished", job_id="flow-slow")
    finally:
        for pid in job_processes:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
    flow.worker.wait_for("job_finished", timeout=60, job_id="flow-slow")

    assert ran == 0, "the job processes were stopped: the job was still in flight throughout"
    assert stolen == []
    assert flow.worker.count("visibility_extended", message_id=sent["MessageId"]) >= 2
    assert flow.worker.count("job_received", message_id=sent["MessageId"]) == 1
    [stats] = flow.worker.matching("visibility_extension_stats", job_id="flow-slow")
    assert stats["count"] >= 2 and stats["last_error"] is None
    assert status_of(flow.results, "flow-slow")["status"] == "succeeded"
    assert_queues_empty(flow)


def test_two_job_processes_complete_several_jobs_each_once(flow: Flow) -> None:
    # Two genuinely slow jobs first: with two job processes the second must start before
    # the first finishes (which quick jobs cannot show: one process may take them all).
    key = f"{INPUT_PREFIX}/slow-pair.geojson"
    flow.s3.put_object(Bucket=INPUT_BUCKET, Key=key, Body=slow_boundary_geojson(40_000))
    slow = ["flow-pair-0", "flow-pair-1"]
    for job_id in slow:
        body = job_body(job_id, boundary_uri=f"s3://{INPUT_BUCKET}/{key}")
        flow.sqs.send_message(QueueUrl=flow.queues.url, MessageBody=body)
    job_ids = [f"flow-many-{i}" for i in range(6)]
    for job_id in job_ids:
        flow.sqs.send_message(QueueUrl=flow.queues.url, MessageBody=job_body(job_id))

    for job_id in slow + job_ids:
        flow.worker.wait_for("job_finished", timeout=120, job_id=job_id)

    stored = [flow.worker.wait_for("job_stored", job_id=j) for j in slow]
    assert stored[0]["pid"] != stored[1]["pid"], "each slow job had its own job process"
    first_done = min(flow.worker.wait_for("job_finished", job_id=j)["ts"] for j in slow)
    started = [
        json.loads((flow.results / j / "timings.json").read_text())["started_at"] for j in slow
    ]
    assert max(started) < first_done, "the second slow job started before the first finished"
    for job_id in slow + job_ids:
        assert flow.worker.count("job_finished", job_id=job_id) == 1
        assert status_of(flow.results, job_id)["status"] == "succeeded"
        assert len(emails_for(flow.notify, job_id, "COMPLETED")) == 1
    assert set(job_ids) <= set(result_dirs(flow.results))
    assert_queues_empty(flow)


def test_nrf_dlq_fails_and_reports_a_dead_lettered_job(flow: Flow) -> None:
    queues = make_queues(flow.sqs, "flow_dlq_case")
    flow.sqs.send_message(QueueUrl=queues.dlq_url, MessageBody=job_body("flow-dead"))
    env = {
        **flow.worker.env,
        "AWS_SQS_QUEUE_NAME": queues.name,
        "GOVUK_NOTIFY_SUPPORT_EMAIL": "support@example.gov.uk",
    }

    done = subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", "dlq"],
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )

    assert done.returncode == 0, done.stderr
    assert "1 dead-lettered jobs marked failed: flow-dead" in done.stdout
    status = status_of(flow.results, "flow-dead")
    assert (status["status"], status["error_codes"]) == ("failed", ["dead_lettered"])
    [support] = [e for e in flow.notify.emails if e["email_address"] == "support@example.gov.uk"]
    assert support["reference"] == "flow-dead"
    assert support["personalisation"]["error_codes"] == "dead_lettered"
    assert len(emails_for(flow.notify, "flow-dead", "FAILED")) == 2  # support and the requester
    assert {n["recipient"] for n in status["notifications"]} == {
        "support@example.gov.uk",
        "planner@example.gov.uk",
    }
    assert queue_counts(flow.sqs, queues.dlq_url) == (0, 0)
