"""`GET /v1/jobs/{job_id}` reads what S3ResultStore wrote, from a real (moto) S3 over HTTP."""

from __future__ import annotations

import json
from pathlib import Path

from nrf.adapters.result_store.s3_result_store import S3ResultStore
from nrf.domain.jobs import JobRecord, JobStatus
from support.api_server import KEY, running_server, serve_env
from support.moto_server import FAKE_CREDENTIALS, REGION, MotoServer

BUCKET, PREFIX = "nrf-results", "api/results"


def test_jobs_are_read_from_the_s3_result_store(aws: MotoServer, tmp_path: Path) -> None:
    s3 = aws.client("s3")
    s3.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": REGION})
    store = S3ResultStore(s3, BUCKET, PREFIX)
    result = {"sites": [{"n_total": 1.5}], "levy_total": {"levy_gbp": "12.00"}}
    files = {"result.json": json.dumps(result).encode(), "result.html": b"<p>the report</p>"}
    store.save(
        "s3-job-1", files, JobRecord(job_id="s3-job-1", status=JobStatus.SUCCEEDED, finished_at=7.0)
    )
    env = serve_env(
        tmp_path,
        NRF_RESULT_STORE="s3",
        NRF_RESULTS_BUCKET=BUCKET,
        NRF_RESULTS_PREFIX=PREFIX,
        AWS_ENDPOINT_URL=aws.endpoint_url,
        AWS_REGION=REGION,
        AWS_ACCESS_KEY_ID=FAKE_CREDENTIALS["aws_access_key_id"],
        AWS_SECRET_ACCESS_KEY=FAKE_CREDENTIALS["aws_secret_access_key"],
    )
    with running_server(env, tmp_path / "serve.log") as server:
        key = {"x-api-key": KEY}
        found = server.request("GET", "/v1/jobs/s3-job-1", headers=key)
        page = server.request("GET", "/v1/jobs/s3-job-1", headers={**key, "Accept": "text/html"})
        missing = server.request("GET", "/v1/jobs/s3-job-2", headers=key)
    assert found.status == 200 and found.json()["result"] == result
    assert (found.json()["status"], found.json()["finished_at"]) == ("succeeded", 7.0)
    assert (page.status, page.body) == (200, b"<p>the report</p>")
    assert (missing.status, missing.json()["code"]) == (404, "job_not_found")


def test_a_result_store_that_cannot_be_read_is_a_503(aws: MotoServer, tmp_path: Path) -> None:
    env = serve_env(
        tmp_path,
        NRF_RESULT_STORE="s3",
        NRF_RESULTS_BUCKET="no-such-bucket",
        AWS_ENDPOINT_URL=aws.endpoint_url,
        AWS_REGION=REGION,
        AWS_ACCESS_KEY_ID=FAKE_CREDENTIALS["aws_access_key_id"],
        AWS_SECRET_ACCESS_KEY=FAKE_CREDENTIALS["aws_secret_access_key"],
    )
    with running_server(env, tmp_path / "serve.log") as server:
        answer = server.request("GET", "/v1/jobs/any-job", headers={"x-api-key": KEY})
    assert answer.status == 503 and answer.content_type == "application/problem+json"
    assert answer.json()["code"] == "result_store_unavailable"
