"""S3StoreInventory: list and delete job objects, claims and abandoned uploads in S3."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from nrf.adapters.result_store.local_result_store import RECORD_NAME
from nrf.domain.claims import Lease, lease_from_json
from nrf.domain.jobs import ResultStoreUnavailable
from nrf.domain.ops_ports import StoredClaim, StoredJob

_CLAIMS = ".claims/"
# A conditional delete that lost: the claim was rewritten (412, or 409 while it was being
# written) or is already gone (404): either way it is not this run's to delete.
_CHANGED_OR_GONE = {"PreconditionFailed", "412", "ConditionalRequestConflict", "409"}
_CHANGED_OR_GONE |= {"NoSuchKey", "404"}
_UPLOAD_GONE = {"NoSuchUpload", "404"}


class S3StoreInventory:
    """The layout of S3ResultStore: ``<prefix>/<job_id>/…`` and ``<prefix>/.claims/…``."""

    def __init__(self, client: Any, bucket: str, prefix: str = "") -> None:
        self._client = client
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self._base = f"{self.prefix}/" if self.prefix else ""

    def jobs(self) -> Iterator[StoredJob]:
        found: dict[str, list[float | None]] = {}  # job id -> [record time, newest time]
        for key, modified in self._objects(self._base):
            job_id, _, name = key[len(self._base) :].partition("/")
            if job_id.startswith(".") or not name:
                continue
            times = found.setdefault(job_id, [None, 0.0])
            if name == RECORD_NAME:
                times[0] = modified
            times[1] = max(times[1] or 0.0, modified)
        for job_id, (record, newest) in sorted(found.items()):
            yield StoredJob(job_id, record, newest or 0.0)

    def delete_job(self, job_id: str) -> int:
        folder = f"{self._base}{job_id}/"
        keys = [key for key, _ in self._objects(folder)]
        record = folder + RECORD_NAME
        ordered = [k for k in keys if k == record] + [k for k in keys if k != record]
        for key in ordered:  # the record first: half-deleted never looks finished
            self._call("DeleteObject", self._client.delete_object, Bucket=self.bucket, Key=key)
        return len(ordered)

    def claims(self) -> Iterator[StoredClaim]:
        for key, modified in self._objects(self._base + _CLAIMS):
            name = key[len(self._base + _CLAIMS) :]
            if not name.endswith(".json"):
                continue
            lease, _ = self._lease(key, name[: -len(".json")])
            if lease is not None:
                yield StoredClaim(lease, modified)

    def delete_claim(self, job_id: str, expired_before: float) -> bool:
        key = f"{self._base}{_CLAIMS}{job_id}.json"
        lease, etag = self._lease(key, job_id)
        if lease is None or lease.expires_at >= expired_before:
            return False
        try:
            # Only the claim just read: one a worker has taken since has another ETag (412).
            self._client.delete_object(Bucket=self.bucket, Key=key, IfMatch=etag)
        except ClientError as exc:
            if _code(exc) in _CHANGED_OR_GONE:
                return False
            raise ResultStoreUnavailable(f"S3 DeleteObject failed: {exc}") from exc
        except BotoCoreError as exc:
            raise ResultStoreUnavailable(f"S3 DeleteObject failed: {exc}") from exc
        return True

    def temp_files(self, older_than: float) -> list[str]:
        # S3 writes are whole or nothing; only multipart uploads can be left half-done.
        answer = self._call(
            "ListMultipartUploads",
            self._client.list_multipart_uploads,
            Bucket=self.bucket,
            Prefix=self._base,
        )
        return sorted(
            f"{u['Key']}?uploadId={u['UploadId']}"
            for u in answer.get("Uploads", [])
            if u["Initiated"].timestamp() < older_than
        )

    def delete_temp(self, name: str) -> None:
        key, _, upload_id = name.partition("?uploadId=")
        try:
            self._client.abort_multipart_upload(Bucket=self.bucket, Key=key, UploadId=upload_id)
        except ClientError as exc:
            # Another run aborted it first (or it completed): the upload is gone either way.
            if _code(exc) in _UPLOAD_GONE:
                return
            raise ResultStoreUnavailable(f"S3 AbortMultipartUpload failed: {exc}") from exc
        except BotoCoreError as exc:
            raise ResultStoreUnavailable(f"S3 AbortMultipartUpload failed: {exc}") from exc

    def _objects(self, prefix: str) -> Iterator[tuple[str, float]]:
        try:
            pages = self._client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix
            )
            for page in pages:
                for item in page.get("Contents", []):
                    yield item["Key"], item["LastModified"].timestamp()
        except (ClientError, BotoCoreError) as exc:
            raise ResultStoreUnavailable(f"S3 ListObjectsV2 failed: {exc}") from exc

    def _lease(self, key: str, job_id: str) -> tuple[Lease | None, str]:
        """The claim and its ETag; (None, "") when there is none."""
        try:
            answer = self._client.get_object(Bucket=self.bucket, Key=key)
            data = answer["Body"].read()
        except ClientError as exc:
            if _code(exc) in {"NoSuchKey", "404"}:
                return None, ""
            raise ResultStoreUnavailable(f"S3 GetObject failed: {exc}") from exc
        etag = str(answer.get("ETag", ""))
        try:
            return lease_from_json(data), etag
        except ValueError:
            return Lease(job_id=job_id, owner="", expires_at=0.0), etag

    def _call(self, operation: str, call: Any, **kwargs: Any) -> Any:
        try:
            return call(**kwargs)
        except (ClientError, BotoCoreError) as exc:
            raise ResultStoreUnavailable(f"S3 {operation} failed: {exc}") from exc


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))
