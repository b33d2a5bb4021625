"""Turn a request body into raw features: GeoJSON bodies, and multipart uploads with fields.

Both end in the CLI's own readers (``features_from_geojson``, ``read_boundary_bytes``) with the
same limits, so a boundary reads the same here as in `nrf assess`; only the JSON nesting check
is added, because a body arrives from anyone.
"""

from __future__ import annotations

import io
import json
from typing import Any

import falcon
from falcon.media.multipart import MultipartFormHandler, MultipartParseOptions

from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes
from nrf.adapters.site_boundaries.boundary_geojson import features_from_geojson, json_budget
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.validation import InputLimits, RawFeature
from nrf.entrypoints.api.problems import ApiProblem

GEOJSON_TYPES = ("application/geo+json", "application/json")
MULTIPART = "multipart/form-data"
MAX_JSON_DEPTH = 64  # the queue's message limit; a MultiPolygon FeatureCollection needs 7
FIELDS = ("id", "name", "dwelling_category", "source", "dwellings")
_FORM_OPTIONS = MultipartParseOptions()
_FORM_OPTIONS.max_body_part_count = 16
_FORM_OPTIONS.max_body_part_headers_size = 8192


def media_type(req: falcon.Request) -> str:
    return (req.content_type or "").split(";")[0].strip().lower()


def geojson_features(data: bytes, limits: InputLimits) -> list[RawFeature]:
    """Features of a GeoJSON body: the CLI's structure budget, then a nesting check."""
    marks = sum(data.count(mark) for mark in (b"[", b"{", b",", b":"))
    budget = json_budget(limits)
    if marks > budget:
        detail = f"the GeoJSON has {marks:,} brackets, commas and colons; at most {budget:,}"
        raise InvalidInput([Problem(code="geojson_too_complex", message=detail)])
    try:
        document = json.loads(data, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as error:
        detail = f"the body is not valid JSON ({str(error).splitlines()[0][:80]})"
        raise InvalidInput([Problem(code="unreadable_file", message=detail)]) from None
    if not depth_within(document, MAX_JSON_DEPTH):
        detail = f"the JSON nests deeper than {MAX_JSON_DEPTH} levels"
        raise InvalidInput([Problem(code="json_too_deep", message=detail)])
    return features_from_geojson(document, limits)


def depth_within(value: object, limit: int) -> bool:
    """True when no list or object nests deeper than ``limit`` (a list of numbers ends a path)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return False
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, dict | list))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, dict | list))
    return True


def form_parts(data: bytes, content_type: str) -> tuple[tuple[str, bytes] | None, dict[str, str]]:
    """((file name, bytes) of the ``boundary`` part or None, the text fields)."""
    handler = MultipartFormHandler(_FORM_OPTIONS)
    upload: tuple[str, bytes] | None = None
    fields: dict[str, str] = {}
    try:
        form = handler.deserialize(io.BytesIO(data), content_type, len(data))
        for part in form:
            if part.filename:
                if upload is not None:
                    raise ApiProblem("bad_request", "send one boundary file per request")
                upload = (part.secure_filename, part.stream.read())
            elif part.name:
                fields[part.name] = part.text
    except falcon.HTTPError as error:
        raise ApiProblem("bad_request", f"the form cannot be read ({error.description})") from None
    return upload, fields


def form_features(
    upload: tuple[str, bytes] | None,
    fields: dict[str, str],
    limits: InputLimits,
    layer: str | None = None,
) -> tuple[list[RawFeature], dict[str, object]]:
    """The uploaded file's features and the site fields the form gave (blank ones ignored);
    ``layer`` picks a layer of a GeoPackage or KML, or a boundary file of a zip."""
    if upload is None:
        raise ApiProblem("missing_file", "the form has no boundary file (a part with a filename)")
    name, content = upload
    features = read_boundary_bytes(content, name, limits, layer=layer)
    given = {k: fields[k].strip() for k in FIELDS if fields.get(k, "").strip()}
    return features, dict(given)


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not allowed in JSON")
