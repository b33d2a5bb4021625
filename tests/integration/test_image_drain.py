"""`docker stop` of the image mid-burst, as ECS stops a task on scale-in or deployment: PID 1
gets SIGTERM, the running job finishes within the grace, the rest go back to the queue, the
container exits 0 within the template's stopTimeout, and a second container drains the rest.
Every message ends as exactly one stored result and one email; the queue and DLQ end empty.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from nrf.adapters.result_store.s3_result_store import S3ResultStore
from support.fake_notify import FakeNotifyServer, running_fake_notify
from support.image import running_image
from support.image_stack import WorkerTask, worker_task
from support.moto_server import MotoServer
from support.worker_jobs import job_body, queue_counts, slow_boundary_geojson

pytestmark = pytest.mark.image

START_SECONDS = 120  # a bound on waiting, not a measurement
SMALL_JOBS = 24
# Slow jobs (a 70,000-vertex boundary: seconds each) so one is running when the stop comes.
SLOW_AT = (1, 2, 12)


@pytest.fixture
def notify() -> Iterator[FakeNotifyServer]:
    with running_fake_notify() as server:
        yield server


def burst(task: WorkerTask, aws: MotoServer) -> dict[str, str]:
    """Send the burst; returns each job's message id, in the order sent."""
    sqs, s3 = aws.client("sqs"), aws.client("s3")
    s3.put_object(Bucket=task.input_bucket, Key="in/slow.geojson", Body=slow_boundary_geojson())
    slow_uri = f"s3://{task.input_bucket}/in/slow.geojson"
    sent = {}
    for n in range(SMALL_JOBS):
        job_id = f"burst-{n:02d}"
        extra = {"boundary_uri": slow_uri} if n in SLOW_AT else {}
        body = job_body(job_id, **extra)
        sent[job_id] = sqs.send_message(QueueUrl=task.queues.url, MessageBody=body)["MessageId"]
    return sent


def first_slow_received(log: Any, sent: dict[str, str], timeout: float) -> str:
    """The job id of the first slow job the worker receives."""
    slow = {sent[f"burst-{n:02d}"]: f"burst-{n:02d}" for n in SLOW_AT}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for event in log.matching("job_received"):
            if event["message_id"] in slow:
                return slow[event["message_id"]]
        time.sleep(0.05)
    raise AssertionError(f"no slow job received within {timeout} s\n{log.tail()}")


def test_docker_stop_mid_burst_exits_0_in_time_and_a_second_container_drains_the_rest(
    aws: MotoServer, notify: FakeNotifyServer, tmp_path_factory: pytest.TempPathFactory
) -> None:
    task = worker_task(aws, notify, tmp_path_factory.mktemp("image-drain"))
    stop_timeout = int(
        task.stack.resource("TaskDefinition")["Properties"]["ContainerDefinitions"][0][
            "StopTimeout"
        ]
    )
    logs: list[Any] = []
    with running_image(task.env, read_only=task.read_only, writable=task.writable) as (first, log):
        logs.append(log)
        log.wait_for("worker_started", timeout=START_SECONDS)
        sent = burst(task, aws)
        ids = list(sent)
        # Stop while a slow job runs (for seconds), the burst not yet through.
        slow = first_slow_received(log, sent, timeout=60)
        started = time.monotonic()
        first.stop(timeout=stop_timeout)
        took = time.monotonic() - started
        assert first.wait(timeout=30)["StatusCode"] == 0, log.tail()
        log.finish()
    assert took < stop_timeout, f"docker stop took {took:.1f} s"
    done_by_first = {e["job_id"] for e in log.matching("job_finished")}
    assert slow in done_by_first, "the running job was not let finish"
    assert len(done_by_first) < len(ids), "the first container took the whole burst"

    with running_image(task.env, read_only=task.read_only, writable=task.writable) as (second, log):
        logs.append(log)
        log.wait_for("worker_started", timeout=START_SECONDS)
        for job_id in set(ids) - done_by_first:
            log.wait_for("job_finished", timeout=120, job_id=job_id)
        second.stop(timeout=stop_timeout)
        assert second.wait(timeout=30)["StatusCode"] == 0, log.tail()
        log.finish()

    sqs, s3 = aws.client("sqs"), aws.client("s3")
    store = S3ResultStore(s3, *task.results)
    stored = Counter(e["job_id"] for log in logs for e in log.matching("job_stored"))
    emails = Counter(
        e["reference"] for e in notify.emails if e["template_id"] == task.template("COMPLETED")
    )
    for job_id in ids:
        record = store.record(job_id)
        assert record is not None and record.status == "succeeded", (job_id, record)
    assert stored == Counter(ids), stored
    assert emails == Counter(ids), emails
    assert len(notify.emails) == len(ids)
    assert queue_counts(sqs, task.queues.url) == (0, 0)
    assert queue_counts(sqs, task.queues.dlq_url) == (0, 0)
    for log in logs:
        assert log.not_json == [], log.not_json[:5]
