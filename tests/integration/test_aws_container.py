"""The basic worker flow against an AWS endpoint in a container (moto's server, built here by
scripts/image as nrf-moto:test) started through testcontainers, without Ryuk and without a pull.

It once used LocalStack's image, which no registry here serves: it skipped without an engine
and errored with one (pulling testcontainers/ryuk). Now it needs only what scripts/image builds.
"""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.image import IMAGE, docker_client, require_image, without_ryuk
from support.moto_server import aws_client, free_port
from support.worker_jobs import job_body, make_queues, queue_counts, status_of, worker_env
from support.worker_process import running_worker

pytestmark = pytest.mark.image

MOTO_IMAGE = IMAGE.replace(":", "-moto:", 1) if ":" in IMAGE else f"{IMAGE}-moto"


def wait_until_up(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}/moto-api/", timeout=2):
                return
        except OSError:
            assert time.monotonic() < deadline, f"moto's container did not answer on {url}"
            time.sleep(0.2)


@pytest.fixture(scope="module")
def aws_in_a_container() -> Iterator[str]:
    """The containerised endpoint's URL, on a free loopback port of the host's network."""
    without_ryuk()
    from testcontainers.core.container import DockerContainer

    require_image(docker_client(), MOTO_IMAGE)
    port = free_port()
    container = (
        DockerContainer(MOTO_IMAGE)
        .with_command(["-H", "127.0.0.1", "-p", str(port)])
        .with_kwargs(network_mode="host")
    )
    with container:
        url = f"http://127.0.0.1:{port}"
        wait_until_up(url, timeout=60)
        yield url


def test_a_job_flows_from_containerised_sqs_to_a_stored_result(
    aws_in_a_container: str, tmp_path: Path
) -> None:
    sqs = aws_client("sqs", aws_in_a_container)
    queues = make_queues(sqs, "container_jobs")
    env = worker_env(aws_in_a_container, queues.name, tmp_path, free_port())
    with running_worker(env) as worker:
        worker.wait_for("worker_started", timeout=90)
        sqs.send_message(QueueUrl=queues.url, MessageBody=job_body("ct-1"))
        worker.wait_for("job_finished", timeout=60, job_id="ct-1")
        assert worker.stop() == 0

    assert status_of(tmp_path, "ct-1")["status"] == "succeeded"
    assert (tmp_path / "ct-1" / "result.csv").exists()
    [completed] = worker.matching("notification_logged", job_id="ct-1", kind="completed")
    # Worked by hand in test_worker_flow.py from the bundle rows in support/worker_sample_site.py:
    # (0.05 land use + 10 x 2.4 x 120 x 365.25 x 25e-6 x 0.9 wastewater) x 1.2 = 28.46184.
    assert completed["personalisation"]["nitrogen_total_kg_per_year"] == "28.46"
    assert queue_counts(sqs, queues.url) == (0, 0)
