"""S3ResultStore: job results as objects under ``<prefix>/<job_id>/``, record last."""

from __future__ import annotations

import mimetypes
from collections.abc import Mapping
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from nrf.adapters.result_store.local_result_store import RECORD_NAME, check_file_names
from nrf.domain.claims import Lease, lease_from_json, lease_to_json, next_lease
from nrf.domain.jobs import (
    JobRecord,
    ResultStoreUnavailable,
    job_record_from_json,
    job_record_to_json,
    validate_job_id,
)

_MISSING = frozenset({"NoSuchKey", "404", "NotFound"})
# Another writer won a conditional put (412), or raced it on S3's side (409).
_LOST_RACE = frozenset({"PreconditionFailed", "412", "ConditionalRequestConflict", "409"})


class S3ResultStore:
    """One bucket and prefix; any S3 failure becomes ResultStoreUnavailable."""

    def __init__(self, client: Any, bucket: str, prefix: str = "") -> None:
        self._client = client
        self.bucket = bucket
        self.prefix = prefix.strip("/")

    def _key(self, job_id: str, name: str = "") -> str:
        folder = validate_job_id(job_id) + "/"
        return (f"{self.prefix}/{folder}" if self.prefix else folder) + name

    def record(self, job_id: str) -> JobRecord | None:
        key = self._key(job_id, RECORD_NAME)
        try:
            body = self._client.get_object(Bucket=self.bucket, Key=key)["Body"].read()
        except ClientError as exc:
            if str(exc.response.get("Error", {}).get("Code", "")) in _MISSING:
                return None
            raise _unavailable("GetObject", exc) from exc
        except BotoCoreError as exc:
            raise _unavailable("GetObject", exc) from exc
        try:
            return job_record_from_json(body)
        except ValueError as exc:
            raise ResultStoreUnavailable(f"{RECORD_NAME} is not a job record") from exc

    def save(self, job_id: str, files: Mapping[str, bytes], record: JobRecord) -> str:
        if record.job_id != validate_job_id(job_id):
            raise ValueError("the record belongs to another job")
        check_file_names(files)
        items = [*files.items(), (RECORD_NAME, job_record_to_json(record))]
        for name, data in items:  # the record is last, so it implies every file
            content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
            try:
                self._client.put_object(
                    Bucket=self.bucket,
                    Key=self._key(job_id, name),
                    Body=data,
                    ContentType=content_type,
                )
            except (ClientError, BotoCoreError) as exc:
                raise _unavailable("PutObject", exc) from exc
        return f"s3://{self.bucket}/{self._key(job_id)}"

    # -- claims: compare-and-swap with conditional writes --------------------------------

    def claim(self, job_id: str, owner: str, now: float, lease_seconds: float) -> Lease:
        """``If-None-Match: *`` creates the first claim; ``If-Match: <etag>`` replaces one.

        Both are atomic on S3, so of two racing workers exactly one write lands; the
        loser reads the claim again and sees the winner's lease.
        """
        for _ in range(5):
            current, etag = self._read_claim(job_id)
            lease = next_lease(current, job_id, owner, now, lease_seconds)
            if lease is None:
                assert current is not None
                return current
            if self._put_claim(job_id, lease, etag):
                return lease
        raise ResultStoreUnavailable("the claim kept changing under us")

    def release(self, job_id: str, owner: str, now: float) -> None:
        current, etag = self._read_claim(job_id)
        if current is not None and current.held_by(owner):
            self._put_claim(job_id, Lease(job_id=job_id, owner=owner, expires_at=now), etag)

    def sweep_temporaries(self, now: float, older_than: float) -> int:
        """Nothing to sweep: a PutObject lands whole or not at all."""
        return 0

    def _claim_key(self, job_id: str) -> str:
        name = f".claims/{validate_job_id(job_id)}.json"
        return f"{self.prefix}/{name}" if self.prefix else name

    def _read_claim(self, job_id: str) -> tuple[Lease | None, str | None]:
        try:
            answer = self._client.get_object(Bucket=self.bucket, Key=self._claim_key(job_id))
            data, etag = answer["Body"].read(), str(answer["ETag"])
        except ClientError as exc:
            if str(exc.response.get("Error", {}).get("Code", "")) in _MISSING:
                return None, None
            raise _unavailable("GetObject", exc) from exc
        except BotoCoreError as exc:
            raise _unavailable("GetObject", exc) from exc
        try:
            return lease_from_json(data), etag
        except ValueError:
            return Lease(
                job_id=job_id, owner="", expires_at=0.0
            ), etag  # unreadable: free, but not a first claim

    def _put_claim(self, job_id: str, lease: Lease, etag: str | None) -> bool:
        condition = {"IfMatch": etag} if etag else {"IfNoneMatch": "*"}
        try:
            self._client.put_object(
                Bucket=self.bucket,
                Key=self._claim_key(job_id),
                Body=lease_to_json(lease),
                ContentType="application/json",
                **condition,
            )
        except ClientError as exc:
            if str(exc.response.get("Error", {}).get("Code", "")) in _LOST_RACE:
                return False
            raise _unavailable("PutObject", exc) from exc
        except BotoCoreError as exc:
            raise _unavailable("PutObject", exc) from exc
        return True


def _unavailable(operation: str, exc: Exception) -> ResultStoreUnavailable:
    if isinstance(exc, ClientError):
        code = exc.response.get("Error", {}).get("Code", "unknown")
        return ResultStoreUnavailable(f"S3 {operation} failed with {code}")
    return ResultStoreUnavailable(f"S3 {operation} failed: {type(exc).__name__}")
