"""Fuzz targets: each input must end in a valid result or an error with a known code."""

from __future__ import annotations

import io
import json
import time
import traceback
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nrf.adapters.job_queue.job_message import parse_job_message
from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes, read_boundary_file
from nrf.adapters.site_boundaries.boundary_geojson import features_from_geojson
from nrf.domain.errors import InvalidInput
from nrf.domain.job_request import JobRequest, allowed_uri
from nrf.domain.validation import InputLimits, RawFeature, validate_features
from support.hostile import BOWTIE, SQUARE, job, polygon, zip_bomb, zip_of

KNOWN_CODES = frozenset(
    {
        # message
        "message_too_large",
        "not_json",
        "json_too_deep",
        "unknown_message_schema",
        "missing_field",
        "invalid_field",
        "invalid_job_id",
        "unsupported_assessment_type",
        "invalid_dwellings",
        "invalid_boundary_uri",
        "invalid_email",
        # files
        "unsupported_file_type",
        "file_too_large",
        "missing_shapefile_parts",
        "unreadable_file",
        "empty_file",
        "too_many_features",
        "ambiguous_layer",
        "missing_crs",
        "unsupported_crs",
        "geojson_too_complex",
        "zip_unsafe_path",
        "zip_too_many_files",
        "zip_entry_too_large",
        "zip_total_too_large",
        "zip_nested_zip",
        "invalid_zip",
        "unsafe_filename",
        "zip_no_boundary_file",
        "zip_ambiguous",
        "zip_missing_shapefile_parts",
        "source_corrupt",
        "layer_not_a_table",
        "read_timed_out",
        "read_too_large",
        # features and geometry
        "missing_column",
        "invalid_columns",
        "unknown_layer",
        "missing_value",
        "invalid_text",
        "null_geometry",
        "unsupported_geometry_type",
        "empty_geometry",
        "non_finite_coordinates",
        "too_many_vertices",
        "invalid_geometry",
        "unclosed_ring",
        "coordinates_out_of_range",
        "no_polygon_found",
        "coordinates_look_like_degrees",
        "coordinates_look_like_metres",
        "outside_great_britain",
        "self_intersecting_geometry",
        "zero_area",
        "site_too_large",
        "unknown_rule_set",
    }
)
BUCKET, PREFIX = "nrf-input", "boundaries"
SLOW_SECONDS = 10.0
# Smaller than the defaults so a fuzzer's inputs reach every limit; the checks are the same.
LIMITS = InputLimits(max_file_bytes=2 * 1024 * 1024, max_decompressed_bytes=8 * 1024 * 1024)


class Finding(Exception):
    """An input that broke a promise: an unexpected exception, unknown code or broken rule."""


def _stamped(features: list[RawFeature]) -> list[RawFeature]:
    # As ProcessJob does: a job's properties come from the message, the geometry from the file.
    props = {"id": "j", "name": "n", "dwelling_category": "housing", "source": "s", "dwellings": 1}
    return [
        RawFeature(
            index=f.index, properties=props, geometry=f.geometry, crs=f.crs, problems=f.problems
        )
        for f in features
    ]


def _check_codes(error: InvalidInput) -> None:
    unknown = set(error.codes) - KNOWN_CODES
    if unknown or not error.problems:
        raise Finding(f"unknown codes {sorted(unknown)} in {error.message[:300]}")


def _validated(read: Callable[[], list[RawFeature]]) -> str:
    try:
        validate_features(_stamped(read()), LIMITS)
    except InvalidInput as error:
        _check_codes(error)
        return "invalid:" + ",".join(error.codes)
    return "valid"


def message_target(data: bytes) -> str:
    try:
        request = parse_job_message(data)
    except InvalidInput as error:
        _check_codes(error)
        return "invalid:" + ",".join(error.codes)
    _check_request(request)
    if request.boundary is not None:
        boundary = request.boundary
        return _validated(lambda: features_from_geojson(boundary, LIMITS))
    return "uri"


def _check_request(request: JobRequest) -> None:
    if request.boundary_uri is not None:
        where = allowed_uri(request.boundary_uri, BUCKET, PREFIX)
        if where is not None:
            bucket, key = where
            if bucket != BUCKET or not key.startswith(PREFIX + "/") or ".." in key.split("/"):
                raise Finding(f"boundary_uri {request.boundary_uri!r} escaped to {where}")
    if "/" in request.job_id or request.job_id.startswith("."):
        raise Finding(f"job id {request.job_id!r} is not safe as a folder name")


def file_target(suffix: str) -> Callable[[bytes], str]:
    def target(data: bytes) -> str:
        return _validated(lambda: read_boundary_bytes(data, f"boundary{suffix}", LIMITS))

    return target


def zip_path_target(data: bytes) -> str:
    """The path reader too: it must never write outside its own temporary folder."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="nrf-fuzz-") as temp:
        path = Path(temp) / "in.zip"
        path.write_bytes(data)
        outcome = _validated(lambda: read_boundary_file(path, LIMITS))
        left = {p.name for p in Path(temp).iterdir()}
    if left != {"in.zip"}:
        raise Finding(f"files left beside the zip: {sorted(left)}")
    return outcome


TARGETS: dict[str, Callable[[bytes], str]] = {
    "message": message_target,
    "geojson": file_target(".geojson"),
    "zip": file_target(".zip"),
    "zip_path": zip_path_target,
    "gpkg": file_target(".gpkg"),
    "kml": file_target(".kml"),
}


def run_one(target: str, data: bytes) -> dict[str, Any] | None:
    """None when the input ended as promised; else a finding to record."""
    started = time.monotonic()
    problem: dict[str, Any] | None
    try:
        TARGETS[target](data)
        problem = None
    except Finding as finding:
        problem = {"kind": "broken_promise", "detail": str(finding)}
    except Exception as error:  # anything else is a crash of the reader or validator
        problem = {
            "kind": "exception",
            "detail": f"{type(error).__name__}: {error}"[:500],
            "traceback": traceback.format_exc()[-2000:],
        }
    took = time.monotonic() - started
    if problem is None and took > SLOW_SECONDS:
        problem = {"kind": "slow", "detail": f"{took:.1f} s"}
    if problem is not None:
        kept = data if len(data) <= 65_536 else data[:4096]  # enough to replay most findings
        problem.update({"target": target, "input_len": len(data), "input_hex": kept.hex()})
    return problem


def seeds(target: str) -> list[bytes]:
    """Valid and hostile starting points for mutation."""
    message = json.dumps(job("seed-1")).encode()
    defra = json.dumps(
        {
            "reference": "NRF-000123",
            "housingUnits": 3,
            "email": "a@b.gov.uk",
            "boundaryGeojson": {
                "boundaryGeometryOriginal": {"type": "Polygon", "coordinates": [SQUARE]}
            },
        }
    ).encode()
    geojson = json.dumps(polygon(SQUARE)).encode()
    bowtie = json.dumps(polygon(BOWTIE)).encode()
    if target == "message":
        uri = json.dumps(job("seed-2", boundary_uri=f"s3://{BUCKET}/{PREFIX}/a.geojson"))
        bowtie_job = json.dumps(job("seed-3", boundary=polygon(BOWTIE))).encode()
        huge = b'{"job_id": "x", "development": {"dwellings": 1e400}}'
        return [message, defra, uri.encode(), bowtie_job, b"[" * 70 + b"]" * 70, huge]
    if target == "geojson":
        return [geojson, bowtie, b'{"type":"Polygon","coordinates":[[[NaN,1],[2,Infinity]]]}']
    if target in ("zip", "zip_path"):
        return [
            zip_of({"site.geojson": geojson}),
            zip_of({"../../escape.geojson": geojson}),
            zip_of({"site.geojson": b"/etc/passwd"}, symlinks=("site.geojson",)),
            zip_bomb(16 * 1024 * 1024),
            _zipped_shapefile(),
        ]
    if target == "gpkg":
        return [_geopackage()]
    if target == "kml":
        return [_KML]
    raise KeyError(target)


_KML = (
    b'<?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2">'
    b"<Document><Folder><name>Sites</name><Placemark><name>A</name><ExtendedData>"
    b'<Data name="dwellings"><value>10</value></Data></ExtendedData><Polygon><outerBoundaryIs>'
    b"<LinearRing><coordinates>1.0,52.0,0 1.001,52.0,0 1.001,52.001,0 1.0,52.0,0</coordinates>"
    b"</LinearRing></outerBoundaryIs></Polygon></Placemark></Folder></Document></kml>"
)


def _zipped_shapefile() -> bytes:
    import nrf

    folder = Path(nrf.__file__).parent / "data/samples/defra-rlb-samples/BnW_small_under_1_hectare"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for part in folder.iterdir():
            if part.suffix.lower() in (".shp", ".shx", ".dbf", ".prj", ".cpg"):
                archive.write(part, part.name)
    return buffer.getvalue()


def _geopackage() -> bytes:
    import tempfile

    import numpy as np
    import pyogrio.raw
    import shapely

    with tempfile.TemporaryDirectory() as temp:
        path = Path(temp) / "site.gpkg"
        wkb = np.array([shapely.Polygon(SQUARE).wkb], dtype=object)
        pyogrio.raw.write(
            path,
            wkb,
            [np.array(["A1"], dtype=object)],
            ["id"],
            geometry_type="Polygon",
            crs="EPSG:27700",
            driver="GPKG",
        )
        return path.read_bytes()
