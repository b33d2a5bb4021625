"""Hostile input through the real worker: each job failed once with its code, the worker
unharmed and its memory bounded (moto SQS and S3 over HTTP, the fake Notify server)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from attrs import frozen

from support.boundary_sites import recursive_view_geopackage, stale_geopackage
from support.fake_notify import FakeNotifyServer, running_fake_notify
from support.hostile import (
    BOWTIE,
    SQUARE,
    deep_message,
    huge_ring_kml,
    job,
    many_vertices_geojson,
    polygon,
    zip_bomb,
    zip_of,
)
from support.moto_server import MotoServer, free_port
from support.worker_jobs import (
    TEMPLATES,
    Queues,
    http_get,
    make_queues,
    queue_counts,
    status_of,
    worker_env,
)
from support.worker_process import WorkerProcess

BUCKET, PREFIX = "nrf-input", "boundaries"
MEMORY_BOUND_MB = 600  # the job process starts near 180 MB with the bundle loaded
READ_MEMORY = str(96 * 1024 * 1024)  # NRF_MAX_READ_MEMORY_BYTES: ample for every other file


@frozen
class Case:
    name: str
    body: str
    code: str
    emailed: bool = True  # False when the body gives no address to tell
    upload: bytes | None = None  # put at s3://BUCKET/PREFIX/<name><suffix> first
    suffix: str = ".geojson"


def _uri_job(name: str, suffix: str = ".geojson") -> str:
    return json.dumps(job(name, boundary_uri=f"s3://{BUCKET}/{PREFIX}/{name}{suffix}"))


def _cases() -> list[Case]:
    unclosed = [*SQUARE[:-1], [582801.0, 328201.0]]
    nan_file = b'{"type":"Polygon","coordinates":[[[NaN,1],[2,Infinity],[3,4],[NaN,1]]]}'
    # 1e400 as written: Python reads it as infinity (json.dumps would write Infinity instead).
    dwellings = {"name": "x", "dwellings": 123454321, "dwelling_category": "housing"}
    return [
        Case("random-bytes", "\x7f}{\u00e9 not json ]]", "not_json", emailed=False),
        Case(
            "truncated",
            json.dumps(job("hostile-truncated"))[:60],
            "not_json",
            emailed=False,
        ),
        Case("deep", deep_message("hostile-deep", 100), "json_too_deep", emailed=False),
        Case(
            "nan-inline",
            json.dumps(job("hostile-nan-inline")).replace("582800.0", "NaN", 1),
            "not_json",
            emailed=False,
        ),
        Case(
            "hostile-huge-number",
            json.dumps(job("hostile-huge-number", development=dwellings)).replace(
                "123454321", "1e400"
            ),
            "invalid_dwellings",
        ),
        Case(
            "hostile-bowtie",
            json.dumps(job("hostile-bowtie", boundary=polygon(BOWTIE))),
            "self_intersecting_geometry",
        ),
        Case(
            "hostile-unclosed",
            json.dumps(job("hostile-unclosed", boundary=polygon(unclosed))),
            "unclosed_ring",
        ),
        Case(
            "hostile-nan-file",
            _uri_job("hostile-nan-file"),
            "non_finite_coordinates",
            upload=nan_file,
        ),
        Case(
            "hostile-150k-vertices",
            _uri_job("hostile-150k-vertices"),
            "too_many_vertices",
            upload=many_vertices_geojson(150_000),
        ),
        Case(
            "hostile-2m-vertices",
            _uri_job("hostile-2m-vertices"),
            "geojson_too_complex",
            upload=many_vertices_geojson(2_000_000),
        ),
        Case(
            "hostile-zip-bomb",
            _uri_job("hostile-zip-bomb", ".zip"),
            "zip_entry_too_large",
            upload=zip_bomb(256 * 1024 * 1024),
            suffix=".zip",
        ),
        Case(
            "hostile-zip-slip",
            _uri_job("hostile-zip-slip", ".zip"),
            "zip_unsafe_path",
            upload=zip_of({"../../escape.geojson": json.dumps(polygon(SQUARE)).encode()}),
            suffix=".zip",
        ),
        Case(
            "hostile-random-gpkg",
            _uri_job("hostile-random-gpkg", ".gpkg"),
            "unreadable_file",
            upload=os.urandom(4096),
            suffix=".gpkg",
        ),
        Case(
            # One ring of 999,000 positions: GDAL needs ~200 MiB to build it, over the burst's
            # read ceiling (READ_MEMORY); refused in the reading child, never in the job process.
            "hostile-huge-ring",
            _uri_job("hostile-huge-ring", ".kml"),
            "read_too_large",
            upload=huge_ring_kml(999_000),
            suffix=".kml",
        ),
        Case(
            "hostile-stale-count",
            _uri_job("hostile-stale-count", ".gpkg"),
            "source_corrupt",
            upload=stale_geopackage(rows=3, claimed=1),
            suffix=".gpkg",
        ),
        Case(
            "hostile-recursive-view",
            _uri_job("hostile-recursive-view", ".gpkg"),
            "layer_not_a_table",
            upload=recursive_view_geopackage(),
            suffix=".gpkg",
        ),
        Case(
            "hostile-other-bucket",
            json.dumps(
                job("hostile-other-bucket", boundary_uri="s3://someone-else/boundaries/x.geojson")
            ),
            "boundary_uri_not_allowed",
        ),
        Case(
            "hostile-escape-prefix",
            json.dumps(
                job(
                    "hostile-escape-prefix",
                    boundary_uri=f"s3://{BUCKET}/{PREFIX}/../secrets/x.geojson",
                )
            ),
            "boundary_uri_not_allowed",
        ),
        Case(
            "hostile-unknown-rules",
            json.dumps(job("hostile-unknown-rules", rules="x-2099")),
            "unknown_rule_set",
        ),
        Case(
            "hostile-file-scheme",
            json.dumps(job("hostile-file-scheme", boundary_uri="file:///etc/passwd")),
            "invalid_boundary_uri",
        ),
    ]


CASES = _cases()


def memory_mb(pid: int) -> dict[str, float]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) / 1024
    return fields


@frozen
class Burst:
    worker: WorkerProcess
    sqs: Any
    queues: Queues
    notify: FakeNotifyServer
    results: Path
    job_ids: dict[str, str]  # case name -> job id (message-<id> for unparsable bodies)
    message_ids: dict[str, str]
    pids: dict[str, int]
    before: dict[str, dict[str, float]]
    after: dict[str, dict[str, float]]


@pytest.fixture(scope="module")
def burst(moto_server: MotoServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Burst]:
    """One worker (one job process); every hostile case sent at once, all finished."""
    moto_server.reset()
    sqs, s3 = moto_server.client("sqs"), moto_server.client("s3")
    queues = make_queues(sqs, "hostile_jobs", max_receive_count=3)
    s3.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": "eu-west-2"})
    for case in CASES:
        if case.upload is not None:
            s3.put_object(Bucket=BUCKET, Key=f"{PREFIX}/{case.name}{case.suffix}", Body=case.upload)
    results = tmp_path_factory.mktemp("hostile-results")
    with running_fake_notify() as notify:
        env = worker_env(
            moto_server.endpoint_url,
            queues.name,
            results,
            free_port(),
            notify,
            NRF_INPUT_BUCKET=BUCKET,
            NRF_INPUT_PREFIX=PREFIX,
            NRF_MAX_READ_MEMORY_BYTES=READ_MEMORY,
        )
        worker = WorkerProcess(env).start()
        try:
            worker.wait_for("worker_started", timeout=90)
            ready = worker.wait_for("job_process_ready", timeout=30)
            pids = {"worker": worker.pid_of_worker_process(), "job": int(ready["pid"])}
            before = {name: memory_mb(pid) for name, pid in pids.items()}
            job_ids, message_ids = {}, {}
            for case in CASES:
                sent = sqs.send_message(QueueUrl=queues.url, MessageBody=case.body)
                message_ids[case.name] = sent["MessageId"]
                job_ids[case.name] = case.name if case.emailed else f"message-{sent['MessageId']}"
            for job_id in job_ids.values():
                worker.wait_for("job_finished", timeout=120, job_id=job_id)
            after = {name: memory_mb(pid) for name, pid in pids.items()}
            yield Burst(
                worker, sqs, queues, notify, results, job_ids, message_ids, pids, before, after
            )
        finally:
            worker.close()


def emails(notify: FakeNotifyServer, job_id: str, template: str) -> int:
    wanted = TEMPLATES[template]
    return sum(1 for e in notify.emails if e["reference"] == job_id and e["template_id"] == wanted)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_hostile_job_is_failed_once_with_its_code(burst: Burst, case: Case) -> None:
    job_id = burst.job_ids[case.name]
    status = status_of(burst.results, job_id)
    assert status["status"] == "failed"
    assert case.code in status["error_codes"], status["error_codes"]
    [finished] = burst.worker.matching("job_finished", job_id=job_id)
    assert finished["status"] == "failed"
    assert burst.worker.count("job_received", message_id=burst.message_ids[case.name]) == 1
    assert emails(burst.notify, job_id, "FAILED") == (1 if case.emailed else 0)
    assert emails(burst.notify, job_id, "COMPLETED") == 0
    assert not (burst.results / job_id / "result.json").exists()


def test_the_worker_keeps_running_with_bounded_memory(burst: Burst) -> None:
    worker = burst.worker
    assert worker.process.poll() is None
    assert worker.count("worker_process_started") == 1, "the worker process was never restarted"
    assert worker.count("job_process_died") == 0
    assert worker.count("job_retry") == 0, "hostile input is never retried as a server fault"
    port = worker.env["AWS_HEALTH_PORT"]
    assert http_get(f"http://127.0.0.1:{port}/health")[0] == 200
    for name in ("worker", "job"):
        assert burst.after[name]["VmHWM"] < MEMORY_BOUND_MB, (name, burst.before, burst.after)
        assert burst.after[name]["VmRSS"] < MEMORY_BOUND_MB, (name, burst.before, burst.after)
    assert queue_counts(burst.sqs, burst.queues.url) == (0, 0)
    assert queue_counts(burst.sqs, burst.queues.dlq_url) == (0, 0)


def test_a_good_job_still_succeeds_after_the_burst(burst: Burst) -> None:
    burst.sqs.send_message(QueueUrl=burst.queues.url, MessageBody=json.dumps(job("after-burst")))
    finished = burst.worker.wait_for("job_finished", timeout=60, job_id="after-burst")
    assert finished["status"] == "succeeded"
    assert status_of(burst.results, "after-burst")["status"] == "succeeded"
    assert emails(burst.notify, "after-burst", "COMPLETED") == 1
