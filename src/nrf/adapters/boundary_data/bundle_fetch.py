"""A pinned bundle as a verified local file: streamed from S3, hashed, renamed only if it matches.

Nothing is opened before its SHA-256 equals the pin, so a worker never quotes from a bundle
other than the one it was deployed with; a half-downloaded or corrupted file never takes the
final name, so a crash mid-download leaves nothing that looks usable.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

# sha256_of hashes in full: a start-up check must not trust a cache (the sidecar).
from nrf.adapters.boundary_data.bundle_digest import remember, sha256_of
from nrf.adapters.boundary_data.bundle_location import S3Location
from nrf.domain.errors import NrfError

log = logging.getLogger("nrf.bundle")

DIGEST_MISMATCH = "reference_data_digest_mismatch"
DOWNLOAD_FAILED = "reference_data_download_failed"
NOT_FOUND = "reference_data_not_found"
NO_SPACE = "reference_data_no_space"
CANCELLED = "reference_data_download_cancelled"

CHUNK_BYTES = 8 << 20
MAX_ATTEMPTS = 5
_MISSING = frozenset({"NoSuchKey", "404", "NotFound", "NoSuchBucket"})
# A connection cut mid-body: resumed with a Range request from the last byte written.
_TRANSIENT = (BotoCoreError, ConnectionError, TimeoutError, http.client.HTTPException)

Progress = Callable[[int, "int | None"], None]


class BundleFetchError(NrfError):
    """The pinned bundle could not be had, or was not the one pinned."""


def verify_local(path: Path, sha256: str) -> Path:
    """``path`` when its content hashes to ``sha256``; BundleFetchError otherwise."""
    if not path.is_file():
        raise BundleFetchError(NOT_FOUND, f"bundle file not found: {path}")
    actual = sha256_of(path)
    if actual != sha256:
        raise BundleFetchError(
            DIGEST_MISMATCH,
            f"{path} has SHA-256 {actual}, but NRF_REFERENCE_DATA_SHA256 pins {sha256}: "
            "refusing to use a bundle other than the pinned one",
        )
    remember(path, actual)
    return path


def fetch_s3(
    client: Any,
    location: S3Location,
    sha256: str,
    cache_dir: Path,
    progress: Progress = lambda done, total: None,
    cancelled: Callable[[], bool] = lambda: False,
    sleep: Callable[[float], None] = time.sleep,
) -> Path:
    """Download ``location`` into ``cache_dir`` (named by its digest) unless already there."""
    target = cache_dir / f"{sha256}-{location.file_name}"
    if target.is_file():
        if sha256_of(target) == sha256:
            log.info("reference_data_cached", extra={"path": str(target)})
            remember(target, sha256)
            return target
        log.warning("reference_data_cache_corrupt", extra={"path": str(target)})
        target.unlink()
    cache_dir.mkdir(parents=True, exist_ok=True)
    fd, part = tempfile.mkstemp(dir=cache_dir, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            actual = _stream(client, location, out, cache_dir, progress, cancelled, sleep)
            out.flush()
            os.fsync(out.fileno())
        if actual != sha256:
            raise BundleFetchError(
                DIGEST_MISMATCH,
                f"{location} has SHA-256 {actual}, but NRF_REFERENCE_DATA_SHA256 pins {sha256}: "
                "refusing to use a bundle other than the pinned one (was it replaced, or is "
                "the pin wrong?)",
            )
        os.replace(part, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(part)
    remember(target, sha256)
    return target


def _stream(
    client: Any,
    location: S3Location,
    out: Any,
    cache_dir: Path,
    progress: Progress,
    cancelled: Callable[[], bool],
    sleep: Callable[[float], None],
) -> str:
    """Write the object to ``out``, resuming after a dropped connection; returns its digest."""
    digest, done, total, failures = hashlib.sha256(), 0, None, 0
    while True:
        ranged = {"Range": f"bytes={done}-"} if done else {}
        try:
            response = client.get_object(Bucket=location.bucket, Key=location.key, **ranged)
            if not done:
                total = int(response.get("ContentLength", 0)) or None
                _check_space(cache_dir, total)
            elif not str(response.get("ContentRange", "")).startswith(f"bytes {done}-"):
                # The range was not honoured: start again rather than append the wrong bytes.
                out.seek(0)
                out.truncate()
                digest, done = hashlib.sha256(), 0
                continue
            body = response["Body"]
            while chunk := body.read(CHUNK_BYTES):
                if cancelled():
                    raise BundleFetchError(CANCELLED, "the download was stopped")
                out.write(chunk)
                digest.update(chunk)
                done += len(chunk)
                progress(done, total)
        except ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            kind = NOT_FOUND if code in _MISSING else DOWNLOAD_FAILED
            raise BundleFetchError(kind, f"cannot read {location}: {code or exc}") from None
        except _TRANSIENT as exc:
            failures += 1
            if failures >= MAX_ATTEMPTS:
                raise BundleFetchError(
                    DOWNLOAD_FAILED,
                    f"{location}: {failures} attempts failed, the last with {exc!r}",
                ) from None
            log.warning(
                "reference_data_download_retry",
                extra={"bytes_done": done, "attempt": failures, "error": repr(exc)},
            )
            sleep(2.0 ** (failures - 1))  # 1, 2, 4, 8 s: room for a blip to pass
            continue
        if total is None or done >= total:
            return digest.hexdigest()
        failures += 1  # the body ended early: resume from where it stopped
        if failures >= MAX_ATTEMPTS:
            raise BundleFetchError(DOWNLOAD_FAILED, f"{location}: ended at {done} of {total} bytes")


def _check_space(cache_dir: Path, total: int | None) -> None:
    free = shutil.disk_usage(cache_dir).free
    if total is not None and free < total:
        raise BundleFetchError(
            NO_SPACE,
            f"{cache_dir} has {free} bytes free but the bundle is {total} bytes: give the task "
            "more ephemeral storage or point NRF_REFERENCE_DATA_CACHE elsewhere",
        )
