"""The basic worker flow against LocalStack through testcontainers, where a Docker engine runs."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.moto_server import aws_client, free_port
from support.worker_jobs import job_body, make_queues, queue_counts, status_of, worker_env
from support.worker_process import running_worker

LOCALSTACK_IMAGE = "localstack/localstack:3.8"


def docker_problem() -> str | None:
    """Why no container can be started here, or None when a Docker engine answers."""
    try:
        import docker

        docker.from_env(timeout=3).ping()
    except Exception as exc:  # the SDK raises several types for "no engine"
        return f"no Docker engine reachable ({type(exc).__name__}: {str(exc)[:120]})"
    return None


@pytest.fixture(scope="module")
def localstack() -> Iterator[str]:
    """LocalStack's edge URL; skips the module cleanly when there is no Docker engine."""
    problem = docker_problem()
    if problem is not None:
        pytest.skip(problem)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the module moved in testcontainers 4
        from testcontainers.localstack import LocalStackContainer

    container = LocalStackContainer(image=LOCALSTACK_IMAGE, region_name="eu-west-2")
    container.with_services("sqs", "s3")
    with container:
        yield container.get_url()


def test_a_job_flows_from_localstack_sqs_to_a_stored_result(
    localstack: str, tmp_path: Path
) -> None:
    sqs = aws_client("sqs", localstack)
    queues = make_queues(sqs, "localstack_jobs")
    env = worker_env(localstack, queues.name, tmp_path, free_port())
    with running_worker(env) as worker:
        worker.wait_for("worker_started", timeout=90)
        sqs.send_message(QueueUrl=queues.url, MessageBody=job_body("ls-1"))
        worker.wait_for("job_finished", timeout=60, job_id="ls-1")
        assert worker.stop() == 0

    assert status_of(tmp_path, "ls-1")["status"] == "succeeded"
    assert (tmp_path / "ls-1" / "result.csv").exists()
    [completed] = worker.matching("notification_logged", job_id="ls-1", kind="completed")
    # Worked by hand in test_worker_flow.py from the bundle rows in support/worker_sample_site.py:
    # (0.05 land use + 10 x 2.4 x 120 x 365.25 x 25e-6 x 0.9 wastewater) x 1.2 = 28.46184.
    assert completed["personalisation"]["nitrogen_total_kg_per_year"] == "28.46"
    assert queue_counts(sqs, queues.url) == (0, 0)
