"""The real worker while its queue, result store and Notify go away and come back."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from support.fake_notify import FakeNotifyServer
from support.fault_proxy import fault_proxy
from support.kill_scenario import FAST_RETRIES, settled
from support.moto_server import MotoServer, free_port
from support.worker_jobs import (
    TEMPLATES,
    job_body,
    make_queues,
    queue_counts,
    wait_until_http,
    worker_env,
)
from support.worker_process import running_worker


def completed_emails(notify: FakeNotifyServer) -> Counter[str]:
    return Counter(
        e["reference"] for e in notify.emails if e["template_id"] == TEMPLATES["COMPLETED"]
    )


def wait_settled(results: Path, job_ids: list[str], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not all(settled(results, j) for j in job_ids):
        assert time.monotonic() < deadline, [j for j in job_ids if not settled(results, j)]
        time.sleep(0.2)


def test_the_queue_going_away_shows_on_ready_and_the_worker_resumes_by_itself(
    aws: MotoServer, fake_notify: FakeNotifyServer, tmp_path: Path
) -> None:
    sqs = aws.client("sqs")
    queues = make_queues(sqs, "fault_queue")
    port = free_port()
    with fault_proxy(aws.endpoint_url) as proxy:
        env = worker_env(proxy.url, queues.name, tmp_path, port, fake_notify, **FAST_RETRIES)
        with running_worker(env) as worker:
            worker.wait_for("worker_started", timeout=90)
            wait_until_http(f"http://127.0.0.1:{port}/ready", 200, timeout=15)

            proxy.set_mode("refuse")
            worker.wait_for("queue_unreachable", timeout=60)
            wait_until_http(f"http://127.0.0.1:{port}/ready", 503, timeout=30)
            sqs.send_message(QueueUrl=queues.url, MessageBody=job_body("fault-q-1"))
            proxy.set_mode("drop")  # accepted, then reset: another way of being gone
            worker.wait_for(
                "queue_unreachable", timeout=60, nth=worker.count("queue_unreachable") + 1
            )
            assert worker.count("job_received") == 0
            proxy.set_mode("pass")

            wait_until_http(f"http://127.0.0.1:{port}/health", 200, timeout=5)
            worker.wait_for("job_finished", timeout=90, job_id="fault-q-1", status="succeeded")
            wait_until_http(f"http://127.0.0.1:{port}/ready", 200, timeout=10)
            assert worker.count("worker_process_started") == 1, "resumed without a restart"
    assert completed_emails(fake_notify)["fault-q-1"] == 1
    assert queue_counts(sqs, queues.url) == (0, 0)


def test_a_notify_outage_of_5xx_429_and_refusals_sends_each_email_once(
    aws: MotoServer, fake_notify: FakeNotifyServer, tmp_path: Path
) -> None:
    sqs = aws.client("sqs")
    queues = make_queues(sqs, "fault_notify", max_receive_count=30)
    job_ids = [f"fault-n-{i}" for i in range(4)]
    with fault_proxy(fake_notify.base_url) as proxy:
        env = worker_env(
            aws.endpoint_url,
            queues.name,
            tmp_path,
            free_port(),
            fake_notify,
            GOVUK_NOTIFY_BASE_URL=proxy.url,
            **FAST_RETRIES,
        )
        with running_worker(env) as worker:
            worker.wait_for("worker_started", timeout=90)
            fake_notify.fail_all(503)
            for job_id in job_ids:
                sqs.send_message(QueueUrl=queues.url, MessageBody=job_body(job_id))
            for job_id in job_ids:
                worker.wait_for("job_stored", timeout=60, job_id=job_id)
            worker.wait_for("job_retry", timeout=60, code="notification_pending")
            fake_notify.fail_all(429)
            time.sleep(3)
            fake_notify.fail_all(None)
            proxy.set_mode("refuse")
            time.sleep(3)
            proxy.set_mode("pass")

            wait_settled(tmp_path, job_ids, timeout=120)
            deadline = time.monotonic() + 20
            while sum(queue_counts(sqs, queues.url)) and time.monotonic() < deadline:
                time.sleep(0.2)
            assert sum(worker.count("job_stored", job_id=j) for j in job_ids) == len(job_ids)
    told = completed_emails(fake_notify)
    assert [told[j] for j in job_ids] == [1] * len(job_ids), told
    assert queue_counts(sqs, queues.url) == (0, 0)
    assert queue_counts(sqs, queues.dlq_url) == (0, 0)


def test_a_result_store_that_fails_for_a_while_loses_nothing(
    aws: MotoServer, fake_notify: FakeNotifyServer, tmp_path: Path
) -> None:
    sqs, s3 = aws.client("sqs"), aws.client("s3")
    queues = make_queues(sqs, "fault_store", max_receive_count=30)
    job_ids = [f"fault-s-{i}" for i in range(3)]
    env = worker_env(
        aws.endpoint_url,
        queues.name,
        tmp_path,
        free_port(),
        fake_notify,
        NRF_RESULT_STORE="s3",
        NRF_RESULTS_BUCKET="late-bucket",
        **FAST_RETRIES,
    )
    with running_worker(env) as worker:
        worker.wait_for("worker_started", timeout=90)
        for job_id in job_ids:
            sqs.send_message(QueueUrl=queues.url, MessageBody=job_body(job_id))
        for job_id in job_ids:  # the bucket is not there: every attempt fails, none is lost
            worker.wait_for("job_retry", timeout=60, job_id=job_id, nth=2)
        s3.create_bucket(
            Bucket="late-bucket", CreateBucketConfiguration={"LocationConstraint": "eu-west-2"}
        )
        for job_id in job_ids:
            worker.wait_for("job_stored", timeout=90, job_id=job_id)
            worker.wait_for("job_finished", timeout=30, job_id=job_id, status="succeeded")
        assert all(worker.count("job_stored", job_id=j) == 1 for j in job_ids)
    keys = {o["Key"] for o in s3.list_objects_v2(Bucket="late-bucket")["Contents"]}
    assert {f"results/{j}/status.json" for j in job_ids} <= keys
    told = completed_emails(fake_notify)
    assert [told[j] for j in job_ids] == [1] * len(job_ids)
    assert queue_counts(sqs, queues.url) == (0, 0)
