"""ResultFiles over the local folder and the S3 bucket the worker's result stores write."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from nrf.adapters.result_store.local_result_store import LocalResultStore, check_file_names
from nrf.adapters.result_store.s3_result_store import S3ResultStore
from nrf.domain.jobs import ResultStoreUnavailable, validate_job_id

_MISSING = frozenset({"NoSuchKey", "404", "NotFound"})


class LocalResultFiles:
    """``<root>/<job_id>/<name>``; names follow the store's own rule, so none can escape."""

    def __init__(self, store: LocalResultStore) -> None:
        self._root = store.root

    def read(self, job_id: str, name: str) -> bytes | None:
        check_file_names({name: b""})
        path = self._root / validate_job_id(job_id) / name
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ResultStoreUnavailable(f"cannot read {name}: {exc.strerror}") from exc


class S3ResultFiles:
    """``s3://<bucket>/<prefix>/<job_id>/<name>``, the keys S3ResultStore writes."""

    def __init__(self, store: S3ResultStore, client: Any) -> None:
        self._store, self._client = store, client

    def read(self, job_id: str, name: str) -> bytes | None:
        check_file_names({name: b""})
        folder = f"{validate_job_id(job_id)}/{name}"
        key = f"{self._store.prefix}/{folder}" if self._store.prefix else folder
        try:
            body: bytes = self._client.get_object(Bucket=self._store.bucket, Key=key)["Body"].read()
        except ClientError as exc:
            if str(exc.response.get("Error", {}).get("Code", "")) in _MISSING:
                return None
            raise ResultStoreUnavailable(f"S3 GetObject failed for {name}") from exc
        except BotoCoreError as exc:
            raise ResultStoreUnavailable(f"S3 GetObject failed for {name}") from exc
        return body
