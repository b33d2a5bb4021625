"""Turn a request body into raw features: GeoJSON bodies, and multipart uploads with fields.

Both end in the CLI's own readers (``features_from_geojson``, ``read_boundary_bytes``) with the
same limits, so a boundary reads the same here as in `nrf assess`; only the JSON nesting check
is added (``read_json``, the queue's own reader), because a body arrives from anyone.
"""

from __future__ import annotations

import io

import falcon
from falcon.media.multipart import MultipartFormHandler, MultipartParseOptions

from nrf.adapters.safe_json import read_json
from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes
from nrf.adapters.site_boundaries.boundary_geojson import check_structure, features_from_geojson
from nrf.domain.validation import InputLimits, RawFeature
from nrf.entrypoints.api.problems import ApiProblem
from nrf.entrypoints.api.query_parameters import check_form_field

GEOJSON_TYPES = ("application/geo+json", "application/json")
MULTIPART = "multipart/form-data"
FIELDS = ("id", "name", "dwelling_category", "source", "dwellings")
_FORM_OPTIONS = MultipartParseOptions()
_FORM_OPTIONS.max_body_part_count = 16
_FORM_OPTIONS.max_body_part_headers_size = 8192


def media_type(req: falcon.Request) -> str:
    return (req.content_type or "").split(";")[0].strip().lower()


def geojson_features(data: bytes, limits: InputLimits) -> list[RawFeature]:
    """Features of a GeoJSON body: the CLI's structure budget, then a nesting check."""
    check_structure(data, limits)
    return features_from_geojson(read_json(data, "the body"), limits)


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
                check_form_field(part.name, fields)
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
