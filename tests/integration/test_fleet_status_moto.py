"""Real workers on moto write heartbeats; `nrf status` sees them live, stale, stopped, stuck."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nrf.adapters.boundary_data.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.adapters.boundary_data.packaged import bundled_reference_data
from support.moto_server import MotoServer, free_port
from support.worker_jobs import job_body, make_queues, slow_boundary_geojson, worker_env
from support.worker_process import WorkerProcess

BUCKET = "nrf-fleet-results"
INPUT = "nrf-fleet-input"
INTERVAL = 0.5  # seconds between heartbeats: live for 3 × 0.5 = 1.5 s after the last one


@pytest.fixture
def fleet(aws: MotoServer, tmp_path: Path) -> Iterator[dict[str, Any]]:
    sqs, s3 = aws.client("sqs"), aws.client("s3")
    queues = make_queues(sqs, "fleet_jobs")
    s3.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": "eu-west-2"})
    s3.create_bucket(Bucket=INPUT, CreateBucketConfiguration={"LocationConstraint": "eu-west-2"})
    workers: list[WorkerProcess] = []
    yield {"sqs": sqs, "s3": s3, "queues": queues, "workers": workers, "aws": aws, "tmp": tmp_path}
    for worker in workers:
        worker.close()


def env_for(fleet: dict[str, Any], **overrides: str) -> dict[str, str]:
    return worker_env(
        fleet["aws"].endpoint_url,
        fleet["queues"].name,
        fleet["tmp"] / "unused",
        free_port(),
        None,
        NRF_RESULT_STORE="s3",
        NRF_RESULTS_BUCKET=BUCKET,
        NRF_RESULTS_PREFIX="results",
        NRF_FLEET_HEARTBEAT_SECONDS=str(INTERVAL),
        NRF_INPUT_BUCKET=INPUT,
        **overrides,
    )


def start_worker(fleet: dict[str, Any], worker_id: str, **overrides: str) -> WorkerProcess:
    worker = WorkerProcess(env_for(fleet, NRF_WORKER_ID=worker_id, **overrides)).start()
    fleet["workers"].append(worker)
    worker.wait_for("fleet_heartbeat_started", timeout=90)
    return worker


def nrf_status(fleet: dict[str, Any], **overrides: str) -> tuple[int, dict[str, Any]]:
    answer = subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", "status", "--json"],
        env=env_for(fleet, **overrides),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert answer.returncode in (0, 1), answer.stderr
    return answer.returncode, json.loads(answer.stdout)


def housekeep(fleet: dict[str, Any]) -> list[dict[str, Any]]:
    """Run `nrf housekeep` with the log notifier; its log events."""
    answer = subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", "housekeep"],
        env=env_for(
            fleet, NRF_STALL_ALERT_SECONDS="1", GOVUK_NOTIFY_SUPPORT_EMAIL="support@example.gov.uk"
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert answer.returncode == 0, answer.stderr
    events = [json.loads(line) for line in answer.stderr.splitlines() if line.startswith("{")]
    assert [e["event"] for e in events].count("housekeeping_done") == 1
    return events


def notices(events: list[dict[str, Any]], kind: str) -> list[str]:
    """What each logged notification of ``kind`` was about (the code, or the job)."""
    sent = [e for e in events if e["event"] == "notification_logged" and e["kind"] == kind]
    return [e["personalisation"].get("error_codes", e["job_id"]) for e in sent]


def heartbeat(fleet: dict[str, Any], worker_id: str) -> dict[str, Any] | None:
    try:
        body = fleet["s3"].get_object(Bucket=BUCKET, Key=f"results/.workers/{worker_id}.json")
    except fleet["s3"].exceptions.NoSuchKey:
        return None
    data: dict[str, Any] = json.loads(body["Body"].read())
    return data


def wait_for(check: Any, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError("condition not met in time")


def ids(status: dict[str, Any], kind: str) -> list[str]:
    return [w["worker_id"] for w in status["workers"][kind]]


def test_two_workers_are_live_then_stale_when_killed_and_stopped_when_stopped(
    fleet: dict[str, Any],
) -> None:
    bundle = GeoPackageBoundaryData(bundled_reference_data()).info()
    first, second = start_worker(fleet, "worker-a"), start_worker(fleet, "worker-b")
    wait_for(lambda: heartbeat(fleet, "worker-a") and heartbeat(fleet, "worker-b"))
    code, status = nrf_status(fleet)
    assert code == 0, status["concerns"]
    assert ids(status, "live") == ["worker-a", "worker-b"]
    for worker in status["workers"]["live"]:
        assert worker["bundle"] == {
            "name": bundle.name,
            "version": bundle.version,
            "sha256": bundle.sha256,
        }
    assert len(status["workers"]["bundles"]) == 1
    # Each beat is also an EMF record, which the no-live-worker alarm counts.
    emf = [json.loads(line) for line in first.stdout_lines if "WorkerHeartbeats" in line]
    assert emf and emf[0]["WorkerHeartbeats"] == 1 and emf[0]["worker_id"] == "worker-a"

    # kill -9 the whole of worker-a: no "stopped" record, so it goes stale by itself.
    os.killpg(first.process.pid, signal.SIGKILL)
    first.wait(30)
    last = heartbeat(fleet, "worker-a")
    assert last is not None and last["status"] == "running"
    # Stale once 3 intervals have passed since its last record (wall clock, no timing asserted).
    wait_for(lambda: time.time() > last["written_at"] + 3 * INTERVAL, timeout=30)
    code, status = nrf_status(fleet)
    assert ids(status, "stale") == ["worker-a"]
    assert ids(status, "live") == ["worker-b"]

    # A clean stop writes "stopped": not live, not stale.
    assert second.stop(signal.SIGTERM) == 0
    assert heartbeat(fleet, "worker-b")["status"] == "stopped"  # type: ignore[index]
    code, status = nrf_status(fleet)
    assert ids(status, "stopped") == ["worker-b"] and ids(status, "live") == []
    assert code == 0  # nobody live, but nothing is waiting either

    fleet["sqs"].send_message(QueueUrl=fleet["queues"].url, MessageBody=job_body("waits-1"))
    code, status = nrf_status(fleet)
    assert code == 1
    assert [c["code"] for c in status["concerns"]] == ["no_live_worker"]
    text = subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", "status"],
        env=env_for(fleet),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert text.returncode == 1
    assert [line for line in text.stdout.splitlines() if line.startswith("no_live_worker: ")]

    # Every worker stopped and a message waiting: the stall alert goes once, however many runs.
    told = [housekeep(fleet)]  # the first run sees the stall begin
    stall = json.loads(
        fleet["s3"].get_object(Bucket=BUCKET, Key="results/.ops/stall.json")["Body"].read()
    )
    wait_for(lambda: time.time() > stall["since"] + 1.0, timeout=30)  # NRF_STALL_ALERT_SECONDS
    told += [housekeep(fleet), housekeep(fleet)]
    assert [notices(run, "queue_stalled") for run in told] == [[], ["queue_stalled"], []]
    assert [notices(run, "delayed") for run in told] == [[], ["waits-1"], []]

    # A worker comes back and takes the job: support hears that the stall is over, once.
    start_worker(fleet, "worker-c")
    wait_for(
        lambda: (
            fleet["s3"]
            .list_objects_v2(Bucket=BUCKET, Prefix="results/waits-1/status.json")
            .get("KeyCount")
        )
    )
    after = [housekeep(fleet), housekeep(fleet)]
    assert [notices(run, "queue_stalled") for run in after] == [["queue_stall_cleared"], []]
    code, status = nrf_status(fleet)
    assert status["last_hour"] == {"finished": 1, "failed": 0}
    assert ids(status, "live") == ["worker-c"] and code == 0


def test_a_claim_left_by_a_killed_worker_whose_message_is_gone_is_stuck(
    fleet: dict[str, Any],
) -> None:
    fleet["s3"].put_object(Bucket=INPUT, Key="slow.geojson", Body=slow_boundary_geojson())
    worker = start_worker(
        fleet,
        "worker-s",
        SQS_VISIBILITY_TIMEOUT="3",
        VISIBILITY_HEARTBEAT_SECONDS="1",
        VISIBILITY_EXTENSION_SECONDS="3",
    )
    body = job_body("slow-1", boundary_uri=f"s3://{INPUT}/slow.geojson")
    fleet["sqs"].send_message(QueueUrl=fleet["queues"].url, MessageBody=body)
    claim_key = "results/.claims/slow-1.json"
    wait_for(lambda: fleet["s3"].list_objects_v2(Bucket=BUCKET, Prefix=claim_key).get("KeyCount"))
    os.killpg(worker.process.pid, signal.SIGKILL)
    worker.wait(30)
    fleet["sqs"].purge_queue(QueueUrl=fleet["queues"].url)  # the message is gone
    lease = json.loads(fleet["s3"].get_object(Bucket=BUCKET, Key=claim_key)["Body"].read())
    # Stuck once the lease ended more than NRF_STUCK_AFTER_SECONDS (1) ago with no result.
    wait_for(lambda: time.time() > lease["expires_at"] + 1.5, timeout=30)
    code, status = nrf_status(fleet, NRF_STUCK_AFTER_SECONDS="1")
    assert code == 1
    assert [s["job_id"] for s in status["stuck_jobs"]] == ["slow-1"]
    assert "stuck_jobs" in [c["code"] for c in status["concerns"]]
    # A dry run touches nothing: the stuck claim is days short of any deletion anyway.
    dry = subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", "housekeep", "--dry-run"],
        env=env_for(fleet),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dry.returncode == 0, dry.stderr
    assert "would delete" not in dry.stdout and "stall: none, 0 waiting" in dry.stdout
    assert fleet["s3"].list_objects_v2(Bucket=BUCKET, Prefix=claim_key)["KeyCount"] == 1


def test_bad_configuration_exits_2(fleet: dict[str, Any]) -> None:
    answer = subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", "status"],
        env=env_for(fleet, NRF_RESULT_RETENTION_DAYS="soon"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert answer.returncode == 2
    assert "NRF_RESULT_RETENTION_DAYS" in answer.stderr
