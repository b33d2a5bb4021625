"""Defra's boundary-check schemas, transcribed from Joi to JSON Schema, as validators.

Source: DEFRA/nrf-library, version 1.9.0 (package.json at commit 2b11ddce): the file
``src/server/validation/boundary-check/index.js`` as stored at commit 380bfbd8
(``boundaryCheckResponseSchema``, the backend's loose check of the impact assessor's reply;
``boundaryGeojsonSchema``, the front end's check before it saves the reply to the session)
and ``src/server/constants/boundary-errors/index.js`` at 2b11ddce
(``KNOWN_BOUNDARY_ERROR_CODES``, which the front end checks a received failure code against).

Joi to JSON Schema: ``object()`` is an object (never null, so a reply without geometry fails
both schemas: Defra's front end reads a failed check by its ``error`` code instead);
``.unknown(true)`` is ``additionalProperties`` left open; ``.required()`` is ``required``;
``number()`` is a JSON number, ``string()`` a string (Joi refuses the empty string by
default: ``minLength`` 1); ``any()`` anything.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from nrf.domain.boundary_codes import DEFRA_CODES

_GEOMETRY = {"type": "object"}
_JOI_STRING = {"type": "string", "minLength": 1}

RESPONSE_SCHEMA: dict[str, Any] = {  # boundaryCheckResponseSchema
    "type": "object",
    "required": [
        "boundaryGeometryOriginal",
        "boundaryGeometryWgs84",
        "intersectingEdps",
        "intersectingExcludedAreas",
    ],
    "properties": {
        "boundaryGeometryOriginal": _GEOMETRY,
        "boundaryGeometryWgs84": _GEOMETRY,
        "intersectingEdps": {"type": "array"},
        "intersectingExcludedAreas": {"type": "array"},
        "boundaryMetadata": {},
    },
}
EDP_ITEM: dict[str, Any] = {  # intersectingEdpItem
    "type": "object",
    "required": ["label"],
    "properties": {
        "label": _JOI_STRING,
        "overlap_area_ha": {"type": "number"},
        "overlap_area_sqm": {"type": "number"},
        "overlap_percentage": {"type": "number"},
    },
}
GEOJSON_SCHEMA: dict[str, Any] = {  # boundaryGeojsonSchema
    "type": "object",
    "required": [
        "intersectingEdps",
        "intersectingExcludedAreas",
        "boundaryGeometryWgs84",
        "boundaryMetadata",
        "boundaryGeometryOriginal",
    ],
    "properties": {
        "intersectingEdps": {"type": "array", "items": EDP_ITEM},
        "intersectingExcludedAreas": {"type": "array", "items": _JOI_STRING},
        "boundaryGeometryWgs84": _GEOMETRY,
        "boundaryMetadata": {"type": "object"},
        "boundaryGeometryOriginal": _GEOMETRY,
    },
}
# A failed check: the assessor's six keys, and a code the front end knows.
FAILURE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": [
        "boundaryGeometryOriginal",
        "boundaryGeometryWgs84",
        "intersectingEdps",
        "intersectingExcludedAreas",
        "boundaryMetadata",
        "error",
    ],
    "properties": {"error": {"enum": sorted(DEFRA_CODES)}},
}


def _errors(schema: dict[str, Any], body: Any) -> list[str]:
    validator = Draft202012Validator(schema)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(body)]


def check_errors(body: Any) -> list[str]:
    """Why the backend or the front end would refuse a successful check (none: both accept)."""
    return _errors(RESPONSE_SCHEMA, body) + _errors(GEOJSON_SCHEMA, body)


def failure_errors(body: Any) -> list[str]:
    """Why the front end could not read a failed check's code (none: it can)."""
    return _errors(FAILURE_SCHEMA, body)
