"""Bundles delivered through S3 (moto over HTTP): publish, pin, download, verify, or refuse.

The real `nrf bundle publish` and the real `nrf worker` run as subprocesses; the worker is
pinned by S3 URI and SHA-256 exactly as an ECS task definition would pin it.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from nrf.adapters.boundary_data.packaged import bundled_reference_data
from nrf.bundles import publish as publish_module
from nrf.bundles.publish import publish_bundle
from nrf.domain.errors import NrfError
from support.bundle_copies import relabelled_bundle
from support.fake_notify import FakeNotifyServer
from support.moto_server import FAKE_CREDENTIALS, REGION, MotoServer, free_port
from support.throttled_proxy import throttled_proxy
from support.worker_jobs import (
    TEMPLATES,
    http_get,
    job_body,
    make_queues,
    status_of,
    wait_until_http,
    worker_env,
)
from support.worker_process import running_worker

BUCKET = "nrf-reference"
NAME, VERSION = "nrf-test-national", "2026.07-test"
# Key layout: <prefix>/<name>/<version>/<name>-<version>.gpkg
PINNED_URI = f"s3://{BUCKET}/reference/{NAME}/{VERSION}/{NAME}-{VERSION}.gpkg"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _aws_env(aws: MotoServer) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    return {
        **keep,
        "AWS_ENDPOINT_URL": aws.endpoint_url,
        "AWS_REGION": REGION,
        "AWS_ACCESS_KEY_ID": FAKE_CREDENTIALS["aws_access_key_id"],
        "AWS_SECRET_ACCESS_KEY": FAKE_CREDENTIALS["aws_secret_access_key"],
    }


def publish(aws: MotoServer, bundle: Path, destination: str) -> subprocess.CompletedProcess[str]:
    # These bundles are copies of the synthetic one under a real-looking label: never gated.
    command = [
        sys.executable,
        "-m",
        "nrf.entrypoints.cli",
        "bundle",
        "publish",
        "--allow-unchecked",
    ]
    return subprocess.run(
        [*command, str(bundle), destination],
        env=_aws_env(aws),
        capture_output=True,
        text=True,
        timeout=120,
    )


def pin_of(done: subprocess.CompletedProcess[str]) -> dict[str, str]:
    assert done.returncode == 0, done.stderr
    return dict(line.split("=", 1) for line in done.stdout.splitlines())


@pytest.fixture
def s3(aws: MotoServer) -> Any:
    client = aws.client("s3")
    client.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": REGION})
    return client


@pytest.fixture
def real_bundle(tmp_path: Path) -> Path:
    return relabelled_bundle(tmp_path / "national.gpkg", name=NAME, version=VERSION)


def test_a_worker_pinned_to_a_published_bundle_quotes_with_its_version(
    aws: MotoServer, s3: Any, real_bundle: Path, tmp_path: Path, fake_notify: FakeNotifyServer
) -> None:
    digest = _sha256(real_bundle)
    pin = pin_of(publish(aws, real_bundle, f"s3://{BUCKET}/reference/"))
    assert pin == {"NRF_REFERENCE_DATA": PINNED_URI, "NRF_REFERENCE_DATA_SHA256": digest}

    sqs = aws.client("sqs")
    queues = make_queues(sqs, "delivery_jobs")
    results, cache, port = tmp_path / "results", tmp_path / "cache", free_port()
    env = worker_env(
        aws.endpoint_url,
        queues.name,
        results,
        port,
        fake_notify,
        **pin,
        NRF_REFERENCE_DATA_CACHE=str(cache),
        NRF_ALLOW_SYNTHETIC_DATA="false",
    )
    with running_worker(env) as worker:
        ready = worker.wait_for("reference_data_ready", timeout=90)
        assert (ready["bundle_name"], ready["bundle_version"]) == (NAME, VERSION)
        assert (ready["bundle_sha256"], ready["synthetic"]) == (digest, False)
        progress = worker.matching("reference_data_download_progress")
        assert progress and progress[-1]["bytes_done"] == real_bundle.stat().st_size
        worker.wait_for("worker_started", timeout=90)
        for job_id in ("pinned-1", "pinned-2"):
            sqs.send_message(QueueUrl=queues.url, MessageBody=job_body(job_id))
        for job_id in ("pinned-1", "pinned-2"):
            worker.wait_for("job_finished", timeout=60, job_id=job_id)
        status, body, _ = http_get(f"http://127.0.0.1:{port}/ready")
        assert (status, body.get("bundle_version")) == (200, VERSION)
        assert worker.stop() == 0

    for job_id in ("pinned-1", "pinned-2"):
        assert status_of(results, job_id)["status"] == "succeeded"
        provenance = json.loads((results / job_id / "result.json").read_text())["provenance"]
        assert provenance["bundle_name"] == NAME
        assert provenance["bundle_version"] == VERSION
        assert provenance["bundle_sha256"] == digest
        assert provenance["synthetic_data"] is False
    # The verified download is kept under its digest; nothing partial is left beside it.
    assert sorted(p.name for p in cache.iterdir()) == [f"{digest}-{NAME}-{VERSION}.gpkg"]
    completed = [e for e in fake_notify.emails if e["template_id"] == TEMPLATES["COMPLETED"]]
    assert len(completed) == 2
    assert {e["personalisation"]["synthetic_data"] for e in completed} == {"no"}


def _ready_answers_until_exit(worker: Any, port: int) -> list[int]:
    """Every /ready status seen while the worker runs (0: nothing listening yet)."""
    seen: list[int] = []
    while worker.process.poll() is None:
        try:
            seen.append(http_get(f"http://127.0.0.1:{port}/ready", timeout=1)[0])
        except OSError:
            seen.append(0)
        threading.Event().wait(0.05)
    return seen


def test_a_wrong_digest_stops_the_worker_with_exit_3_and_it_is_never_ready(
    aws: MotoServer, s3: Any, real_bundle: Path, tmp_path: Path
) -> None:
    pin = pin_of(publish(aws, real_bundle, f"s3://{BUCKET}/reference/"))
    wrong = hashlib.sha256(b"some other bundle").hexdigest()
    cache, port = tmp_path / "cache", free_port()
    env = worker_env(
        aws.endpoint_url,
        "unused_queue",
        tmp_path / "results",
        port,
        NRF_REFERENCE_DATA=pin["NRF_REFERENCE_DATA"],
        NRF_REFERENCE_DATA_SHA256=wrong,
        NRF_REFERENCE_DATA_CACHE=str(cache),
    )
    with running_worker(env) as worker:
        seen = _ready_answers_until_exit(worker, port)
        assert worker.wait(30) == 3
    assert 200 not in seen
    [refused] = worker.matching("worker_cannot_start")
    assert refused["code"] == "reference_data_digest_mismatch"
    assert wrong in refused["error"] and pin["NRF_REFERENCE_DATA_SHA256"] in refused["error"]
    assert worker.count("worker_process_started") == 0  # the bundle was never opened
    assert sorted(p.name for p in cache.iterdir()) == []  # nothing usable was left


def test_a_local_bundle_that_is_not_the_pinned_one_stops_the_worker_too(
    real_bundle: Path, tmp_path: Path
) -> None:
    port = free_port()
    env = worker_env(
        "http://127.0.0.1:9",
        "unused_queue",
        tmp_path / "results",
        port,
        NRF_REFERENCE_DATA=str(real_bundle),
        NRF_REFERENCE_DATA_SHA256=hashlib.sha256(b"another").hexdigest(),
    )
    with running_worker(env) as worker:
        seen = _ready_answers_until_exit(worker, port)
        assert worker.wait(30) == 3
    assert 200 not in seen
    [refused] = worker.matching("worker_cannot_start")
    assert refused["code"] == "reference_data_digest_mismatch"
    assert _sha256(real_bundle) in refused["error"]


@pytest.mark.parametrize("pinned", [True, False], ids=["published-synthetic", "no-pin"])
def test_synthetic_data_without_the_opt_in_stops_the_worker_with_a_clear_code(
    aws: MotoServer, s3: Any, tmp_path: Path, pinned: bool
) -> None:
    overrides = {"NRF_ALLOW_SYNTHETIC_DATA": "false"}
    if pinned:  # the bundled synthetic bundle, published and pinned like a real one
        overrides |= pin_of(publish(aws, bundled_reference_data(), f"s3://{BUCKET}/demo/"))
        overrides["NRF_REFERENCE_DATA_CACHE"] = str(tmp_path / "cache")
    port = free_port()
    env = worker_env(
        aws.endpoint_url, "unused_queue", tmp_path / "results", port, None, **overrides
    )
    with running_worker(env) as worker:
        seen = _ready_answers_until_exit(worker, port)
        assert worker.wait(30) == 4
    assert 200 not in seen
    [refused] = worker.matching("worker_cannot_start")
    assert refused["code"] == "synthetic_data_not_allowed"
    assert "NRF_ALLOW_SYNTHETIC_DATA=true" in refused["error"]
    assert worker.count("worker_process_started") == 0


def test_an_s3_bundle_without_a_digest_is_bad_configuration(tmp_path: Path) -> None:
    env = worker_env(
        "http://127.0.0.1:9", "q", tmp_path, free_port(), NRF_REFERENCE_DATA=PINNED_URI
    )
    with running_worker(env) as worker:
        assert worker.wait(30) == 2
    [bad] = worker.matching("bad_configuration")
    assert any("NRF_REFERENCE_DATA_SHA256 is required" in p for p in bad["problems"])


def test_a_published_version_is_never_replaced(
    aws: MotoServer, s3: Any, real_bundle: Path, tmp_path: Path
) -> None:
    first = pin_of(publish(aws, real_bundle, f"s3://{BUCKET}/reference/"))
    again = publish(aws, real_bundle, f"s3://{BUCKET}/reference/")
    assert again.returncode == 1
    assert "bundle_already_published" in again.stderr
    assert again.stdout == ""  # no pin printed for a refused publish
    # Different bytes under the same name and version: refused as well.
    changed = relabelled_bundle(
        tmp_path / "changed.gpkg", name=NAME, version=VERSION, description="rebuilt"
    )
    assert _sha256(changed) != first["NRF_REFERENCE_DATA_SHA256"]
    refused = publish(aws, changed, f"s3://{BUCKET}/reference/")
    assert refused.returncode == 1
    assert "bundle_already_published" in refused.stderr
    key = PINNED_URI.removeprefix(f"s3://{BUCKET}/")
    stored = s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()
    assert hashlib.sha256(stored).hexdigest() == first["NRF_REFERENCE_DATA_SHA256"]


class _StaleCheck:
    """The real client, except that its existence check always says "free": as if another
    publisher wrote the key between our check and our upload."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def head_object(self, **kwargs: Any) -> dict[str, Any]:
        raise ClientError({"Error": {"Code": "404"}}, "HeadObject")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


@pytest.mark.parametrize("part_bytes", [64 << 20, 5 << 20], ids=["single-put", "multipart"])
def test_the_conditional_upload_refuses_a_key_written_meanwhile(
    s3: Any, real_bundle: Path, monkeypatch: pytest.MonkeyPatch, part_bytes: int
) -> None:
    # The 7.8 MB bundle goes up in one put, or in parts of 5 MiB (5 MiB, then the rest).
    monkeypatch.setattr(publish_module, "PART_BYTES", part_bytes)
    published = publish_bundle(s3, real_bundle, f"s3://{BUCKET}/reference", allow_unchecked=True)
    assert str(published.location) == PINNED_URI
    key = published.location.key
    head = s3.head_object(Bucket=BUCKET, Key=key)
    assert head["Metadata"]["sha256"] == _sha256(real_bundle)
    assert head["ContentLength"] == real_bundle.stat().st_size
    with pytest.raises(NrfError) as caught:
        publish_bundle(
            _StaleCheck(s3), real_bundle, f"s3://{BUCKET}/reference", allow_unchecked=True
        )
    assert caught.value.code == "bundle_already_published"
    assert s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads", []) == []  # none left open
    stored = s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()
    assert stored == real_bundle.read_bytes()


def test_health_answers_while_the_bundle_downloads_and_ready_waits_for_it(
    aws: MotoServer, s3: Any, real_bundle: Path, tmp_path: Path
) -> None:
    pin = pin_of(publish(aws, real_bundle, f"s3://{BUCKET}/reference/"))
    queues = make_queues(aws.client("sqs"), "slow_download_jobs")
    # 7.8 MB at 1 MB/s: the download takes at least 7 s on any machine.
    with throttled_proxy(aws.endpoint_url, rate=1_000_000) as proxy:
        port = free_port()
        env = worker_env(
            proxy.url,
            queues.name,
            tmp_path / "results",
            port,
            None,
            **pin,
            NRF_REFERENCE_DATA_CACHE=str(tmp_path / "cache"),
            NRF_ALLOW_SYNTHETIC_DATA="false",
        )
        with running_worker(env) as worker:
            health: list[tuple[int, str]] = []
            ready: list[tuple[int, str]] = []
            deadline = time.monotonic() + 120
            while not worker.matching("reference_data_ready") and time.monotonic() < deadline:
                assert worker.process.poll() is None, worker.transcript()
                for url, seen in (("health", health), ("ready", ready)):
                    try:
                        status, body, _ = http_get(f"http://127.0.0.1:{port}/{url}")
                        seen.append((status, body.get("reason", "")))
                    except OSError:
                        pass  # the health server is not listening yet
                time.sleep(0.1)
            assert (200, "starting") in health  # alive: ECS leaves the task be
            assert {status for status, _ in ready} == {503}  # but not given work
            assert (503, "starting") in ready
            status, body, _ = wait_until_http(f"http://127.0.0.1:{port}/ready", 200, timeout=90)
            assert body["bundle_version"] == VERSION
            assert worker.stop() == 0


def test_with_the_opt_in_every_email_and_result_says_the_data_is_synthetic(
    aws: MotoServer, tmp_path: Path, fake_notify: FakeNotifyServer
) -> None:
    sqs = aws.client("sqs")
    queues = make_queues(sqs, "synthetic_jobs")
    results, port = tmp_path / "results", free_port()
    env = worker_env(aws.endpoint_url, queues.name, results, port, fake_notify)  # the opt-in
    bad = job_body("synthetic-bad", boundary={"type": "Point", "coordinates": [0, 0]})
    with running_worker(env) as worker:
        ready = worker.wait_for("reference_data_ready", timeout=90)
        assert ready["synthetic"] is True
        sqs.send_message(QueueUrl=queues.url, MessageBody=job_body("synthetic-ok"))
        sqs.send_message(QueueUrl=queues.url, MessageBody=bad)
        for job_id in ("synthetic-ok", "synthetic-bad"):
            worker.wait_for("job_finished", timeout=60, job_id=job_id)
        assert worker.stop() == 0
    kinds = {v: k for k, v in TEMPLATES.items()}
    sent = sorted(
        (e["reference"], kinds[e["template_id"]], e["personalisation"]) for e in fake_notify.emails
    )
    # The bad boundary is found after the "started" email (docs/worker.md, steps 3 and 4).
    assert [(job, kind) for job, kind, _ in sent] == [
        ("synthetic-bad", "FAILED"),
        ("synthetic-bad", "STARTED"),
        ("synthetic-ok", "COMPLETED"),
        ("synthetic-ok", "STARTED"),
    ]
    for _, _, personal in sent:
        assert personal["synthetic_data"] == "yes"
        assert personal["data_notice"].startswith("SYNTHETIC DEMONSTRATION DATA")
    document = json.loads((results / "synthetic-ok" / "result.json").read_text())
    assert document["provenance"]["synthetic_data"] is True
    assert document["notice"].startswith("SYNTHETIC DEMONSTRATION DATA")
