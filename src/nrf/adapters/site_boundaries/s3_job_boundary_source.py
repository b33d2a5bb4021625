"""S3JobBoundarySource: a job's boundary from the message itself or from the input bucket."""

from __future__ import annotations

import posixpath
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes
from nrf.adapters.site_boundaries.boundary_geojson import features_from_geojson
from nrf.domain.errors import InvalidInput, NrfError, Problem
from nrf.domain.job_request import JobRequest, allowed_uri
from nrf.domain.validation import DEFAULT_LIMITS, InputLimits, RawFeature

_MISSING = {"NoSuchKey", "404", "NotFound"}


class S3JobBoundarySource:
    """Reads inline GeoJSON, or an object inside the one configured bucket and prefix."""

    def __init__(
        self,
        client: Any | None,
        bucket: str | None,
        prefix: str = "",
        limits: InputLimits = DEFAULT_LIMITS,
    ) -> None:
        self._client, self._bucket, self._prefix, self._limits = client, bucket, prefix, limits

    def features(self, request: JobRequest) -> list[RawFeature]:
        if request.boundary is not None:
            return features_from_geojson(request.boundary, self._limits)
        uri = request.boundary_uri or ""
        where = allowed_uri(uri, self._bucket, self._prefix) if self._bucket else None
        if where is None or self._client is None:
            raise InvalidInput(
                [
                    Problem(
                        code="boundary_uri_not_allowed",
                        message=(
                            "boundary_uri must be inside the bucket and prefix"
                            " this worker is configured for"
                        ),
                        field="boundary_uri",
                    )
                ]
            )
        bucket, key = where
        data = self._fetch(bucket, key)
        return read_boundary_bytes(data, posixpath.basename(key), self._limits)

    def _fetch(self, bucket: str, key: str) -> bytes:
        limit = self._limits.max_file_bytes
        client = self._client
        assert client is not None
        try:
            response = client.get_object(Bucket=bucket, Key=key)
            size = int(response.get("ContentLength") or 0)
            if size > limit:
                raise InvalidInput(
                    [
                        Problem(
                            code="file_too_large",
                            message=f"the boundary object is {size:,} bytes; at most {limit:,}",
                            field="boundary_uri",
                        )
                    ]
                )
            # Read one byte past the limit so a lying Content-Length cannot get more in.
            data: bytes = response["Body"].read(limit + 1)
        except ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            if code in _MISSING:
                raise InvalidInput(
                    [
                        Problem(
                            code="boundary_not_found",
                            message="no object at boundary_uri",
                            field="boundary_uri",
                        )
                    ]
                ) from None
            raise NrfError("input_store_unavailable", f"S3 get_object failed with {code}") from None
        except BotoCoreError as exc:
            raise NrfError("input_store_unavailable", type(exc).__name__) from None
        if len(data) > limit:
            raise InvalidInput(
                [
                    Problem(
                        code="file_too_large",
                        message=f"the boundary object is over {limit:,} bytes",
                        field="boundary_uri",
                    )
                ]
            )
        return data
