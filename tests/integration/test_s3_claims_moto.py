"""S3ResultStore claims over moto: conditional writes create, refuse, take over and release."""

from __future__ import annotations

import pytest

from nrf.adapters.result_store.s3_result_store import S3ResultStore
from nrf.domain.claims import Lease
from nrf.domain.jobs import ResultStoreUnavailable
from support.moto_server import MotoServer

T0 = 1_700_000_000.0


@pytest.fixture
def store(aws: MotoServer) -> S3ResultStore:
    s3 = aws.client("s3")
    s3.create_bucket(Bucket="claims", CreateBucketConfiguration={"LocationConstraint": "eu-west-2"})
    return S3ResultStore(s3, "claims", "results")


def test_claims_follow_the_lease_rules_with_conditional_puts(store: S3ResultStore) -> None:
    assert store.claim("job-1", "a", T0, 30) == Lease(
        job_id="job-1", owner="a", expires_at=T0 + 30, first=True
    )
    assert store.claim("job-1", "b", T0 + 10, 30) == Lease(
        job_id="job-1", owner="a", expires_at=T0 + 30
    )
    assert store.claim("job-1", "a", T0 + 10, 30) == Lease(
        job_id="job-1", owner="a", expires_at=T0 + 40
    )
    assert store.claim("job-1", "b", T0 + 40, 30) == Lease(
        job_id="job-1", owner="b", expires_at=T0 + 70
    )
    store.release("job-1", "a", T0 + 41)
    assert store.claim("job-1", "c", T0 + 42, 30).owner == "b"
    store.release("job-1", "b", T0 + 43)
    assert store.claim("job-1", "c", T0 + 44, 30) == Lease(
        job_id="job-1", owner="c", expires_at=T0 + 74
    )
    keys = [o["Key"] for o in store._client.list_objects_v2(Bucket="claims")["Contents"]]
    assert keys == ["results/.claims/job-1.json"]


def test_a_stale_etag_loses_the_race(store: S3ResultStore) -> None:
    store.claim("job-1", "a", T0, 30)
    _, etag = store._read_claim("job-1")
    store.claim("job-1", "b", T0 + 31, 30)  # b took it over meanwhile: the etag changed
    assert etag is not None
    assert (
        store._put_claim("job-1", Lease(job_id="job-1", owner="c", expires_at=T0 + 61), etag)
        is False
    )
    assert (
        store._put_claim("job-1", Lease(job_id="job-1", owner="c", expires_at=T0 + 61), None)
        is False
    )
    assert store.claim("job-1", "c", T0 + 32, 30).owner == "b"


def test_an_unreachable_bucket_is_unavailable(aws: MotoServer) -> None:
    store = S3ResultStore(aws.client("s3"), "no-such-bucket")
    with pytest.raises(ResultStoreUnavailable):
        store.claim("job-1", "a", T0, 30)
