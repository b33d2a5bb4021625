"""Queues, environments and job bodies for tests that run the real worker."""

from __future__ import annotations

import json
import math
import os
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from attrs import frozen

from support.fake_notify import FakeNotifyServer
from support.moto_server import FAKE_CREDENTIALS, REGION

TEMPLATES = {"STARTED": "tpl-started", "COMPLETED": "tpl-completed", "FAILED": "tpl-failed"}
BNG = {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::27700"}}
# A small Broads & Wensum sample site (RLB 1), well inside the synthetic Norfolk bundle.
SITE_RING = [
    [582814.93, 328188.89],
    [582808.89, 328203.73],
    [582824.96, 328210.17],
    [582830.09, 328197.0],
    [582814.93, 328188.89],
]
CENTRE = (582814.93, 328188.89)


@frozen
class Queues:
    url: str
    dlq_url: str
    name: str
    dlq_name: str


def make_queues(sqs: Any, name: str, max_receive_count: int = 3) -> Queues:
    """A queue and its ``<name>_dlq`` with a redrive policy after ``max_receive_count``."""
    dlq_name = f"{name}_dlq"
    dlq_url = sqs.create_queue(QueueName=dlq_name)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    policy = {"deadLetterTargetArn": arn, "maxReceiveCount": str(max_receive_count)}
    url = sqs.create_queue(QueueName=name, Attributes={"RedrivePolicy": json.dumps(policy)})[
        "QueueUrl"
    ]
    return Queues(url, dlq_url, name, dlq_name)


def worker_env(
    endpoint_url: str,
    queue_name: str,
    results_dir: Path,
    health_port: int,
    notify: FakeNotifyServer | None = None,
    **overrides: str,
) -> dict[str, str]:
    """Environment for `nrf worker` against a local AWS endpoint and, when given, fake Notify."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "NRF_", "GOVUK_"))}
    env.update(
        {
            "AWS_ENDPOINT_URL": endpoint_url,
            "AWS_ACCESS_KEY_ID": FAKE_CREDENTIALS["aws_access_key_id"],
            "AWS_SECRET_ACCESS_KEY": FAKE_CREDENTIALS["aws_secret_access_key"],
            "AWS_REGION": REGION,
            "AWS_DEFAULT_REGION": REGION,
            "AWS_SQS_QUEUE_NAME": queue_name,
            "AWS_SQS_WAIT_TIME_SECONDS": "1",
            "NRF_RESULTS_DIR": str(results_dir),
            "AWS_HEALTH_PORT": str(health_port),
            "NRF_HEALTH_HOST": "127.0.0.1",
            "PYTHONUNBUFFERED": "1",
            # These workers quote from the bundled synthetic data, refused without the opt-in.
            "NRF_ALLOW_SYNTHETIC_DATA": "true",
        }
    )
    if notify is not None:
        env.update(
            {
                "NRF_NOTIFIER": "govuk_notify",
                "GOVUK_NOTIFY_API_KEY": notify.api_key,
                "GOVUK_NOTIFY_BASE_URL": notify.base_url,
                "GOVUK_NOTIFY_RESULTS_BASE_URL": "https://nrf.example/results",
                **{f"GOVUK_NOTIFY_TEMPLATE_JOB_{k}": v for k, v in TEMPLATES.items()},
            }
        )
    env.update(overrides)
    return env


def job_body(job_id: str, email: str | None = "planner@example.gov.uk", **extra: Any) -> str:
    """A canonical job for the small sample site, or with ``boundary``/``boundary_uri`` given."""
    body: dict[str, Any] = {
        "job_id": job_id,
        "assessment_type": "nutrient",
        "development": {"name": f"Site {job_id}", "dwellings": 10, "dwelling_category": "housing"},
        "boundary": {"type": "Polygon", "crs": BNG, "coordinates": [SITE_RING]},
        "trace_id": f"trace-{job_id}",
    }
    if email:
        body["email"] = email
    body.update(extra)
    if "boundary_uri" in extra:
        del body["boundary"]
    return json.dumps(body)


def slow_boundary_geojson(vertices: int = 70_000, radius: float = 300.0) -> bytes:
    """A jagged ring of many vertices near the sample site: a genuinely slow assessment.

    Timed here: 50 000 vertices took about 5 s to read, validate and assess on one core
    (intersection cost grows faster than the vertex count); 70 000 leave a margin.
    """
    cx, cy = CENTRE
    ring = []
    for i in range(vertices):
        angle = 2 * math.pi * i / vertices
        r = radius * (1.05 if i % 2 else 1.0)  # alternate so no vertex can be simplified away
        ring.append([round(cx + r * math.cos(angle), 3), round(cy + r * math.sin(angle), 3)])
    ring.append(ring[0])
    geometry = {"type": "Polygon", "crs": BNG, "coordinates": [ring]}
    return json.dumps(geometry).encode()


def receive_all(sqs: Any, url: str, wait: int = 0, visibility: int = 30) -> list[dict[str, Any]]:
    """Whatever a second consumer gets right now (with receive counts)."""
    response = sqs.receive_message(
        QueueUrl=url,
        MaxNumberOfMessages=10,
        WaitTimeSeconds=wait,
        VisibilityTimeout=visibility,
        AttributeNames=["ApproximateReceiveCount"],
    )
    return list(response.get("Messages", []))


def queue_counts(sqs: Any, url: str) -> tuple[int, int]:
    """(visible, in flight) messages."""
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]
    return int(attrs[names[0]]), int(attrs[names[1]])


def http_get(url: str, timeout: float = 2.0) -> tuple[int, dict[str, Any], float]:
    """(status, JSON body, seconds taken); HTTP errors are answers too."""
    started = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            status, data = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, data = exc.code, exc.read()
    return status, json.loads(data or b"{}"), time.monotonic() - started


def wait_until_http(url: str, status: int, timeout: float) -> tuple[int, dict[str, Any], float]:
    """Poll ``url`` until it answers ``status``; returns the last answer."""
    deadline = time.monotonic() + timeout
    answer: tuple[int, dict[str, Any], float] = (0, {}, 0.0)
    while time.monotonic() < deadline:
        try:
            answer = http_get(url)
        except OSError:
            answer = (0, {}, 0.0)
        if answer[0] == status:
            return answer
        time.sleep(0.1)
    raise AssertionError(f"{url} did not answer {status} within {timeout} s; last {answer}")


def result_dirs(results: Path) -> list[str]:
    return sorted(p.name for p in results.iterdir() if p.is_dir()) if results.exists() else []


def status_of(results: Path, job_id: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((results / job_id / "status.json").read_text())
    return data
