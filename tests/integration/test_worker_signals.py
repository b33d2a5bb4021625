"""The real `nrf worker` under signals: SIGSTOP, kill -9, SIGTERM with and without time to drain."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
from attrs import frozen

from support.fake_notify import FakeNotifyServer, running_fake_notify
from support.moto_server import MotoServer, free_port
from support.worker_jobs import (
    TEMPLATES,
    Queues,
    http_get,
    job_body,
    make_queues,
    queue_counts,
    receive_all,
    result_dirs,
    slow_boundary_geojson,
    status_of,
    wait_until_http,
    worker_env,
)
from support.worker_process import WorkerProcess, running_worker

INPUT_BUCKET, INPUT_PREFIX = "nrf-signals-input", "in"
SLOW_URI = f"s3://{INPUT_BUCKET}/{INPUT_PREFIX}/slow.geojson"
SHORT_VISIBILITY = {
    "SQS_VISIBILITY_TIMEOUT": "3",
    "VISIBILITY_HEARTBEAT_SECONDS": "1",
    "VISIBILITY_EXTENSION_SECONDS": "3",
    "NRF_INPUT_BUCKET": INPUT_BUCKET,
    "NRF_INPUT_PREFIX": INPUT_PREFIX,
}


def is_running(pid: int) -> bool:
    """Alive and not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def job_processes(worker: WorkerProcess) -> list[int]:
    """The worker's job processes still running."""
    pids = [int(e["pid"]) for e in worker.matching("job_process_ready")]
    return [pid for pid in pids if is_running(pid)]


@contextmanager
def stopped(pids: list[int]) -> Iterator[None]:
    """SIGSTOP the processes for the block: a job in them stays in flight, however fast."""
    assert pids, "no job process to hold"
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in pids:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


@frozen
class Setup:
    aws: MotoServer
    sqs: Any
    queues: Queues
    notify: FakeNotifyServer
    results: Path
    port: int
    env: dict[str, str]

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def send(self, body: str) -> str:
        return str(self.sqs.send_message(QueueUrl=self.queues.url, MessageBody=body)["MessageId"])


@pytest.fixture(scope="module")
def setup(moto_server: MotoServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    moto_server.reset()
    sqs, s3 = moto_server.client("sqs"), moto_server.client("s3")
    queues = make_queues(sqs, "signal_jobs")
    s3.create_bucket(
        Bucket=INPUT_BUCKET, CreateBucketConfiguration={"LocationConstraint": "eu-west-2"}
    )
    s3.put_object(
        Bucket=INPUT_BUCKET, Key=f"{INPUT_PREFIX}/slow.geojson", Body=slow_boundary_geojson()
    )
    results = tmp_path_factory.mktemp("signal-results")
    port = free_port()
    with running_fake_notify() as notify:
        env = worker_env(
            moto_server.endpoint_url,
            queues.name,
            results,
            port,
            notify,
            HEARTBEAT_TIMEOUT="3",
            SHUTDOWN_GRACE_SECONDS="30",
            **SHORT_VISIBILITY,
        )
        yield Setup(moto_server, sqs, queues, notify, results, port, env)


@pytest.fixture(scope="module")
def worker(setup: Setup) -> Iterator[WorkerProcess]:
    """One worker for SIGSTOP, kill -9 and, last, SIGTERM (which ends it)."""
    with running_worker(setup.env) as process:
        process.wait_for("worker_started", timeout=90)
        yield process


def test_sigstop_on_the_worker_turns_health_503_while_the_server_stays_responsive(
    setup: Setup, worker: WorkerProcess
) -> None:
    wait_until_http(setup.url("/health"), 200, timeout=10)
    wait_until_http(setup.url("/ready"), 200, timeout=10)  # after the first successful poll
    pid = worker.pid_of_worker_process()

    os.kill(pid, signal.SIGSTOP)
    try:
        answers: list[tuple[int, dict[str, Any]]] = []
        deadline = time.monotonic() + 60  # a bound on waiting, not a measurement
        while not answers or answers[-1][0] != 503:
            assert time.monotonic() < deadline, answers[-3:]
            # The stopped worker cannot hold the health server up: every request is answered
            # (http_get gives up after 2 s, which fails the test).
            answers.append(http_get(setup.url("/health"))[:2])
            time.sleep(0.1)
        later = [http_get(setup.url("/health"))[:2] for _ in range(5)]
    finally:
        os.kill(pid, signal.SIGCONT)

    # Unavailable because the heartbeat reached HEARTBEAT_TIMEOUT (3 s, the worker idle), and
    # not before: the policy read from the answers' own ages (rounded to the millisecond).
    body = answers[-1][1]
    assert (body["status"], body["reason"]) == ("unavailable", "heartbeat_stale")
    assert body["heartbeat_age_seconds"] >= 3.0
    assert all(age <= 3.0 for age in [b["heartbeat_age_seconds"] for _, b in answers[:-1]])
    assert [s for s, _ in later] == [503] * 5
    ages = [b["heartbeat_age_seconds"] for _, b in later]
    assert ages == sorted(ages) and ages[0] >= body["heartbeat_age_seconds"], "read live"
    wait_until_http(setup.url("/health"), 200, timeout=10)


def test_after_kill_9_of_the_worker_process_the_message_is_processed_once_by_the_next(
    setup: Setup, worker: WorkerProcess
) -> None:
    message_id = setup.send(job_body("sig-kill9", boundary_uri=SLOW_URI))
    worker.wait_for("job_received", timeout=30, message_id=message_id)
    [old_job_process] = [e["pid"] for e in worker.matching("job_process_ready")]
    os.kill(worker.pid_of_worker_process(), signal.SIGKILL)

    worker.wait_for("worker_process_died", timeout=10)
    # Its job process goes with it, rather than finish the job beside the next worker: it is
    # gone (a bound on waiting, not a measurement) and never stored the job (below).
    deadline = time.monotonic() + 60
    while is_running(old_job_process):
        assert time.monotonic() < deadline, "the orphaned job process is still running"
        time.sleep(0.1)
    worker.wait_for("worker_started", timeout=90, nth=2)
    again = worker.wait_for("job_received", timeout=60, message_id=message_id, nth=2)
    assert again["receive_count"] == 2
    worker.wait_for("job_finished", timeout=90, job_id="sig-kill9")

    assert status_of(setup.results, "sig-kill9")["status"] == "succeeded"
    assert "sig-kill9" in result_dirs(setup.results)
    [stored] = worker.matching("job_stored", job_id="sig-kill9")
    assert stored["pid"] != old_job_process, "stored by the orphan, not by the next worker"
    completed = [
        e
        for e in setup.notify.emails
        if e["reference"] == "sig-kill9" and e["template_id"] == TEMPLATES["COMPLETED"]
    ]
    assert len(completed) == 1
    assert queue_counts(setup.sqs, setup.queues.url) == (0, 0)


def test_sigterm_during_a_job_lets_it_finish_and_exits_0(
    setup: Setup, worker: WorkerProcess
) -> None:
    wait_until_http(setup.url("/ready"), 200, timeout=10)
    with stopped(job_processes(worker)):  # the job cannot finish before the signal is seen
        message_id = setup.send(job_body("sig-term-finish", boundary_uri=SLOW_URI))
        worker.wait_for("job_received", timeout=30, message_id=message_id)

        worker.process.send_signal(signal.SIGTERM)
        _status, body, _ = wait_until_http(setup.url("/ready"), 503, timeout=30)
        assert body["status"] == "not_ready"
        worker.wait_for("draining", timeout=30)
    assert worker.wait(timeout=60) == 0

    assert worker.wait_for("draining")["in_flight"] == 1, "the signal came while the job ran"
    assert worker.count("job_finished", job_id="sig-term-finish", status="succeeded") == 1
    assert worker.count("job_handed_back") == 0
    assert status_of(setup.results, "sig-term-finish")["status"] == "succeeded"
    assert queue_counts(setup.sqs, setup.queues.url) == (0, 0)


def test_sigterm_past_the_grace_period_hands_the_message_back_at_once_and_exits_0(
    setup: Setup,
) -> None:
    env = {**setup.env, "SHUTDOWN_GRACE_SECONDS": "1", "AWS_HEALTH_PORT": str(free_port())}
    with running_worker(env) as worker:
        worker.wait_for("worker_started", timeout=90)
        # Held in flight past the 1 s grace however fast the job would run; the worker kills
        # the stopped job process (SIGKILL) when it gives up on it.
        with stopped(job_processes(worker)):
            message_id = setup.send(job_body("sig-term-grace", boundary_uri=SLOW_URI))
            worker.wait_for("job_received", timeout=30, message_id=message_id)

            code = worker.stop(signal.SIGTERM, timeout=60)
        assert code == 0, worker.transcript()
        # Visibility 0: back at once, not when the last 3 s extension would have run out.
        [back] = receive_all(setup.sqs, setup.queues.url, wait=0)

    assert back["MessageId"] == message_id
    assert back["Attributes"]["ApproximateReceiveCount"] == "2"
    assert worker.wait_for("draining")["in_flight"] == 1
    assert worker.count("job_handed_back", message_id=message_id) == 1
    assert worker.count("job_finished", job_id="sig-term-grace") == 0
    assert "sig-term-grace" not in result_dirs(setup.results)
    setup.sqs.delete_message(QueueUrl=setup.queues.url, ReceiptHandle=back["ReceiptHandle"])


def test_a_queue_that_does_not_exist_is_fatal(setup: Setup) -> None:
    env = {**setup.env, "AWS_SQS_QUEUE_NAME": "no_such_queue", "AWS_HEALTH_PORT": str(free_port())}
    with running_worker(env) as worker:
        code = worker.wait(timeout=90)
    assert code not in (0, 2)
    [cannot_start] = worker.matching("worker_cannot_start")
    assert cannot_start["code"] in ("queue_unavailable", "queue_fatal")
    assert worker.count("worker_process_started") == 1, "a fatal error is not retried"


def test_bad_configuration_exits_2_naming_every_bad_variable(setup: Setup) -> None:
    env = {**setup.env, "AWS_SQS_MAX_MESSAGES": "99", "WORKER_CONCURRENCY": "0"}
    with running_worker(env) as worker:
        code = worker.wait(timeout=60)
    assert code == 2
    [event] = worker.matching("bad_configuration")
    text = " ".join(event["problems"])
    assert "AWS_SQS_MAX_MESSAGES" in text and "WORKER_CONCURRENCY" in text
    assert worker.count("worker_process_started") == 0
