"""What every path of the OpenAPI document shares: references, problems, the boundary's body.

A problem answer is listed per status a route can give, with the statuses any request can meet
(refused by the HTTP server, or failing unexpectedly) added to each, so no route forgets them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nrf.domain.rules import RULE_SETS

SECURED: list[dict[str, list[str]]] = [{"apiKey": []}]


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def problems(*statuses: int) -> dict[str, Any]:
    content = {"application/problem+json": {"schema": ref("Problem")}}
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
            answers[str(status)]["headers"] = {"Retry-After": RETRY_AFTER}
    return answers


RETRY_AFTER = {
    "description": "whole seconds until the next request would be let in",
    "schema": {"type": "integer", "minimum": 1},
}


BOUNDARY_BODY = {
    "required": True,
    "content": {
        "application/geo+json": {"schema": ref("GeoJson")},
        "application/json": {"schema": ref("GeoJson")},
        "multipart/form-data": {"schema": ref("Upload")},
    },
}
RULES = {
    "name": "rules",
    "in": "query",
    "required": False,
    "description": "rule set, as `nrf assess --rules`",
    "schema": {"type": "string", "enum": sorted(RULE_SETS)},
}
# Every query parameter a boundary route reads (quotes.request_from); a test finds each
# ``get_param`` of the API's code here.
BOUNDARY_PARAMETERS = [
    RULES,
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
SITE_FIELDS = {
    "id": {
        "type": "string",
        "description": "a reference for a file of one site (each of several keeps its own)",
    },
    "name": {"type": "string"},
    "source": {"type": "string"},
    "dwelling_category": {"type": "string"},
    "dwellings": {"type": "string", "pattern": "^[0-9]+$"},
}


# Long: three schemas as one data literal, read top to bottom like the YAML it stands for.
def common_schemas(outputs: Sequence[str]) -> dict[str, Any]:
    """Problem, GeoJson and Upload: the bodies every boundary route reads or answers."""
    return {
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
                    "enum": list(outputs),
                    "description": "POST / only: the answer's type (default html)",
                },
                **SITE_FIELDS,
            },
        },
    }
