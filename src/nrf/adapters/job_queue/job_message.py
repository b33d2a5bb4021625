"""Read a queue message once, at the edge: our canonical schema, Defra's quote, an SNS envelope.

Everything after this works on the values in ``nrf.domain.job_request``; no other module
looks inside a message body. Over 200 lines: the two schemas' field rules belong together.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from typing import Any

from nrf.domain.email_address import is_valid_email
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.job_request import (
    MAX_DWELLINGS,
    S3_URI,
    Delivery,
    IncomingJob,
    JobRequest,
    RejectedJob,
)
from nrf.domain.jobs import QueueMessage, validate_job_id

MAX_BODY_BYTES = 256 * 1024
MAX_JSON_DEPTH = 64
_DEFRA_REFERENCE = re.compile(r"NRF-\d{6}")
BNG = {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::27700"}}


def claim_owner(message: QueueMessage) -> str:
    """The claim owner for one receive of a message: ``<message id>/<receipt digest>``.

    A new receive (a new receipt handle) is a new owner, so a redelivery after a crash
    must wait for the old lease to run out or be released.
    """
    digest = hashlib.sha256(message.receipt_handle.encode()).hexdigest()[:16]
    return f"{message.message_id}/{digest}"


def read_job(message: QueueMessage) -> IncomingJob:
    """The one place a message is read: its request (or why it is refused) and delivery facts."""
    delivery = Delivery(
        message_id=message.message_id,
        receive_count=message.receive_count,
        claim_owner=claim_owner(message),
        body_bytes=len(message.body.encode("utf-8", "surrogatepass")),
    )
    try:
        request = parse_job_message(message.body)
    except InvalidJobMessage as exc:
        rejected = RejectedJob(
            job_id=exc.job_id or f"message-{message.message_id}",
            email=exc.email,
            trace_id=exc.trace_id,
            problems=exc.problems,
        )
        return IncomingJob(message=message, delivery=delivery, rejected=rejected)
    return IncomingJob(message=message, delivery=delivery, request=request)


class InvalidJobMessage(InvalidInput):
    """A message that can never succeed; carries whatever identity could be recovered."""

    def __init__(
        self,
        problems: list[Problem],
        job_id: str | None = None,
        email: str | None = None,
        trace_id: str | None = None,
    ) -> None:
        super().__init__(problems)
        self.job_id = job_id
        self.email = email
        self.trace_id = trace_id


def _depth_ok(value: object, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return False
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return True


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not allowed in JSON")


def _loads(text: str, what: str) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        problem = Problem(code="message_not_json", message=f"{what} is not valid JSON: {exc}")
        raise InvalidJobMessage([problem]) from None


def parse_job_message(body: str | bytes, max_bytes: int = MAX_BODY_BYTES) -> JobRequest:
    """Parse and validate a message body; raises InvalidJobMessage with every problem found."""
    raw = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    if len(raw) > max_bytes:
        raise InvalidJobMessage(
            [
                Problem(
                    code="message_too_large",
                    message=f"the body is {len(raw)} bytes; the limit is {max_bytes}",
                )
            ]
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidJobMessage(
            [Problem(code="message_not_json", message="the body is not UTF-8 text")]
        ) from None
    data = _loads(text, "the body")
    if isinstance(data, dict) and data.get("Type") == "Notification" and "Message" in data:
        inner = data["Message"]
        if not isinstance(inner, str):
            raise InvalidJobMessage(
                [Problem(code="message_not_json", message="the SNS Message is not a string")]
            )
        data = _loads(inner, "the SNS Message")
    if not _depth_ok(data, MAX_JSON_DEPTH):
        raise InvalidJobMessage(
            [
                Problem(
                    code="message_too_deep",
                    message=f"the JSON nests deeper than {MAX_JSON_DEPTH} levels",
                )
            ]
        )
    if not isinstance(data, dict):
        raise InvalidJobMessage(
            [Problem(code="unknown_message_schema", message="the body is not a JSON object")]
        )
    if "job_id" in data:
        return _canonical(data)
    if "reference" in data or "boundaryGeojson" in data:
        return _defra(data)
    raise InvalidJobMessage(
        [
            Problem(
                code="unknown_message_schema",
                message="neither a nrf job (job_id) nor a Defra quote (reference)",
            )
        ]
    )


def _text(data: Mapping[str, Any], key: str, problems: list[Problem], required: bool) -> str | None:
    value = data.get(key)
    if value is None:
        if required:
            problems.append(Problem(code="missing_field", message=f"{key} is required", field=key))
        return None
    if not isinstance(value, str) or len(value) > 500:
        problems.append(
            Problem(
                code="invalid_field",
                message=f"{key} must be text of at most 500 characters",
                field=key,
            )
        )
        return None
    return value


def _dwellings(value: object, key: str, problems: list[Problem]) -> int:
    if value is None:
        problems.append(Problem(code="missing_field", message=f"{key} is required", field=key))
        return 0
    if isinstance(value, bool) or not isinstance(value, int | float):
        problems.append(
            Problem(code="invalid_dwellings", message=f"{key} must be a whole number", field=key)
        )
        return 0
    if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
        problems.append(
            Problem(code="invalid_dwellings", message=f"{key} must be a whole number", field=key)
        )
        return 0
    number = int(value)
    if not 0 <= number <= MAX_DWELLINGS:
        problems.append(
            Problem(
                code="invalid_dwellings", message=f"{key} must be 0 to {MAX_DWELLINGS}", field=key
            )
        )
    return number


def _email(value: str | None, problems: list[Problem]) -> str | None:
    if value is not None and not is_valid_email(value):
        problems.append(
            Problem(code="invalid_email", message="email is not a valid address", field="email")
        )
        return None
    return value


def _canonical(data: Mapping[str, Any]) -> JobRequest:
    problems: list[Problem] = []
    job_id = _text(data, "job_id", problems, required=True)
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
    name = _text(development, "name", problems, required=False) or ""
    category = _text(development, "dwelling_category", problems, required=True) or ""
    dwellings = _dwellings(development.get("dwellings"), "development.dwellings", problems)
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
    rules = _text(data, "rules", problems, required=False)
    email = _email(_text(data, "email", problems, required=False), problems)
    trace = _text(data, "trace_id", problems, required=False)
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


def _defra(data: Mapping[str, Any]) -> JobRequest:
    problems: list[Problem] = []
    reference = _text(data, "reference", problems, required=True)
    if reference is not None and not _DEFRA_REFERENCE.fullmatch(reference):
        problems.append(
            Problem(
                code="invalid_field",
                message="reference must be NRF- and six digits",
                field="reference",
            )
        )
        reference = None
    wrapper = data.get("boundaryGeojson")
    geometry = wrapper.get("boundaryGeometryOriginal") if isinstance(wrapper, dict) else None
    if not isinstance(geometry, dict):
        problems.append(
            Problem(
                code="missing_field",
                message="boundaryGeojson.boundaryGeometryOriginal is required",
                field="boundaryGeojson",
            )
        )
        geometry = None
    elif "crs" not in geometry:
        # Defra's quote service documents this geometry as British National Grid.
        geometry = {**geometry, "crs": BNG}
    types = data.get("developmentTypes")
    category = "housing"
    if types is not None:
        if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
            problems.append(
                Problem(
                    code="invalid_field",
                    message="developmentTypes must be a list of text",
                    field="developmentTypes",
                )
            )
        elif types:
            category = types[0]
    dwellings = _dwellings(data.get("housingUnits"), "housingUnits", problems)
    email = _email(_text(data, "email", problems, required=False), problems)
    trace = _text(data, "traceId", problems, required=False)
    if problems:
        raise InvalidJobMessage(problems, reference, email, trace)
    assert reference is not None
    return JobRequest(
        job_id=reference,
        development_name=reference,
        dwellings=dwellings,
        dwelling_category=category,
        source="web_submission",
        boundary=geometry,
        boundary_uri=None,
        rules=None,
        email=email,
        trace_id=trace,
        schema="defra-quote",
    )
