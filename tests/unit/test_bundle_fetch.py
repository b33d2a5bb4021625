"""Fetching a pinned bundle from an S3-like client: stream, resume, verify, rename or refuse."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from fakes import FakeS3
from nrf.adapters.boundary_data import bundle_fetch
from nrf.adapters.boundary_data.bundle_fetch import (
    CANCELLED,
    DIGEST_MISMATCH,
    DOWNLOAD_FAILED,
    NO_SPACE,
    NOT_FOUND,
    BundleFetchError,
    fetch_s3,
    verify_local,
)
from nrf.adapters.boundary_data.bundle_location import S3Location

DATA = bytes(range(256)) * 40  # 10,240 bytes
DIGEST = hashlib.sha256(DATA).hexdigest()
WHERE = S3Location("bundles", "nrf/national/2026.1/national-2026.1.gpkg")


def _cache_files(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir()) if cache.exists() else []


def test_downloads_verifies_and_names_the_file_by_its_digest(tmp_path: Path) -> None:
    s3 = FakeS3({(WHERE.bucket, WHERE.key): DATA})
    seen: list[tuple[int, int | None]] = []
    path = fetch_s3(s3, WHERE, DIGEST, tmp_path, lambda d, t: seen.append((d, t)))
    assert path == tmp_path / f"{DIGEST}-national-2026.1.gpkg"
    assert path.read_bytes() == DATA
    assert _cache_files(tmp_path) == [path.name]  # no partial file left behind
    # 10,240 bytes in pieces of 1,000: ten full pieces, then 240.
    assert [d for d, _ in seen] == [*range(1000, 10_001, 1000), 10_240]
    assert {t for _, t in seen} == {10_240}


def test_a_dropped_connection_resumes_from_the_last_byte_written(tmp_path: Path) -> None:
    s3 = FakeS3({(WHERE.bucket, WHERE.key): DATA})
    s3.drops = [3000, 2000]  # cut after 3,000 bytes, then after 2,000 more
    waits: list[float] = []
    path = fetch_s3(s3, WHERE, DIGEST, tmp_path, sleep=waits.append)
    assert path.read_bytes() == DATA
    # 0 → 3,000 written; resumed at 3,000 → 5,000; resumed at 5,000 to the end.
    assert s3.ranges == [None, "bytes=3000-", "bytes=5000-"]
    assert waits == [1.0, 2.0]  # backing off before each resumption


def test_a_range_the_server_ignores_restarts_from_the_beginning(tmp_path: Path) -> None:
    s3 = FakeS3({(WHERE.bucket, WHERE.key): DATA})
    s3.honour_range = False
    s3.drops = [3000]
    path = fetch_s3(s3, WHERE, DIGEST, tmp_path, sleep=lambda seconds: None)
    assert path.read_bytes() == DATA  # not the first 3,000 bytes twice
    assert s3.ranges == [None, "bytes=3000-", None]


def test_too_many_dropped_connections_fail_and_leave_nothing(tmp_path: Path) -> None:
    s3 = FakeS3({(WHERE.bucket, WHERE.key): DATA})
    s3.drops = [500] * bundle_fetch.MAX_ATTEMPTS
    waits: list[float] = []
    with pytest.raises(BundleFetchError) as caught:
        fetch_s3(s3, WHERE, DIGEST, tmp_path, sleep=waits.append)
    assert waits == [1.0, 2.0, 4.0, 8.0]  # no wait after the last attempt
    assert caught.value.code == DOWNLOAD_FAILED
    assert len(s3.ranges) == bundle_fetch.MAX_ATTEMPTS
    assert _cache_files(tmp_path) == []


def test_a_digest_mismatch_is_refused_and_nothing_takes_the_final_name(tmp_path: Path) -> None:
    other = DATA[:-1] + b"\x00"  # one byte changed
    s3 = FakeS3({(WHERE.bucket, WHERE.key): other})
    with pytest.raises(BundleFetchError) as caught:
        fetch_s3(s3, WHERE, DIGEST, tmp_path)
    assert caught.value.code == DIGEST_MISMATCH
    assert hashlib.sha256(other).hexdigest() in caught.value.message
    assert DIGEST in caught.value.message
    assert _cache_files(tmp_path) == []


def test_a_missing_object_says_so(tmp_path: Path) -> None:
    with pytest.raises(BundleFetchError) as caught:
        fetch_s3(FakeS3({}), WHERE, DIGEST, tmp_path)
    assert caught.value.code == NOT_FOUND
    assert str(WHERE) in caught.value.message


def test_a_verified_copy_already_in_the_cache_is_not_downloaded_again(tmp_path: Path) -> None:
    s3 = FakeS3({(WHERE.bucket, WHERE.key): DATA})
    first = fetch_s3(s3, WHERE, DIGEST, tmp_path)
    again = fetch_s3(s3, WHERE, DIGEST, tmp_path)
    assert again == first
    assert s3.ranges == [None]  # one request in all


def test_a_corrupted_cached_copy_is_downloaded_again(tmp_path: Path) -> None:
    s3 = FakeS3({(WHERE.bucket, WHERE.key): DATA})
    path = fetch_s3(s3, WHERE, DIGEST, tmp_path)
    path.write_bytes(b"not the bundle")
    assert fetch_s3(s3, WHERE, DIGEST, tmp_path).read_bytes() == DATA
    assert s3.ranges == [None, None]


def test_a_stop_request_ends_the_download_and_leaves_nothing(tmp_path: Path) -> None:
    s3 = FakeS3({(WHERE.bucket, WHERE.key): DATA})
    reads = iter(range(100))
    with pytest.raises(BundleFetchError) as caught:
        fetch_s3(s3, WHERE, DIGEST, tmp_path, cancelled=lambda: next(reads) >= 2)
    assert caught.value.code == CANCELLED
    assert _cache_files(tmp_path) == []


def test_a_bundle_larger_than_the_free_space_is_refused_before_writing(tmp_path: Path) -> None:
    s3 = FakeS3({(WHERE.bucket, WHERE.key): DATA})
    s3.content_length = 1 << 62  # 4 EiB: more than any disk here has free
    with pytest.raises(BundleFetchError) as caught:
        fetch_s3(s3, WHERE, DIGEST, tmp_path)
    assert caught.value.code == NO_SPACE
    assert _cache_files(tmp_path) == []


def test_a_local_file_is_checked_against_the_pin(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle.gpkg"
    bundle.write_bytes(DATA)
    assert verify_local(bundle, DIGEST) == bundle
    with pytest.raises(BundleFetchError) as caught:
        verify_local(bundle, "0" * 64)
    assert caught.value.code == DIGEST_MISMATCH
    with pytest.raises(BundleFetchError) as missing:
        verify_local(tmp_path / "absent.gpkg", DIGEST)
    assert missing.value.code == NOT_FOUND
