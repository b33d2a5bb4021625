"""`nrf bundle publish`: put a bundle in S3 under a key that is never written twice.

The key is made of the bundle's name and version, and the upload is conditional
(``If-None-Match: *``), so a published version can never be replaced: a deployment pinned to
it (URI + SHA-256) gets exactly those bytes for as long as the object exists, and rolling back
is deploying the previous pin.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from attrs import frozen
from botocore.exceptions import BotoCoreError, ClientError

from nrf.adapters.boundary_data.bundle_digest import sha256_of
from nrf.adapters.boundary_data.bundle_identity import bundle_identity
from nrf.adapters.boundary_data.bundle_location import S3Location, parse_s3_uri
from nrf.bundles.qc.report import PASSED
from nrf.domain.errors import BrokenBundle, NrfError
from nrf.domain.model import BundleInfo

ALREADY_PUBLISHED = "bundle_already_published"
NOT_CHECKED = "bundle_not_checked"
PUBLISH_FAILED = "bundle_publish_failed"
UNVERSIONED = "bundle_unversioned"
BAD_DESTINATION = "bad_destination"
PART_BYTES = 64 << 20  # S3 allows 10,000 parts: 640 GB, far beyond any bundle
_LOST_RACE = frozenset({"PreconditionFailed", "412", "ConditionalRequestConflict", "409"})
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")

Progress = Callable[[int, int], None]


@frozen
class Published:
    """Where a bundle went, and the pin a deployment uses to get exactly it."""

    location: S3Location
    info: BundleInfo

    def pin(self) -> dict[str, str]:
        return {
            "NRF_REFERENCE_DATA": str(self.location),
            "NRF_REFERENCE_DATA_SHA256": self.info.sha256,
        }


def _safe(text: str) -> str:
    return _UNSAFE.sub("-", text).strip("-.") or "bundle"


def bundle_key(prefix: str, info: BundleInfo) -> str:
    """``<prefix>/<name>/<version>/<name>-<version>.gpkg``: one key per name and version."""
    name, version = _safe(info.name), _safe(info.version)
    folder = prefix.strip("/")
    return (f"{folder}/" if folder else "") + f"{name}/{version}/{name}-{version}.gpkg"


# Long: check, hash, upload and verify in one place, so a half-published bundle cannot be.
def publish_bundle(
    client: Any,
    bundle: Path,
    destination: str,
    progress: Progress = lambda done, total: None,
    *,
    allow_unchecked: bool = False,
) -> Published:
    """Upload ``bundle`` below ``destination`` (``s3://bucket/prefix/``) unless that key exists.

    Only a bundle whose build passed the quality gate is published, unless ``allow_unchecked``
    (test and synthetic bundles): a pin is what production quotes from.
    """
    try:
        where = parse_s3_uri(destination, prefix=True)
    except ValueError as exc:
        raise NrfError(BAD_DESTINATION, f"{destination!r} {exc}") from None
    if not bundle.is_file():
        raise BrokenBundle(f"bundle file not found: {bundle}")
    info = bundle_identity(bundle, sha256_of(bundle))
    if not info.version:
        raise NrfError(UNVERSIONED, f"{bundle} has no version in bundle_info: build it with one")
    outcome = gate_outcome(bundle)
    if outcome != PASSED and not allow_unchecked:
        raise NrfError(
            NOT_CHECKED,
            f"{bundle} has not passed the quality gate (bundle_info.qc_outcome is "
            f"{outcome or 'empty'}): build it with `nrf bundle build`, or add --allow-unchecked "
            "to publish a test or synthetic bundle",
        )
    target = S3Location(where.bucket, bundle_key(where.key, info))
    existing = _existing_sha256(client, target)
    if existing is not None:
        same = "the same bytes" if existing == info.sha256 else f"SHA-256 {existing or 'unknown'}"
        raise NrfError(
            ALREADY_PUBLISHED,
            f"{target} already exists ({same}); a published version is never replaced: "
            "build the bundle with a new version",
        )
    metadata = {
        "sha256": info.sha256,
        "bundle-name": _safe(info.name),
        "bundle-version": _safe(info.version),
    }
    size = bundle.stat().st_size
    try:
        with bundle.open("rb") as source:
            if size <= PART_BYTES:
                client.put_object(
                    Bucket=target.bucket,
                    Key=target.key,
                    Body=source,
                    Metadata=metadata,
                    IfNoneMatch="*",
                )
                progress(size, size)
            else:
                _multipart(client, target, source, size, metadata, progress)
    except ClientError as exc:
        code = str(exc.response.get("Error", {}).get("Code", ""))
        if code in _LOST_RACE:  # someone published this key between our check and our put
            raise NrfError(ALREADY_PUBLISHED, f"{target} was published meanwhile") from None
        raise NrfError(PUBLISH_FAILED, f"cannot write {target}: {code or exc}") from None
    except BotoCoreError as exc:
        raise NrfError(PUBLISH_FAILED, f"cannot write {target}: {exc}") from None
    return Published(target, info)


def gate_outcome(bundle: Path) -> str | None:
    """``bundle_info.qc_outcome`` as `nrf bundle build` wrote it; None for bundles without one."""
    try:
        with contextlib.closing(
            sqlite3.connect(f"{bundle.resolve().as_uri()}?mode=ro", uri=True)
        ) as db:
            row = db.execute("SELECT qc_outcome FROM bundle_info").fetchone()
    except sqlite3.Error:  # no such column: built before the gate, or not by `nrf bundle build`
        return None
    return str(row[0]) if row and row[0] is not None else None


def _existing_sha256(client: Any, target: S3Location) -> str | None:
    """None when the key is free; else the object's recorded digest ('' if it has none)."""
    try:
        head = client.head_object(Bucket=target.bucket, Key=target.key)
    except ClientError as exc:
        if str(exc.response.get("Error", {}).get("Code", "")) in {"404", "NoSuchKey", "NotFound"}:
            return None
        raise NrfError(PUBLISH_FAILED, f"cannot check {target}: {exc}") from None
    except BotoCoreError as exc:
        raise NrfError(PUBLISH_FAILED, f"cannot check {target}: {exc}") from None
    return str(head.get("Metadata", {}).get("sha256", ""))


def _multipart(
    client: Any,
    target: S3Location,
    source: BinaryIO,
    size: int,
    metadata: dict[str, str],
    progress: Progress,
) -> None:
    """Upload in parts; only the final, conditional CompleteMultipartUpload makes it visible."""
    upload = client.create_multipart_upload(
        Bucket=target.bucket, Key=target.key, Metadata=metadata
    )["UploadId"]
    try:
        parts: list[dict[str, Any]] = []
        done = 0
        while chunk := source.read(PART_BYTES):
            number = len(parts) + 1
            etag = client.upload_part(
                Bucket=target.bucket, Key=target.key, UploadId=upload, PartNumber=number, Body=chunk
            )["ETag"]
            parts.append({"PartNumber": number, "ETag": etag})
            done += len(chunk)
            progress(done, size)
        client.complete_multipart_upload(
            Bucket=target.bucket,
            Key=target.key,
            UploadId=upload,
            MultipartUpload={"Parts": parts},
            IfNoneMatch="*",
        )
    except BaseException:
        # Parts of an unfinished upload are billed until aborted; the first error is the news.
        with contextlib.suppress(ClientError, BotoCoreError):
            client.abort_multipart_upload(Bucket=target.bucket, Key=target.key, UploadId=upload)
        raise
