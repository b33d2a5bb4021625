"""S3OpsRecords: heartbeat, stall and notice records as objects under the results prefix."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from nrf.adapters.result_store.local_ops_records import check_key
from nrf.domain.jobs import ResultStoreUnavailable

_MISSING = frozenset({"NoSuchKey", "404", "NotFound"})
_TAKEN = frozenset({"PreconditionFailed", "412", "ConditionalRequestConflict", "409"})


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


class S3OpsRecords:
    """``<prefix>/.<folder>/<name>``; ``put_new`` is ``PutObject If-None-Match: *``."""

    def __init__(self, client: Any, bucket: str, prefix: str = "") -> None:
        self._client = client
        self.bucket = bucket
        self.prefix = prefix.strip("/")

    def _key(self, key: str) -> str:
        return f"{self.prefix}/{check_key(key)}" if self.prefix else check_key(key)

    def put(self, key: str, data: bytes) -> None:
        self._put(key, data, {})

    def put_new(self, key: str, data: bytes) -> bool:
        return self._put(key, data, {"IfNoneMatch": "*"})

    def _put(self, key: str, data: bytes, condition: dict[str, str]) -> bool:
        try:
            self._client.put_object(
                Bucket=self.bucket,
                Key=self._key(key),
                Body=data,
                ContentType="application/json",
                **condition,
            )
        except ClientError as exc:
            if condition and _code(exc) in _TAKEN:
                return False
            raise ResultStoreUnavailable(f"S3 PutObject failed with {_code(exc)}") from exc
        except BotoCoreError as exc:
            raise ResultStoreUnavailable(f"S3 PutObject failed: {type(exc).__name__}") from exc
        return True

    def get(self, key: str) -> bytes | None:
        try:
            body: bytes = self._client.get_object(Bucket=self.bucket, Key=self._key(key))[
                "Body"
            ].read()
        except ClientError as exc:
            if _code(exc) in _MISSING:
                return None
            raise ResultStoreUnavailable(f"S3 GetObject failed with {_code(exc)}") from exc
        except BotoCoreError as exc:
            raise ResultStoreUnavailable(f"S3 GetObject failed: {type(exc).__name__}") from exc
        return body

    def delete(self, key: str) -> None:
        try:
            self._client.delete_object(Bucket=self.bucket, Key=self._key(key))
        except (ClientError, BotoCoreError) as exc:
            raise ResultStoreUnavailable(f"S3 DeleteObject failed: {exc}") from exc

    def keys(self, folder: str) -> list[str]:
        base = f"{self.prefix}/{folder}/" if self.prefix else f"{folder}/"
        found: list[str] = []
        try:
            pages = self._client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=base, Delimiter="/"
            )
            for page in pages:
                found += [item["Key"][len(base) :] for item in page.get("Contents", [])]
        except (ClientError, BotoCoreError) as exc:
            raise ResultStoreUnavailable(f"S3 ListObjectsV2 failed: {exc}") from exc
        return [f"{folder}/{name}" for name in sorted(found) if name]
