"""The OpenAPI 3.1 document of the routes `create_app` serves (a test checks they agree).

Over 200 lines: it is one data document, read top to bottom like the YAML it stands for.
"""

from __future__ import annotations

from typing import Any

from nrf import __version__
from nrf.domain.results import AssessmentRun
from nrf.domain.rules import RULE_SETS
from nrf.entrypoints.api.form_outputs import OUTPUTS
from nrf.entrypoints.api.geojson_schema import geojson_answer_schema
from nrf.entrypoints.api.result_schema import record_schemas


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _problems(*statuses: int) -> dict[str, Any]:
    content = {"application/problem+json": {"schema": _ref("Problem")}}
    words = {
        400: "Malformed request",
        401: "Missing or wrong API key",
        404: "Not found",
        406: "The Accept header accepts none of the types offered",
        408: "The body did not arrive in time",
        413: "Over a size limit",
        415: "Unsupported media or file type",
        422: "The boundary cannot be assessed",
        429: "Too many requests from this client or key: wait Retry-After seconds",
        431: "The request line and headers are too long",
        500: "The server failed to answer: the body names only the request id",
        501: "A Transfer-Encoding other than chunked",
        503: "The reference bundle or result store is unavailable",
    }
    # Any request can meet these, refused by the HTTP server or failing unexpectedly.
    every = (*statuses, 431, 500, 501)
    answers: dict[str, Any] = {}
    for status in sorted(set(every)):
        answers[str(status)] = {"description": words[status], "content": content}
        if status == 429:
            answers[str(status)]["headers"] = {"Retry-After": _RETRY_AFTER}
    return answers


_RETRY_AFTER = {
    "description": "whole seconds until the next request would be let in",
    "schema": {"type": "integer", "minimum": 1},
}


_BOUNDARY_BODY = {
    "required": True,
    "content": {
        "application/geo+json": {"schema": _ref("GeoJson")},
        "application/json": {"schema": _ref("GeoJson")},
        "multipart/form-data": {"schema": _ref("Upload")},
    },
}
_RULES = {
    "name": "rules",
    "in": "query",
    "required": False,
    "description": "rule set, as `nrf assess --rules`",
    "schema": {"type": "string", "enum": sorted(RULE_SETS)},
}
# Every query parameter a boundary route reads (quotes.request_from); a test finds each
# ``get_param`` of the API's code here.
_BOUNDARY_PARAMETERS = [
    _RULES,
    {
        "name": "quoteDate",
        "in": "query",
        "required": False,
        "description": "the day the levy is priced on, YYYY-MM-DD (default today, UTC), as "
        "`nrf assess --quote-date`: a later start is indexed, or refused where no charge "
        "covers it",
        "schema": {"type": "string", "format": "date"},
    },
    {
        "name": "layer",
        "in": "query",
        "required": False,
        "description": "multipart uploads only: the layer of a GeoPackage, the folder of a "
        "KML/KMZ or the shapefile of a zip holding several (`nrf assess --layer`); a GeoJSON "
        "body has one layer and is refused with this set",
        "schema": {"type": "string"},
    },
    {
        "name": "reference",
        "in": "query",
        "required": False,
        "description": "the quote reference, printed in every output (the report's title, "
        "the levy table's Quote_Reference, the stamp), as `nrf assess --reference`",
        "schema": {"type": "string", "maxLength": 500},
    },
    {
        "name": "columns",
        "in": "query",
        "required": False,
        "description": "your file's column names for nrf's, as `nrf assess --columns`: "
        "comma-separated `field=Column` of id, name, dwelling_category, source, dwellings",
        "schema": {"type": "string"},
        "example": "id=Site_Ref,dwellings=No_Dwellin",
    },
    {
        "name": "crs",
        "in": "query",
        "required": False,
        "description": "`EPSG:27700`: a GeoJSON answer in British National Grid metres, "
        "declared in a `crs` member, as `nrf assess --output x.bng.geojson`; without it "
        "GeoJSON is RFC 7946 (WGS 84). Any other value, or crs with an answer that is not "
        "GeoJSON (a boundary check's never is), is 400 `bad_crs`",
        "schema": {"type": "string", "enum": ["EPSG:27700"]},
    },
]
_SITE_FIELDS = {
    "id": {
        "type": "string",
        "description": "a reference for a file of one site (each of several keeps its own)",
    },
    "name": {"type": "string"},
    "source": {"type": "string"},
    "dwelling_category": {"type": "string"},
    "dwellings": {"type": "string", "pattern": "^[0-9]+$"},
}


# When, from what and for which quote reference an answer was made (output_stamp.py).
_STAMP = {
    "type": "object",
    "required": ["made_at", "input", "reference"],
    "properties": {
        "made_at": {"type": "string", "format": "date-time"},
        "input": {"type": "string"},
        "reference": {"type": ["string", "null"]},
    },
}


# Long: the OpenAPI document is data, one literal; split by path next (issue 29).
def openapi_document() -> dict[str, Any]:
    secured: list[dict[str, list[str]]] = [{"apiKey": []}]
    defra = _ref("DefraBoundaryCheck")
    quote_content = {
        "application/json": {"schema": _ref("Result")},
        "application/geo+json": {"schema": _ref("ResultGeoJson")},
        "text/csv": {"schema": {"type": "string"}},
        "text/html": {"schema": {"type": "string"}},
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "nrf quote API",
            "version": __version__,
            "description": "Nutrient levy quotes: the same documents as `nrf assess`.",
        },
        "components": {
            "securitySchemes": {"apiKey": {"type": "apiKey", "in": "header", "name": "x-api-key"}},
            "schemas": {
                "Problem": {
                    "type": "object",
                    "required": ["type", "title", "status", "code"],
                    "properties": {
                        "type": {"type": "string"},
                        "title": {"type": "string"},
                        "status": {"type": "integer"},
                        "detail": {"type": "string"},
                        "code": {"type": "string"},
                        "request_id": {"type": "string"},
                        "problems": {
                            "type": "array",
                            "description": "every problem of the input, not only the first",
                            "items": {
                                "type": "object",
                                "required": ["code", "message", "feature", "field", "site_id"],
                                "properties": {
                                    "code": {"type": "string"},
                                    "message": {"type": "string"},
                                    "feature": {
                                        "type": ["integer", "null"],
                                        "description": "1-based position in the file",
                                    },
                                    "field": {"type": ["string", "null"]},
                                    "site_id": {
                                        "type": ["string", "null"],
                                        "description": "the feature's own id, when it has one",
                                    },
                                },
                            },
                        },
                    },
                },
                "GeoJson": {
                    "type": "object",
                    "required": ["type"],
                    "properties": {"type": {"type": "string"}},
                },
                "Upload": {
                    "type": "object",
                    "required": ["boundary"],
                    "properties": {
                        "boundary": {
                            "type": "string",
                            "contentMediaType": "application/octet-stream",
                            "description": ".geojson, .json, .zip (a shapefile and its "
                            "sidecars), .gpkg, or .kml / .kmz as Google Earth saves them",
                        },
                        "rules": {"type": "string", "enum": sorted(RULE_SETS)},
                        "layer": {"type": "string", "description": "as the query parameter"},
                        "reference": {
                            "type": "string",
                            "description": "as the query parameter (this field beats it)",
                        },
                        "quoteDate": {
                            "type": "string",
                            "format": "date",
                            "description": "as the query parameter (this field beats it)",
                        },
                        "columns": {"type": "string", "description": "as the query parameter"},
                        "api_key": {"type": "string"},
                        "output": {
                            "type": "string",
                            "enum": [output.value for output in OUTPUTS],
                            "description": "POST / only: the answer's type (default html)",
                        },
                        **_SITE_FIELDS,
                    },
                },
                "Result": {
                    "description": "`nrf assess --output NAME.json`: the typed results, with "
                    "the synthetic-data notice when it applies and the stamp",
                    "allOf": [
                        _ref("AssessmentRun"),
                        {
                            "type": "object",
                            "required": ["stamp"],
                            "properties": {
                                "notice": {"type": "string"},
                                "stamp": _STAMP,
                            },
                        },
                    ],
                },
                "ResultGeoJson": geojson_answer_schema(_STAMP, "#/components/schemas/Provenance"),
                **record_schemas(AssessmentRun),
                "BoundaryCheck": {
                    "type": "object",
                    "required": ["provenance", "sites"],
                    "properties": {
                        "provenance": {"type": "object"},
                        "sites": {"type": "array", "items": _ref("SiteCheck")},
                    },
                },
                "SiteCheck": {
                    "type": "object",
                    "required": ["id", "area_ha", "intersectingEdps", "intersectingExcludedAreas"],
                    "properties": {
                        "intersectingEdps": {
                            "type": "array",
                            "description": "The EDPs of the bundle's EDP layer the boundary "
                            "meets, as Defra's /check-boundary gives them.",
                            "items": _ref("IntersectingEdp"),
                        },
                        "intersectingExcludedAreas": {
                            "type": "array",
                            "description": "Names of the excluded areas the boundary meets "
                            "(empty text for an unnamed one): no levy; a Habitats Regulations "
                            "Assessment instead.",
                            "items": {"type": "string"},
                        },
                    },
                },
                "IntersectingEdp": {
                    "type": "object",
                    "required": [
                        "label",
                        "overlapAreaHa",
                        "overlapAreaSqm",
                        "overlapPercentage",
                        "catchments",
                    ],
                    "properties": {
                        "label": {"type": "string", "description": "The EDP's name"},
                        "overlapAreaHa": {"type": "number", "description": "4 dp"},
                        "overlapAreaSqm": {"type": "number", "description": "2 dp"},
                        "overlapPercentage": {
                            "type": "number",
                            "description": "Share of the boundary, 0-100, 2 dp",
                        },
                        "catchments": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "required": [
                                    "label",
                                    "catchmentId",
                                    "catchmentOverlapPercentage",
                                ],
                                "properties": {
                                    "label": {
                                        "type": "string",
                                        "description": "The catchment's Label (its N2K site's "
                                        "name in a bundle without labels)",
                                    },
                                    "catchmentId": {
                                        "type": "string",
                                        "description": "The lowest OID of its polygons",
                                    },
                                    "catchmentOverlapPercentage": {
                                        "type": "number",
                                        "description": "Share of the boundary in this EDP and "
                                        "NN catchment, 0-100, 2 dp",
                                    },
                                },
                            },
                        },
                    },
                },
                "DefraUpload": {
                    "type": "object",
                    "required": ["geometry_file"],
                    "properties": {
                        "geometry_file": {
                            "type": "string",
                            "contentMediaType": "application/octet-stream",
                            "description": ".zip (shapefile, GeoJSON or KML), .geojson, .json "
                            "or .kml",
                        },
                        "boundary_filename": {
                            "type": "string",
                            "description": "a zip's member to read (its bare name)",
                        },
                    },
                },
                "DefraBoundaryCheck": {
                    "type": "object",
                    "description": "Defra's /check-boundary answer, the same six keys on "
                    "every status; a failure has error set (Defra's code, nrf-library 1.9.0) "
                    "and nrf's own code and message in the X-Nrf-Problem header.",
                    "required": [
                        "boundaryGeometryOriginal",
                        "boundaryGeometryWgs84",
                        "intersectingEdps",
                        "intersectingExcludedAreas",
                        "boundaryMetadata",
                        "error",
                    ],
                    "properties": {
                        "boundaryGeometryOriginal": {
                            "type": ["object", "null"],
                            "description": "The polygon in EPSG:27700, with a crs member",
                        },
                        "boundaryGeometryWgs84": {
                            "type": ["object", "null"],
                            "description": "The polygon in WGS 84 (a refused boundary: a "
                            "FeatureCollection, to preview)",
                        },
                        "intersectingEdps": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "required": [
                                    "label",
                                    "overlap_area_ha",
                                    "overlap_area_sqm",
                                    "overlap_percentage",
                                    "catchments",
                                ],
                                "properties": {
                                    "label": {"type": "string"},
                                    "overlap_area_ha": {"type": "number"},
                                    "overlap_area_sqm": {"type": "number"},
                                    "overlap_percentage": {"type": "number"},
                                    "catchments": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": [
                                                "label",
                                                "catchmentOverlapPercentage",
                                                "catchmentId",
                                            ],
                                        },
                                    },
                                },
                            },
                        },
                        "intersectingExcludedAreas": {
                            "type": "array",
                            "items": {"type": "string", "minLength": 1},
                        },
                        "boundaryMetadata": {"type": ["object", "null"]},
                        "error": {"type": ["string", "null"]},
                    },
                },
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
                            "anyOf": [_ref("Result"), {"type": "null"}],
                        },
                    },
                },
                "Status": {
                    "type": "object",
                    "required": ["status"],
                    "properties": {
                        "status": {"type": "string"},
                        "reason": {"type": "string"},
                        "bundle_name": {"type": "string"},
                        "bundle_version": {"type": "string"},
                        "bundle_sha256": {"type": "string"},
                        "synthetic": {"type": "boolean"},
                    },
                },
            },
        },
        "paths": {
            "/v1/quotes": {
                "post": {
                    "operationId": "createQuote",
                    "summary": "Quote the sites of a boundary",
                    "security": secured,
                    "parameters": _BOUNDARY_PARAMETERS,
                    "requestBody": _BOUNDARY_BODY,
                    "responses": {
                        "200": {
                            "description": (
                                "The result in the type Accept prefers (q-values and wildcards "
                                "honoured; a tie, or no Accept, goes to the first of JSON, "
                                "GeoJSON, CSV, HTML)"
                            ),
                            "content": quote_content,
                        },
                        **_problems(400, 401, 406, 408, 413, 415, 422, 429, 503),
                    },
                }
            },
            "/v1/boundary-checks": {
                "post": {
                    "operationId": "checkBoundary",
                    "summary": "EDPs, catchments, excluded areas, works, LPA and scope",
                    "security": secured,
                    "parameters": _BOUNDARY_PARAMETERS,
                    "requestBody": _BOUNDARY_BODY,
                    "responses": {
                        "200": {
                            "description": "Each site's overlaps and majorities",
                            "content": {"application/json": {"schema": _ref("BoundaryCheck")}},
                        },
                        **_problems(400, 401, 406, 408, 413, 415, 422, 429, 503),
                    },
                }
            },
            "/check-boundary": {
                "post": {
                    "operationId": "checkBoundaryAsDefra",
                    "summary": "Defra's boundary check: the same request, answer and statuses",
                    "security": secured,
                    "requestBody": {
                        "required": True,
                        "content": {"multipart/form-data": {"schema": _ref("DefraUpload")}},
                    },
                    "responses": {
                        **{
                            str(status): {
                                "description": words,
                                "content": {"application/json": {"schema": defra}},
                            }
                            for status, words in (
                                (200, "The EDPs, catchments and excluded areas it meets"),
                                (400, "An unreadable file or a boundary Defra refuses"),
                                (413, "file_size_too_large"),
                                (422, "unsupported_crs, missing_crs or no file"),
                            )
                        },
                        **_problems(401, 429, 503),
                    },
                }
            },
            "/v1/jobs/{job_id}": {
                "get": {
                    "operationId": "getJob",
                    "summary": "A queued job's stored outcome",
                    "security": secured,
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
                                "application/json": {"schema": _ref("Job")},
                                "text/html": {"schema": {"type": "string"}},
                            },
                        },
                        **_problems(401, 404, 406, 429, 503),
                    },
                }
            },
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
                        **_problems(429),
                    },
                },
                "post": {
                    "operationId": "uploadReport",
                    "summary": "The form's answer: the report",
                    "security": [],
                    "requestBody": {
                        "required": True,
                        "content": {"multipart/form-data": {"schema": _ref("Upload")}},
                    },
                    "responses": {
                        "200": {
                            "description": (
                                "The HTML report, or the type the output field chose, "
                                "as a download (Content-Disposition: attachment)"
                            ),
                            "content": quote_content,
                        },
                        **_problems(400, 401, 408, 413, 415, 422, 429, 503),
                    },
                },
            },
            "/openapi.json": {
                "get": {
                    "operationId": "openapi",
                    "summary": "This document",
                    "security": [],
                    "responses": {
                        "200": {
                            "description": "OpenAPI 3.1",
                            "content": {"application/json": {"schema": {"type": "object"}}},
                        },
                        **_problems(429),
                    },
                }
            },
            "/health": {
                "get": {
                    "operationId": "health",
                    "summary": "The process answers and can quote",
                    "security": [],
                    "responses": {
                        "200": {
                            "description": "Alive",
                            "content": {"application/json": {"schema": _ref("Status")}},
                        },
                        "503": {
                            "description": "The bundle could not be opened: replace the process",
                            "content": {"application/json": {"schema": _ref("Status")}},
                        },
                    },
                }
            },
            "/ready": {
                "get": {
                    "operationId": "ready",
                    "summary": "The bundle is open",
                    "security": [],
                    "responses": {
                        "200": {
                            "description": "Ready",
                            "content": {"application/json": {"schema": _ref("Status")}},
                        },
                        "503": {
                            "description": "Not ready",
                            "content": {"application/json": {"schema": _ref("Status")}},
                        },
                    },
                }
            },
        },
        "security": secured,
    }
