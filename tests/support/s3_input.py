"""A job whose boundary is an object in S3, and an S3 client holding just that object."""

from __future__ import annotations

import io

from nrf.domain.job_request import JobRequest


class OneObject:
    """An S3 client holding one object, as the worker's boundary source reads it."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def get_object(self, Bucket: str, Key: str) -> dict[str, object]:
        return {"ContentLength": len(self._data), "Body": io.BytesIO(self._data)}


def uri_job(name: str) -> JobRequest:
    """A job of three dwellings whose boundary is ``s3://nrf-in/jobs/<name>``."""
    return JobRequest(
        job_id="j",
        development_name="d",
        dwellings=3,
        dwelling_category="housing",
        source="",
        boundary=None,
        boundary_uri=f"s3://nrf-in/jobs/{name}",
        rules=None,
        email=None,
        trace_id=None,
        schema="nrf-job/1",
    )
