"""Defra's quote message: its reference is the job id, its geometry is British National Grid.

References are ``NRL-`` (Defra's backend today) or ``NRF-`` and six ASCII digits: ``\\d``
would also take Arabic-Indic and other Unicode digits. Of ``intersectingEdps`` only each
item's ``label`` (the EDP's name, null when Defra's layer has none) is read; its other keys
and ``intersectingExcludedAreas`` are accepted and ignored, because the bundle's layers decide.
"""

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
from nrf.domain.bng import bng_crs_member
from nrf.domain.errors import Problem
from nrf.domain.job_request import JobRequest
from nrf.domain.trace_id import header_safe

_DEFRA_REFERENCE = re.compile(r"(NRL|NRF)-[0-9]{6}")
MAX_EDP_LABELS = 100


# Long: one parse step per field of Defra's message, each with its own error.
def defra_request(data: Mapping[str, Any]) -> JobRequest:
    problems: list[Problem] = []
    reference = text_field(data, "reference", problems, required=True)
    if reference is not None and not _DEFRA_REFERENCE.fullmatch(reference):
        problems.append(
            Problem(
                code="invalid_field",
                message="reference must be NRL- or NRF- and six digits (0-9)",
                field="reference",
            )
        )
        reference = None
    wrapper = data.get("boundaryGeojson")
    geometry = wrapper.get("boundaryGeometryOriginal") if isinstance(wrapper, dict) else None
    labels = _edp_labels(wrapper if isinstance(wrapper, dict) else {}, problems)
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
        geometry = {**geometry, "crs": bng_crs_member()}
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
    trace = None if trace is None else header_safe(trace)
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
        edp_labels=labels,
    )


def _edp_labels(wrapper: Mapping[str, Any], problems: list[Problem]) -> tuple[str, ...]:
    """Each ``intersectingEdps`` item's label, once each, in message order."""
    items = wrapper.get("intersectingEdps")
    if items is None:
        return ()
    field = "boundaryGeojson.intersectingEdps"
    if not isinstance(items, list) or len(items) > MAX_EDP_LABELS:
        message = f"{field} must be a list of at most {MAX_EDP_LABELS} EDPs"
        problems.append(Problem(code="invalid_field", message=message, field=field))
        return ()
    labels: list[str] = []
    for item in items:
        if not isinstance(item, dict) or "label" not in item:
            message = f"each item of {field} needs a label"
            problems.append(Problem(code="invalid_field", message=message, field=field))
            return ()
        label = item["label"]
        if label is not None and (not isinstance(label, str) or len(label) > 500):
            message = f"each label of {field} must be text of at most 500 characters, or null"
            problems.append(Problem(code="invalid_field", message=message, field=field))
            return ()
        # Defra's check sends null for an EDP feature without a name: kept as a blank name,
        # which no EDP of the bundle has, so the quote is refused as edp_unknown, not as input.
        # Kept verbatim: the backend claims its placeholder row by this exact text, and the
        # match with the bundle's names ignores case and spacing (nrf.domain.quote_refusal).
        name = label if label and label.strip() else ""
        if name not in labels:
            labels.append(name)
    return tuple(labels)
