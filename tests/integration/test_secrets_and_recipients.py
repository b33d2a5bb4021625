"""A real worker run with secrets set: none appears in logs, results or health output; email
recipients are validated and filtered by the allowed domains end to end."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from attrs import frozen

from support.fake_backend import FakeBackend
from support.fake_notify import FakeNotifyServer, running_fake_notify
from support.hostile import BOWTIE, job, polygon
from support.moto_server import MotoServer, free_port
from support.worker_jobs import (
    SITE_RING,
    TEMPLATES,
    http_get,
    make_queues,
    status_of,
    worker_env,
)
from support.worker_process import WorkerProcess

AWS_SECRET = f"aws-secret-{uuid.uuid4()}"
AWS_TOKEN = f"aws-session-token-{uuid.uuid4()}"
BACKEND_KEY = f"backend-key-{uuid.uuid4()}"
HEALTH_FIELDS = {"status", "reason", "heartbeat_age_seconds", "job_in_progress"}
JOBS = {
    "sec-ok": job("sec-ok", email="planner@example.gov.uk"),
    "sec-upper": job("sec-upper", email="Planner@EXAMPLE.GOV.UK"),
    "sec-bowtie": job("sec-bowtie", email="planner@example.gov.uk", boundary=polygon(BOWTIE)),
    "sec-elsewhere": job("sec-elsewhere", email="someone@evil.example"),
    "sec-subdomain": job("sec-subdomain", email="someone@sub.example.gov.uk"),
    "sec-bad-email": job("sec-bad-email", email="not an address@@example.gov.uk"),
    "sec-notify-down": job("sec-notify-down", email="planner@example.gov.uk"),
    # A Defra quote, so the backend's key is used on the wire while the logs are scanned.
    "NRL-000901": {
        "reference": "NRL-000901",
        "boundaryGeojson": {
            "boundaryGeometryOriginal": {"type": "Polygon", "coordinates": [SITE_RING]}
        },
        "housingUnits": 25,
        "traceId": "trace-NRL-000901",
    },
}


@frozen
class Run:
    worker: WorkerProcess
    notify: FakeNotifyServer
    results: Path
    health: list[str]  # raw bodies of /health and /ready
    secrets: tuple[str, ...]


@pytest.fixture(scope="module")
def run(moto_server: MotoServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    moto_server.reset()
    sqs = moto_server.client("sqs")
    queues = make_queues(sqs, "secret_jobs")
    results = tmp_path_factory.mktemp("secret-results")
    backend = FakeBackend(api_key=BACKEND_KEY).start()
    with running_fake_notify() as notify:
        env = worker_env(
            moto_server.endpoint_url,
            queues.name,
            results,
            free_port(),
            notify,
            AWS_SECRET_ACCESS_KEY=AWS_SECRET,
            AWS_SESSION_TOKEN=AWS_TOKEN,
            GOVUK_NOTIFY_ALLOWED_DOMAINS="example.gov.uk",
            BACKEND_BASE_URL=backend.base_url,
            BACKEND_API_KEY=BACKEND_KEY,
            BACKEND_ALLOW_LOOPBACK_HTTP="true",  # the fake backend speaks plain HTTP
        )
        worker = WorkerProcess(env).start()
        try:
            worker.wait_for("worker_started", timeout=90)
            for job_id, body in JOBS.items():
                if job_id == "sec-notify-down":
                    # Notify answers 403 (not retried) to this job's two emails, echoing nothing.
                    worker.wait_for("job_finished", timeout=60, job_id="sec-bad-email")
                    notify.fail_next(2, 403)
                sqs.send_message(QueueUrl=queues.url, MessageBody=json.dumps(body))
                worker.wait_for("job_finished", timeout=60, job_id=job_id)
            port = env["AWS_HEALTH_PORT"]
            health = []
            for path in ("health", "ready"):
                _, body, _ = http_get(f"http://127.0.0.1:{port}/{path}")
                health.append(json.dumps(body))
            assert worker.stop() == 0
            yield Run(
                worker,
                notify,
                results,
                health,
                (notify.api_key, notify.secret, AWS_SECRET, AWS_TOKEN, BACKEND_KEY),
            )
        finally:
            worker.close()
            backend.stop()


def test_no_secret_appears_in_any_log_line_result_file_or_health_body(run: Run) -> None:
    stderr = [json.dumps(e) for e in run.worker.events] + run.worker.other_lines
    texts = {
        "stderr": "\n".join(stderr),
        "stdout": "\n".join(run.worker.stdout_lines),
        "health": "\n".join(run.health),
    }
    for path in run.results.rglob("*"):
        if path.is_file():
            texts[str(path.relative_to(run.results))] = path.read_text(errors="replace")
    assert len(texts) > 10 and len(run.worker.events) > 20, "the scan must have something to scan"
    for where, text in texts.items():
        for secret in run.secrets:
            assert secret not in text, f"a secret in {where}"


def test_health_output_holds_only_the_documented_fields(run: Run) -> None:
    health, ready = (json.loads(body) for body in run.health)
    assert set(health) == HEALTH_FIELDS
    assert set(ready) <= {"status", "reason", "bundle_version"}


def sent_to(notify: FakeNotifyServer, job_id: str) -> list[tuple[str, str]]:
    kinds = {v: k for k, v in TEMPLATES.items()}
    return [
        (e["email_address"], kinds[e["template_id"]])
        for e in notify.emails
        if e["reference"] == job_id
    ]


def test_allowed_recipients_get_their_emails(run: Run) -> None:
    assert sent_to(run.notify, "sec-ok") == [
        ("planner@example.gov.uk", "STARTED"),
        ("planner@example.gov.uk", "COMPLETED"),
    ]
    # Domains are compared without regard to case.
    assert [k for _, k in sent_to(run.notify, "sec-upper")] == ["STARTED", "COMPLETED"]
    assert [k for _, k in sent_to(run.notify, "sec-bowtie")] == ["STARTED", "FAILED"]


@pytest.mark.parametrize("job_id", ["sec-elsewhere", "sec-subdomain"])
def test_other_domains_are_computed_but_never_emailed(run: Run, job_id: str) -> None:
    assert sent_to(run.notify, job_id) == []
    status = status_of(run.results, job_id)
    assert status["status"] == "succeeded"
    [record] = status["notifications"]
    assert (record["kind"], record["sent"], record["error"]) == (
        "completed",
        False,
        "recipient_domain_not_allowed",
    )


def test_an_invalid_address_fails_the_job_and_nobody_is_emailed(run: Run) -> None:
    status = status_of(run.results, "sec-bad-email")
    assert (status["status"], status["error_codes"]) == ("failed", ["invalid_email"])
    assert sent_to(run.notify, "sec-bad-email") == []


def test_a_notify_error_is_recorded_without_the_key(run: Run) -> None:
    status = status_of(run.results, "sec-notify-down")
    assert status["status"] == "succeeded"
    [record] = status["notifications"]
    assert record["sent"] is False and record["error"].startswith("http_403")


def test_bad_configuration_never_prints_the_key(tmp_path: Path) -> None:
    key = f"nrf_test-{uuid.uuid4()}-{uuid.uuid4()}"
    env = worker_env(
        "http://127.0.0.1:9",
        "q",
        tmp_path,
        free_port(),
        NRF_NOTIFIER="govuk_notify",
        GOVUK_NOTIFY_API_KEY=key,
        WORKER_CONCURRENCY="many",
    )
    done = subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", "worker"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "WORKER_CONCURRENCY" in done.stderr
    assert key not in done.stderr + done.stdout
    assert key.rsplit("-", 5)[-5] not in done.stderr  # not even the secret half's first group


def test_the_backend_key_was_used_on_the_wire_during_the_scan(run: Run) -> None:
    # So the scan above covers a worker that really sent the backend's key.
    status = status_of(run.results, "NRL-000901")
    [report] = [n for n in status["notifications"] if n["kind"] == "backend_result"]
    assert report["sent"] is True
