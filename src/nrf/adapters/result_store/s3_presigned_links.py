"""S3PresignedLinks: presigned GET URLs to a job's stored objects, for an email to carry.

A presigned URL works for as long as ``seconds`` (at most SigV4's seven days) only if the
credentials that signed it live that long: one signed with a role's temporary credentials
dies with the role's session (hours on ECS). The shipped deployment therefore signs with a
dedicated access key allowed nothing but ``s3:GetObject`` on the results prefix
(docs/deploy.md); presigning is local arithmetic, so making the links costs no request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nrf.domain.jobs import validate_job_id
from nrf.domain.result_links import SIGV4_MAX_SECONDS, ResultLinks


class S3PresignedLinks:
    """Links under ``s3://<bucket>/<prefix>/<job_id>/``, each valid for ``seconds``."""

    def __init__(self, client: Any, bucket: str, prefix: str, seconds: int) -> None:
        if not 1 <= seconds <= SIGV4_MAX_SECONDS:
            raise ValueError(f"a presigned URL lives 1 to {SIGV4_MAX_SECONDS} seconds")
        self._client, self._bucket = client, bucket
        self._prefix, self._seconds = prefix.strip("/"), seconds

    def links(self, job_id: str, names: Sequence[str], now: float) -> ResultLinks:
        folder = validate_job_id(job_id) + "/"
        base = f"{self._prefix}/{folder}" if self._prefix else folder
        files = tuple(
            (
                name,
                self._client.generate_presigned_url(
                    "get_object",
                    Params={"Bucket": self._bucket, "Key": base + validate_job_id(name)},
                    ExpiresIn=self._seconds,
                ),
            )
            for name in names
        )
        return ResultLinks(files=files, expires_at=now + self._seconds)
