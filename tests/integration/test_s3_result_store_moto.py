"""S3ResultStore over real HTTP against moto's standalone server."""

from __future__ import annotations

import pytest

from nrf.adapters.result_store.s3_result_store import S3ResultStore
from nrf.domain.errors import InvalidInput
from nrf.domain.jobs import JobRecord, JobStatus, ResultStoreUnavailable
from support.moto_server import MotoServer, aws_client, client_config, free_port

RECORD = JobRecord(
    job_id="NRF-000001", status=JobStatus.SUCCEEDED, finished_at=1_700_000_000.0, trace_id="t"
)
FILES = {"result.json": b'{"ok": true}', "legacy.csv": b"a,b\n"}


@pytest.fixture
def s3(aws: MotoServer) -> object:
    client = aws.client("s3")
    client.create_bucket(
        Bucket="nrf-results", CreateBucketConfiguration={"LocationConstraint": "eu-west-2"}
    )
    return client


def keys(client: object) -> list[str]:
    listing = client.list_objects_v2(Bucket="nrf-results")  # type: ignore[attr-defined]
    return sorted(item["Key"] for item in listing.get("Contents", []))


def test_save_writes_under_the_prefix_and_record_reads_back(s3: object) -> None:
    store = S3ResultStore(s3, "nrf-results", "results/v1/")
    where = store.save("NRF-000001", FILES, RECORD)
    assert where == "s3://nrf-results/results/v1/NRF-000001/"
    assert keys(s3) == [
        "results/v1/NRF-000001/legacy.csv",
        "results/v1/NRF-000001/result.json",
        "results/v1/NRF-000001/status.json",
    ]
    assert store.record("NRF-000001") == RECORD
    head = s3.head_object(Bucket="nrf-results", Key="results/v1/NRF-000001/legacy.csv")  # type: ignore[attr-defined]
    assert head["ContentType"] == "text/csv"


def test_no_prefix_and_unknown_job(s3: object) -> None:
    store = S3ResultStore(s3, "nrf-results")
    assert store.record("NRF-000009") is None
    assert store.save("NRF-000001", {}, RECORD) == "s3://nrf-results/NRF-000001/"
    assert keys(s3) == ["NRF-000001/status.json"]


def test_a_failed_upload_leaves_no_record(s3: object) -> None:
    class FailOnCsv:
        """The real client, except that the CSV upload fails."""

        def __init__(self, client: object) -> None:
            self._client = client

        def put_object(self, **request: object) -> object:
            if str(request["Key"]).endswith(".csv"):
                from botocore.exceptions import ClientError

                raise ClientError({"Error": {"Code": "SlowDown"}}, "PutObject")
            return self._client.put_object(**request)  # type: ignore[attr-defined]

        def get_object(self, **request: object) -> object:
            return self._client.get_object(**request)  # type: ignore[attr-defined]

    store = S3ResultStore(FailOnCsv(s3), "nrf-results", "p")
    with pytest.raises(ResultStoreUnavailable, match="SlowDown"):
        store.save("NRF-000001", FILES, RECORD)
    assert store.record("NRF-000001") is None
    assert "p/NRF-000001/status.json" not in keys(s3)


def test_a_missing_bucket_is_unavailable(aws: MotoServer) -> None:
    store = S3ResultStore(aws.client("s3"), "no-such-bucket")
    with pytest.raises(ResultStoreUnavailable):
        store.save("NRF-000001", FILES, RECORD)
    with pytest.raises(ResultStoreUnavailable):
        store.record("NRF-000001")


def test_an_endpoint_that_is_down_is_unavailable() -> None:
    client = aws_client(
        "s3", f"http://127.0.0.1:{free_port()}", client_config(read_timeout=2, attempts=1)
    )
    with pytest.raises(ResultStoreUnavailable):
        S3ResultStore(client, "nrf-results").record("NRF-000001")


def test_job_ids_are_validated_before_any_request(s3: object) -> None:
    with pytest.raises(InvalidInput):
        S3ResultStore(s3, "nrf-results").save("../x", FILES, RECORD)
