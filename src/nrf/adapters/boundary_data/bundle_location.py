"""Where a bundle lives (a local path or ``s3://bucket/key``) and its pinned digest, parsed once."""

from __future__ import annotations

import re
from pathlib import Path

from attrs import frozen

S3_SCHEME = "s3://"
_HEX64 = re.compile(r"[0-9a-f]{64}")
# S3's bucket rules, loosely: lower case, digits, dots and hyphens, 3 to 63 characters.
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9]")


@frozen
class S3Location:
    """One object in S3: the bundle a deployment is pinned to."""

    bucket: str
    key: str

    def __str__(self) -> str:
        return f"{S3_SCHEME}{self.bucket}/{self.key}"

    @property
    def file_name(self) -> str:
        return self.key.rsplit("/", 1)[-1]


BundleLocation = Path | S3Location


def parse_s3_uri(text: str, *, prefix: bool = False) -> S3Location:
    """``s3://bucket/key``; with ``prefix`` the key may be empty or end in ``/`` (a folder).

    Raises ValueError with a sentence a person can act on.
    """
    if not text.startswith(S3_SCHEME):
        raise ValueError(f"must start with {S3_SCHEME}")
    bucket, _, key = text[len(S3_SCHEME) :].partition("/")
    if not _BUCKET.fullmatch(bucket):
        raise ValueError(f"{bucket!r} is not an S3 bucket name")
    if not prefix and (not key or key.endswith("/")):
        raise ValueError("must name one object (s3://bucket/key), not a bucket or a folder")
    return S3Location(bucket, key)


def parse_location(text: str) -> BundleLocation:
    """A bundle location from ``NRF_REFERENCE_DATA``: an S3 object or a local path."""
    text = text.strip()
    if text.startswith(S3_SCHEME):
        return parse_s3_uri(text)
    if "://" in text:
        raise ValueError("must be a local path or s3://bucket/key")
    return Path(text)


def parse_sha256(text: str) -> str:
    """A SHA-256 as 64 lower-case hex digits (upper case is accepted and lowered)."""
    digest = text.strip().lower()
    if not _HEX64.fullmatch(digest):
        raise ValueError("must be a SHA-256: 64 hexadecimal digits")
    return digest


def location_problems(reference_data: str | None, sha256: str | None) -> list[str]:
    """Configuration problems of the bundle pin, each naming its variable."""
    if reference_data is None:
        return []
    try:
        location = parse_location(reference_data)
    except ValueError as exc:
        return [f"NRF_REFERENCE_DATA={reference_data!r}: {exc}"]
    if isinstance(location, S3Location) and not sha256:
        return [
            "NRF_REFERENCE_DATA_SHA256 is required when NRF_REFERENCE_DATA is an S3 URI: "
            "the worker verifies what it downloads (`nrf bundle publish` prints both)"
        ]
    return []
