"""S3ResultStore: job results as objects under ``<prefix>/<job_id>/``, record last."""

from __future__ import annotations

import mimetypes
from collections.abc import Mapping
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from nrf.adapters.local_result_store import RECORD_NAME, check_file_names
from nrf.domain.jobs import (
    JobRecord,
    ResultStoreUnavailable,
    job_record_from_json,
    job_record_to_json,
    validate_job_id,
)

_MISSING = frozenset({"NoSuchKey", "404", "NotFound"})


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


def _unavailable(operation: str, exc: Exception) -> ResultStoreUnavailable:
    if isinstance(exc, ClientError):
        code = exc.response.get("Error", {}).get("Code", "unknown")
        return ResultStoreUnavailable(f"S3 {operation} failed with {code}")
    return ResultStoreUnavailable(f"S3 {operation} failed: {type(exc).__name__}")
