"""Defra's quote message: its reference is the job id, its geometry is British National Grid."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from nrf.adapters.job_queue.message_fields import (
    InvalidJobMessage,
    dwellings_field,
    email_field,
    text_field,
)
from nrf.domain.bng import geojson_crs
from nrf.domain.errors import Problem
from nrf.domain.job_request import JobRequest

_DEFRA_REFERENCE = re.compile(r"NRF-\d{6}")


def defra_request(data: Mapping[str, Any]) -> JobRequest:
    problems: list[Problem] = []
    reference = text_field(data, "reference", problems, required=True)
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
        geometry = {**geometry, "crs": geojson_crs()}
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
    dwellings = dwellings_field(data.get("housingUnits"), "housingUnits", problems)
    email = email_field(text_field(data, "email", problems, required=False), problems)
    trace = text_field(data, "traceId", problems, required=False)
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
