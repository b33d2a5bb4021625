"""The OpenAPI paths that check a boundary: POST /v1/boundary-checks and Defra's /check-boundary."""

from __future__ import annotations

from typing import Any

from nrf.adapters.api_docs.openapi_common import (
    BOUNDARY_BODY,
    BOUNDARY_PARAMETERS,
    SECURED,
    problems,
    ref,
)


# Long: five schemas as one data literal, read top to bottom like the YAML it stands for.
def boundary_schemas() -> dict[str, Any]:
    """nrf's check and Defra's: the overlaps a boundary meets, in each one's own shape."""
    return {
        "BoundaryCheck": {
            "type": "object",
            "required": ["provenance", "sites"],
            "properties": {
                "provenance": {"type": "object"},
                "sites": {"type": "array", "items": ref("SiteCheck")},
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
                    "items": ref("IntersectingEdp"),
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
                    "description": ".zip (shapefile, GeoJSON or KML), .geojson, .json or .kml",
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
    }


def boundary_paths() -> dict[str, Any]:
    defra = ref("DefraBoundaryCheck")
    return {
        "/v1/boundary-checks": {
            "post": {
                "operationId": "checkBoundary",
                "summary": "EDPs, catchments, excluded areas, works, LPA and scope",
                "security": SECURED,
                "parameters": BOUNDARY_PARAMETERS,
                "requestBody": BOUNDARY_BODY,
                "responses": {
                    "200": {
                        "description": "Each site's overlaps and majorities",
                        "content": {"application/json": {"schema": ref("BoundaryCheck")}},
                    },
                    **problems(400, 401, 406, 408, 413, 415, 422, 429, 503),
                },
            }
        },
        "/check-boundary": {
            "post": {
                "operationId": "checkBoundaryAsDefra",
                "summary": "Defra's boundary check: the same request, answer and statuses",
                "security": SECURED,
                "requestBody": {
                    "required": True,
                    "content": {"multipart/form-data": {"schema": ref("DefraUpload")}},
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
                    **problems(401, 429, 503),
                },
            }
        },
    }
