"""`nrf submit` puts one valid job per site on a real (moto) queue; `nrf health` reads a server."""

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pytest

from nrf.adapters.boundary_data.packaged import bundled_samples
from nrf.adapters.job_queue.job_message import parse_job_message
from nrf.domain.health import HealthVerdict, ReadinessVerdict
from nrf.entrypoints.health_app import create_app
from support.moto_server import FAKE_CREDENTIALS, MotoServer

SMALL = bundled_samples() / "BnW_small_under_1_hectare" / "BnW_small_under_1_hectare.shp"


def nrf(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_submit_sends_one_canonical_job_per_site(aws: MotoServer) -> None:
    sqs = aws.client("sqs")
    url = sqs.create_queue(QueueName="submit_q")["QueueUrl"]
    env = {
        **os.environ,
        "AWS_ENDPOINT_URL": aws.endpoint_url,
        "AWS_SQS_QUEUE_NAME": "submit_q",
        "AWS_ACCESS_KEY_ID": FAKE_CREDENTIALS["aws_access_key_id"],
        "AWS_SECRET_ACCESS_KEY": FAKE_CREDENTIALS["aws_secret_access_key"],
    }
    done = nrf(
        "submit",
        str(SMALL),
        "--email",
        "planner@example.gov.uk",
        "--rules",
        "iat-2025-10",
        "--job-prefix",
        "t",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    # PREFIX-position-id, the id 24/00119/F made safe as a folder name ("/" -> "_").
    assert done.stdout.split() == ["t-0001-24_00119_F"]
    (message,) = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    job = parse_job_message(message["Body"])
    # 1 dwelling, in-system: the small file's Dwellings and Dwel_Cat (its .dbf).
    assert (job.job_id, job.dwellings, job.dwelling_category, job.rules, job.email) == (
        "t-0001-24_00119_F",
        1,
        "in-system",
        "iat-2025-10",
        "planner@example.gov.uk",
    )
    assert job.boundary is not None and job.boundary["type"] == "Polygon"


def test_submit_refuses_what_the_configured_limits_refuse(aws: MotoServer) -> None:
    # The small site's ring has more than 4 vertices; NRF_MAX_VERTICES_PER_SITE=4 is the least
    # the worker accepts, so its workers would refuse the job: submit refuses it first.
    sqs = aws.client("sqs")
    url = sqs.create_queue(QueueName="submit_q")["QueueUrl"]
    env = {
        **os.environ,
        "AWS_ENDPOINT_URL": aws.endpoint_url,
        "AWS_SQS_QUEUE_NAME": "submit_q",
        "AWS_ACCESS_KEY_ID": FAKE_CREDENTIALS["aws_access_key_id"],
        "AWS_SECRET_ACCESS_KEY": FAKE_CREDENTIALS["aws_secret_access_key"],
        "NRF_MAX_VERTICES_PER_SITE": "4",
    }
    done = nrf("submit", str(SMALL), env=env)
    assert done.returncode == 3, done.stderr
    assert "too_many_vertices" in done.stderr
    assert "Messages" not in sqs.receive_message(QueueUrl=url, WaitTimeSeconds=0)


class Probe:
    def __init__(self, healthy: bool) -> None:
        self.healthy = healthy

    def health(self) -> HealthVerdict:
        return HealthVerdict(
            healthy=self.healthy,
            reason="ok" if self.healthy else "heartbeat_stale",
            heartbeat_age=1.5,
            job_in_progress=False,
        )

    def readiness(self) -> ReadinessVerdict:
        return ReadinessVerdict(self.healthy, "ready" if self.healthy else "draining")


class Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def health_server() -> Iterator[tuple[str, Probe]]:
    probe = Probe(True)
    server = make_server("127.0.0.1", 0, create_app(probe), handler_class=Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", probe
    finally:
        server.shutdown()


def test_health_reports_both_endpoints_and_exits_by_the_answer(health_server) -> None:
    url, probe = health_server
    ok = nrf("health", "--url", url, env=dict(os.environ))
    assert ok.returncode == 0
    assert "/health: 200" in ok.stdout and "/ready: 200" in ok.stdout
    probe.healthy = False
    bad = nrf("health", "--url", url, env=dict(os.environ))
    assert bad.returncode == 1
    assert "/health: 503" in bad.stdout and "heartbeat_stale" in bad.stdout


def test_health_says_when_nothing_answers() -> None:
    done = nrf("health", "--url", "http://127.0.0.1:9", env=dict(os.environ))
    assert done.returncode == 1 and "unreachable" in done.stdout
