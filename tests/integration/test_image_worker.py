"""The shipped image runs the worker task as deploy/cloudformation/worker.yaml defines it.

Configured only by the template's environment (plus what AWS supplies: the endpoint, the role's
credentials, Notify's address), on the template's read-only root with its writable mounts, as
uid 10001: it fetches and verifies the pinned bundle from S3, works jobs into the S3 results
bucket with one email each, turns its own HEALTHCHECK healthy, goes unhealthy when its worker
is frozen, stops an idle worker in seconds, and logs nothing but JSON.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from typing import Any

import pytest

from nrf.adapters.result_store.s3_result_store import S3ResultStore
from support.fake_notify import FakeNotifyServer, running_fake_notify
from support.image import (
    ContainerLog,
    fast_healthcheck,
    running_image,
    wait_for_health,
)
from support.image_stack import WorkerTask, worker_task
from support.moto_server import MotoServer
from support.worker_jobs import job_body, queue_counts, slow_boundary_geojson

pytestmark = pytest.mark.image

# Bounds on waiting, not measurements (benchmarks/image_stop.py measures the stop).
START_SECONDS = 120
# Far under the 20 s long poll an idle worker used to finish first, far over the 2 s slice.
IDLE_STOP_BOUND = 12


@pytest.fixture(scope="module")
def notify() -> Iterator[FakeNotifyServer]:
    with running_fake_notify() as server:
        yield server


@pytest.fixture(scope="module")
def task(
    moto_server: MotoServer, notify: FakeNotifyServer, tmp_path_factory: pytest.TempPathFactory
) -> WorkerTask:
    moto_server.reset()
    return worker_task(moto_server, notify, tmp_path_factory.mktemp("image-worker"))


@pytest.fixture(scope="module")
def worker(task: WorkerTask) -> Iterator[tuple[Any, ContainerLog]]:
    """One container for the module's tests, in order; the last one stops it."""
    with running_image(
        task.env, read_only=task.read_only, writable=task.writable, healthcheck=fast_healthcheck()
    ) as (container, log):
        log.wait_for("worker_started", timeout=START_SECONDS)
        yield container, log


def run(container: Any, *argv: str) -> tuple[int, str]:
    """A command inside the running container, as the image's user."""
    code, output = container.exec_run(list(argv))
    return int(code), output.decode(errors="replace").strip()


def test_the_task_runs_as_uid_10001_on_a_read_only_root_with_tmp_writable(
    task: WorkerTask, worker: tuple[Any, ContainerLog]
) -> None:
    container, log = worker
    assert task.read_only and task.writable == ["/tmp"]
    assert container.attrs["HostConfig"]["ReadonlyRootfs"] is True
    assert run(container, "id", "-u") == (0, "10001")
    code, _ = run(container, "python", "-c", "open('/app/x', 'w')")
    assert code != 0, "the root filesystem took a write"
    assert run(container, "python", "-c", "open('/tmp/x', 'w').write('x')")[0] == 0
    # The pinned bundle was fetched from S3 into /tmp and checked against the stack's digest.
    [ready] = log.matching("reference_data_ready")
    assert ready["bundle_sha256"] == task.env["NRF_REFERENCE_DATA_SHA256"], ready
    assert ready["path"].startswith("/tmp/") and ready["synthetic"] is False, ready


def test_jobs_flow_from_sqs_to_s3_results_with_one_email_each(
    task: WorkerTask,
    worker: tuple[Any, ContainerLog],
    moto_server: MotoServer,
    notify: FakeNotifyServer,
) -> None:
    _, log = worker
    sqs, s3 = moto_server.client("sqs"), moto_server.client("s3")
    s3.put_object(Bucket=task.input_bucket, Key="in/site.geojson", Body=slow_boundary_geojson(200))
    jobs = {
        "img-inline-1": job_body("img-inline-1"),
        "img-inline-2": job_body("img-inline-2"),
        "img-s3-1": job_body("img-s3-1", boundary_uri=f"s3://{task.input_bucket}/in/site.geojson"),
    }
    for body in jobs.values():
        sqs.send_message(QueueUrl=task.queues.url, MessageBody=body)
    for job_id in jobs:
        log.wait_for("job_finished", timeout=60, job_id=job_id)

    store = S3ResultStore(s3, *task.results)
    for job_id in jobs:
        record = store.record(job_id)
        assert record is not None and record.status == "succeeded", (job_id, record)
        sent = [e for e in notify.emails if e["reference"] == job_id]
        assert [e["template_id"] for e in sent] == [task.template("COMPLETED")], sent
    assert queue_counts(sqs, task.queues.url) == (0, 0)
    assert queue_counts(sqs, task.queues.dlq_url) == (0, 0)


def test_the_images_own_healthcheck_reports_healthy_while_it_works(
    worker: tuple[Any, ContainerLog],
) -> None:
    container, _ = worker
    wait_for_health(container, "healthy", timeout=60)
    assert container.attrs["State"]["Health"]["Log"][-1]["ExitCode"] == 0


def test_an_idle_worker_stops_within_seconds_of_docker_stop_and_logged_only_json(
    task: WorkerTask, worker: tuple[Any, ContainerLog]
) -> None:
    container, log = worker
    time.sleep(1.0)  # into an idle receive
    stop_timeout = task.stack.resource("TaskDefinition")["Properties"]["ContainerDefinitions"][0][
        "StopTimeout"
    ]
    started = time.monotonic()
    container.stop(timeout=stop_timeout)  # SIGTERM to PID 1, SIGKILL after stopTimeout
    took = time.monotonic() - started
    assert container.wait(timeout=30)["StatusCode"] == 0, log.tail()
    assert took < IDLE_STOP_BOUND, f"docker stop took {took:.1f} s"
    log.finish()
    assert log.matching("worker_stopped"), log.tail()
    assert log.lines > 10 and log.not_json == [], log.not_json[:5]


def test_the_healthcheck_turns_unhealthy_when_the_worker_is_frozen(task: WorkerTask) -> None:
    # The worker's heartbeat may age HEARTBEAT_TIMEOUT (the template leaves 180 s) before the
    # health server calls it dead: 3 s here, so the test takes seconds.
    env = {**task.env, "HEARTBEAT_TIMEOUT": "3"}
    with running_image(
        env, read_only=task.read_only, writable=task.writable, healthcheck=fast_healthcheck()
    ) as (container, log):
        log.wait_for("worker_started", timeout=START_SECONDS)
        wait_for_health(container, "healthy", timeout=60)
        pid = log.matching("worker_process_started")[-1]["pid"]
        freeze = f"import os; os.kill({pid}, {int(signal.SIGSTOP)})"
        assert run(container, "python", "-c", freeze)[0] == 0
        wait_for_health(container, "unhealthy", timeout=60)
        assert container.attrs["State"]["Health"]["Log"][-1]["ExitCode"] == 1
        thaw = f"import os; os.kill({pid}, {int(signal.SIGCONT)})"
        assert run(container, "python", "-c", thaw)[0] == 0
        wait_for_health(container, "healthy", timeout=60)
        container.stop(timeout=30)
        assert container.wait(timeout=30)["StatusCode"] == 0
        log.finish()
        assert log.not_json == [], log.not_json[:5]


def test_the_results_bucket_holds_only_what_the_jobs_wrote(
    task: WorkerTask, moto_server: MotoServer
) -> None:
    # The records above are the only jobs there: the stop left no temporaries or stray files.
    s3 = moto_server.client("s3")
    bucket, prefix = task.results
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])]
    jobs = {k.split("/")[1] for k in keys if not k.startswith(f"{prefix}/.")}
    assert jobs == {"img-inline-1", "img-inline-2", "img-s3-1"}, keys
