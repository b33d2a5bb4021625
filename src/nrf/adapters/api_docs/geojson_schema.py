"""The JSON Schema of the GeoJSON answer: each feature's flat properties named and typed.

A GIS client or a generated one reads a site's figures from ``features[].properties`` by name,
so each is listed and required (the same keys for assessed and out-of-scope sites, null where
a figure does not apply). The names are flat_geojson's own, and each figure's type is the
result record's (result_schema.py), made nullable: a field added there is documented here too.
The levy's money is a number in GIS attributes (it is exact decimal text in the JSON answer).
"""

from __future__ import annotations

from typing import Any

from nrf.adapters.api_docs.result_schema import record_schemas
from nrf.adapters.outputs.flat_geojson import FIGURES, LEVY
from nrf.domain.results import AssessmentRun

_TEXT = {"type": ["string", "null"]}
_NUMBER = {"type": ["number", "null"]}
_LEVY_TYPES: dict[str, dict[str, Any]] = {
    "levy_status": {"enum": ["quoted", "refused", None]},
    "edp_id": {"type": ["integer", "null"]},
    "units": {"type": ["integer", "null"]},
    "quote_date": {"type": ["string", "null"], "format": "date"},
    "charge_per_unit_gbp": _NUMBER,
    "levy_excl_vat_gbp": _NUMBER,
    "vat_gbp": _NUMBER,
    "levy_incl_vat_gbp": _NUMBER,
}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def site_properties_schema() -> dict[str, Any]:
    """``features[].properties``: every key required, no other allowed."""
    figures = record_schemas(AssessmentRun)["SiteAssessment"]["properties"]
    properties: dict[str, Any] = {
        "rlb_id": {"type": "integer"},
        "id": _TEXT,
        "name": _TEXT,
        "dwelling_category": _TEXT,
        "source": _TEXT,
        "dwellings": {"type": "integer"},
        "status": {"enum": ["assessed", "out_of_scope"]},
        **{name: _nullable(figures[name]) for name in FIGURES},
        "nn_catchments": {**_TEXT, "description": "the NN catchments, joined by '; '"},
        **{name: _LEVY_TYPES.get(name, _TEXT) for name in LEVY},
        "reason_code": {**_TEXT, "description": "why an out-of-scope site is out of scope"},
        "reason": _TEXT,
        "synthetic_data": {"type": "boolean"},
    }
    return {
        "type": "object",
        "required": list(properties),
        "additionalProperties": False,
        "properties": properties,
    }


def geojson_answer_schema(stamp: dict[str, Any], provenance_ref: str) -> dict[str, Any]:
    """The FeatureCollection ``--output x.geojson`` writes; ``crs`` only in the BNG copy."""
    return {
        "description": "`nrf assess --output NAME.geojson`: RFC 7946 (WGS 84, no `crs`), or "
        "with `?crs=EPSG:27700` the British National Grid copy (`NAME.bng.geojson`), declared "
        "in `crs`",
        "type": "object",
        "required": ["type", "stamp", "provenance", "levy", "features"],
        "properties": {
            "type": {"const": "FeatureCollection"},
            "crs": {
                "type": "object",
                "properties": {
                    "type": {"const": "name"},
                    "properties": {
                        "type": "object",
                        "properties": {"name": {"const": "urn:ogc:def:crs:EPSG::27700"}},
                    },
                },
            },
            "notice": {"type": "string"},
            "stamp": stamp,
            "provenance": {"$ref": provenance_ref},
            "levy": {
                "type": "object",
                "required": ["amount_excluding_vat", "vat", "amount_including_vat"],
                "properties": {
                    "amount_excluding_vat": {"type": "string"},
                    "vat": {"type": "string"},
                    "amount_including_vat": {"type": "string"},
                    "quoted": {"type": "integer"},
                    "refused": {"type": "integer"},
                },
            },
            "features": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["type", "geometry", "properties"],
                    "properties": {
                        "type": {"const": "Feature"},
                        "geometry": {
                            "type": "object",
                            "required": ["type", "coordinates"],
                            "properties": {
                                "type": {"const": "MultiPolygon"},
                                "coordinates": {"type": "array"},
                            },
                        },
                        "properties": site_properties_schema(),
                    },
                },
            },
        },
    }
