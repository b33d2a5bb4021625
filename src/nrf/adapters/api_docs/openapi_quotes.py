"""The OpenAPI paths that quote: POST /v1/quotes, the upload form at /, and GET /v1/jobs/{id}."""

from __future__ import annotations

from typing import Any

from nrf.adapters.api_docs.geojson_schema import geojson_answer_schema
from nrf.adapters.api_docs.openapi_common import (
    BOUNDARY_BODY,
    BOUNDARY_PARAMETERS,
    SECURED,
    problems,
    ref,
)
from nrf.adapters.api_docs.result_schema import record_schemas
from nrf.domain.results import AssessmentRun

QUOTE_CONTENT = {
    "application/json": {"schema": ref("Result")},
    "application/geo+json": {"schema": ref("ResultGeoJson")},
    "text/csv": {"schema": {"type": "string"}},
    "text/html": {"schema": {"type": "string"}},
}

# When, from what and for which quote reference an answer was made (output_stamp.py).
STAMP = {
    "type": "object",
    "required": ["made_at", "input", "reference"],
    "properties": {
        "made_at": {"type": "string", "format": "date-time"},
        "input": {"type": "string"},
        "reference": {"type": ["string", "null"]},
    },
}


def quote_schemas() -> dict[str, Any]:
    """The result of a quote, as `nrf assess --output NAME.json` writes it."""
    return {
        "Result": {
            "description": "`nrf assess --output NAME.json`: the typed results, with "
            "the synthetic-data notice when it applies and the stamp",
            "allOf": [
                ref("AssessmentRun"),
                {
                    "type": "object",
                    "required": ["stamp"],
                    "properties": {
                        "notice": {"type": "string"},
                        "stamp": STAMP,
                    },
                },
            ],
        },
        "ResultGeoJson": geojson_answer_schema(STAMP, "#/components/schemas/Provenance"),
        **record_schemas(AssessmentRun),
    }


def job_schemas() -> dict[str, Any]:
    """A queued job's stored outcome."""
    return {
        "Job": {
            "type": "object",
            "required": [
                "job_id",
                "status",
                "finished_at",
                "error_codes",
                "message",
                "trace_id",
            ],
            "properties": {
                "job_id": {"type": "string"},
                "status": {"enum": ["succeeded", "failed"]},
                "finished_at": {"type": "number", "description": "Unix time, seconds"},
                "error_codes": {"type": "array", "items": {"type": "string"}},
                "defra_codes": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Defra's code (nrf-library) beside each of nrf's",
                },
                "message": {"type": "string"},
                "trace_id": {"type": ["string", "null"]},
                "result": {
                    "description": "a succeeded job's result.json (null if missing)",
                    "anyOf": [ref("Result"), {"type": "null"}],
                },
            },
        },
    }


def quote_paths() -> dict[str, Any]:
    return {
        "/v1/quotes": {
            "post": {
                "operationId": "createQuote",
                "summary": "Quote the sites of a boundary",
                "security": SECURED,
                "parameters": BOUNDARY_PARAMETERS,
                "requestBody": BOUNDARY_BODY,
                "responses": {
                    "200": {
                        "description": (
                            "The result in the type Accept prefers (q-values and wildcards "
                            "honoured; a tie, or no Accept, goes to the first of JSON, "
                            "GeoJSON, CSV, HTML)"
                        ),
                        "content": QUOTE_CONTENT,
                    },
                    **problems(400, 401, 406, 408, 413, 415, 422, 429, 503),
                },
            }
        },
    }


def job_paths() -> dict[str, Any]:
    return {
        "/v1/jobs/{job_id}": {
            "get": {
                "operationId": "getJob",
                "summary": "A queued job's stored outcome",
                "security": SECURED,
                "parameters": [
                    {
                        "name": "job_id",
                        "in": "path",
                        "required": True,
                        "schema": {
                            "type": "string",
                            "pattern": "^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$",
                        },
                    }
                ],
                "responses": {
                    "200": {
                        "description": "Status and, once succeeded, the result",
                        "content": {
                            "application/json": {"schema": ref("Job")},
                            "text/html": {"schema": {"type": "string"}},
                        },
                    },
                    **problems(401, 404, 406, 429, 503),
                },
            }
        },
    }


def form_paths() -> dict[str, Any]:
    return {
        "/": {
            "get": {
                "operationId": "uploadForm",
                "summary": "The upload form",
                "security": [],
                "responses": {
                    "200": {
                        "description": "An HTML form",
                        "content": {"text/html": {"schema": {"type": "string"}}},
                    },
                    **problems(429),
                },
            },
            "post": {
                "operationId": "uploadReport",
                "summary": "The form's answer: the report",
                "security": [],
                "requestBody": {
                    "required": True,
                    "content": {"multipart/form-data": {"schema": ref("Upload")}},
                },
                "responses": {
                    "200": {
                        "description": (
                            "The HTML report, or the type the output field chose, "
                            "as a download (Content-Disposition: attachment)"
                        ),
                        "content": QUOTE_CONTENT,
                    },
                    **problems(400, 401, 408, 413, 415, 422, 429, 503),
                },
            },
        },
    }
