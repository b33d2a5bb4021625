"""Our canonical job message (schema nrf-job/1): a job id, a development and one boundary."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nrf.adapters.job_queue.message_fields import (
    InvalidJobMessage,
    dwellings_field,
    email_field,
    text_field,
)
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.job_request import S3_URI, JobRequest
from nrf.domain.jobs import validate_job_id
from nrf.domain.trace_id import header_safe


# Long: one parse step per field of the canonical message, each with its own error.
def canonical_request(data: Mapping[str, Any]) -> JobRequest:
    problems: list[Problem] = []
    job_id = text_field(data, "job_id", problems, required=True)
    if job_id is not None:
        try:
            validate_job_id(job_id)
        except InvalidInput as exc:
            problems.extend(exc.problems)
            job_id = None
    kind = data.get("assessment_type", "nutrient")
    if kind != "nutrient":
        problems.append(
            Problem(
                code="unsupported_assessment_type",
                message=f"assessment_type {kind!r} is not supported; use 'nutrient'",
                field="assessment_type",
            )
        )
    development = data.get("development")
    if not isinstance(development, dict):
        problems.append(
            Problem(
                code="missing_field",
                message="development (an object) is required",
                field="development",
            )
        )
        development = {}
    name = text_field(development, "name", problems, required=False) or ""
    category = text_field(development, "dwelling_category", problems, required=True) or ""
    dwellings = dwellings_field(development.get("dwellings"), "development.dwellings", problems)
    boundary, uri = data.get("boundary"), data.get("boundary_uri")
    if (boundary is None) == (uri is None):
        problems.append(
            Problem(
                code="missing_field",
                message="give exactly one of boundary or boundary_uri",
                field="boundary",
            )
        )
    if boundary is not None and not isinstance(boundary, dict):
        problems.append(
            Problem(
                code="invalid_field", message="boundary must be a GeoJSON object", field="boundary"
            )
        )
    if uri is not None and (not isinstance(uri, str) or not S3_URI.fullmatch(uri)):
        problems.append(
            Problem(
                code="invalid_boundary_uri",
                message="boundary_uri must be s3://bucket/key",
                field="boundary_uri",
            )
        )
    rules = text_field(data, "rules", problems, required=False)
    email = email_field(text_field(data, "email", problems, required=False), problems)
    trace = text_field(data, "trace_id", problems, required=False)
    trace = None if trace is None else header_safe(trace)
    if problems:
        raise InvalidJobMessage(problems, job_id, email, trace)
    assert job_id is not None
    return JobRequest(
        job_id=job_id,
        development_name=name,
        dwellings=dwellings,
        dwelling_category=category,
        source="queue",
        boundary=boundary,
        boundary_uri=uri,
        rules=rules,
        email=email,
        trace_id=trace,
        schema="nrf-job/1",
    )
