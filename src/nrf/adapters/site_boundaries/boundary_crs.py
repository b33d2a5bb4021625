"""Which CRSs a boundary may be declared in, and reprojection to British National Grid."""

from __future__ import annotations

import re
import reprlib
import threading
from functools import lru_cache

import numpy as np
import shapely
from numpy.typing import NDArray
from pyproj import CRS, Transformer
from pyproj.exceptions import CRSError
from shapely.geometry import MultiPolygon, Polygon

from nrf.domain.bng import BNG, BNG_EPSG
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.validation import GB_BOUNDS, degenerate

WGS84 = "EPSG:4326"
# PROJ's lookup of an arbitrary CRS text costs memory that stays (its cache): a 45 MiB GeoJSON
# crs name cost 2.5 GB. Longer text is refused before PROJ sees it. A GeoJSON crs name is a
# code or URN (under 60 characters); a .prj's WKT for BNG is about 650, in WKT2 about 1,200.
MAX_CRS_NAME_CHARS = 300
MAX_CRS_WKT_CHARS = 4_000
_BNG_EXTENT = np.array(GB_BOUNDS[2:])
_MIN_WIDTH_DEGREES = 1e-7  # of mean width: about a centimetre, as the validator's in metres
_HOW = "use EPSG:27700 (British National Grid) or EPSG:4326 (WGS 84)"
# A file that states no CRS: how to say which it is (worded for the API in api/wording.py).
_GIVE = (
    "if its coordinates are British National Grid metres give --crs EPSG:27700, if they are "
    "WGS 84 degrees --crs EPSG:4326"
)
# Great Britain in WGS 84 degrees (with a margin): a ring whose x and y fall in each other's
# range was written latitude first, as some tools write EPSG:4326 (its authority's axis order).
_GB_LON, _GB_LAT = (-8.7, 2.1), (49.5, 61.1)


def accepted_crs(declared: str | None, max_chars: int = MAX_CRS_WKT_CHARS) -> str:
    """BNG or WGS84 for a CRS given as text (EPSG code, URN, WKT); refuse anything else."""
    if declared is None or not str(declared).strip():
        raise InvalidInput(
            [
                Problem(
                    code="missing_crs",
                    message=f"the file does not say its CRS; {_GIVE} ({_HOW})",
                )
            ]
        )
    if len(str(declared)) > max_chars:
        message = f"the CRS is given as {len(str(declared)):,} characters of text; at most "
        message += f"{max_chars:,} are read; {_HOW}"
        raise InvalidInput([Problem(code="unsupported_crs", message=message)])
    accepted, why = _classify(str(declared))
    if accepted is None:
        raise InvalidInput([Problem(code="unsupported_crs", message=f"the CRS {why}; {_HOW}")])
    return accepted


@lru_cache(maxsize=256)
def _classify(declared: str) -> tuple[str | None, str]:
    # Cached: PROJ searches its database for an unknown name, which takes most of a second.
    try:
        crs = CRS.from_user_input(declared)
        code = crs.to_epsg()
    except (CRSError, ValueError):  # found by fuzzing: to_epsg() fails on "EPSG:8240.0"
        return None, f"{_short(declared)} cannot be resolved"
    if code == BNG_EPSG:
        return BNG, ""
    if code == 4326 or crs.equals(CRS("OGC:CRS84")):
        return WGS84, ""
    return None, f"{crs.name or _short(declared)} is not supported"


def geojson_crs(document: dict[str, object], default: str = WGS84) -> str:
    """The CRS a GeoJSON object declares in its (pre-RFC 7946) ``crs`` member, else ``default``."""
    if "crs" not in document:
        return default
    member = document["crs"]
    if member is None:
        message = f'the GeoJSON says "crs": null (no CRS); {_HOW} or leave the member out'
        raise InvalidInput([Problem(code="missing_crs", message=message)])
    properties = member.get("properties") if isinstance(member, dict) else None
    if isinstance(member, dict) and isinstance(properties, dict):
        if member.get("type") == "name" and isinstance(properties.get("name"), str):
            return accepted_crs(properties["name"], MAX_CRS_NAME_CHARS)
        code = properties.get("code")
        if member.get("type") == "EPSG" and isinstance(code, int) and not isinstance(code, bool):
            return accepted_crs(f"EPSG:{code}")
    message = f"the GeoJSON crs member {_short(member)} is not a CRS name; {_HOW}"
    raise InvalidInput([Problem(code="unsupported_crs", message=message)])


def to_bng(
    geometry: shapely.Geometry | None, crs: str, feature: int
) -> tuple[shapely.Geometry | None, tuple[Problem, ...]]:
    """The geometry in EPSG:27700, or the problem that stopped the reprojection."""
    if geometry is None or crs == BNG:
        return geometry, ()
    xy = shapely.get_coordinates(geometry)
    if not np.isfinite(xy).all():
        return geometry, ()  # left for the validator, which reports it in its own words
    if len(xy) and (np.abs(xy[:, 0]).max() > 180 or np.abs(xy[:, 1]).max() > 90):
        message = f"feature {feature}: coordinates are outside longitude -180 to 180, latitude "
        message += "-90 to 90 although the CRS is WGS 84 (a GeoJSON without a crs member is WGS "
        metres = bool((xy.min(axis=0) >= 0).all() and (xy.max(axis=0) <= _BNG_EXTENT).all())
        if metres:
            message += "84); if they are British National Grid metres, give --crs EPSG:27700"
        else:
            message += "84), nor are they British National Grid metres"
        code = "coordinates_look_like_metres" if metres else "coordinates_out_of_range"
        return None, (Problem(code=code, message=message, feature=feature, field="geometry"),)
    if len(xy) and _inside(xy[:, 0], _GB_LAT) and _inside(xy[:, 1], _GB_LON):
        message = f"feature {feature}: the coordinates are latitude first (x {xy[:, 0].min():g} "
        message += f"to {xy[:, 0].max():g}, y {xy[:, 1].min():g} to {xy[:, 1].max():g}): that is "
        message += "Great Britain with latitude and longitude swapped; GeoJSON and KML give "
        message += "longitude first, so swap each pair"
        return None, (
            Problem(code="coordinates_swapped", message=message, feature=feature, field="geometry"),
        )
    if _flat_in_degrees(geometry):
        message = f"feature {feature}: geometry has no area as drawn in WGS 84 (its points lie "
        message += "on or near one line); draw the site's boundary"
        flat = Problem(code="zero_area", message=message, feature=feature, field="geometry")
        return None, (flat,)
    projected = shapely.transform(geometry, _wgs84_to_bng)
    if not np.isfinite(shapely.get_coordinates(projected)).all():
        message = f"feature {feature}: geometry cannot be placed on British National Grid; "
        message += "it lies outside Great Britain"
        return None, (
            Problem(
                code="outside_great_britain", message=message, feature=feature, field="geometry"
            ),
        )
    return projected, _crossing(geometry, feature)


def _inside(values: NDArray[np.float64], bounds: tuple[float, float]) -> bool:
    return bool(bounds[0] <= values.min() and values.max() <= bounds[1])


def _crossing(geometry: shapely.Geometry, feature: int) -> tuple[Problem, ...]:
    """A ring that crosses itself, located in the file's own degrees (the validator, which
    sees the geometry in metres, leaves a crossing found here to this problem)."""
    try:
        reason = shapely.is_valid_reason(geometry)
    except shapely.errors.GEOSException:
        return ()  # the validator reports what GEOS cannot read
    match = _CROSSING.fullmatch(reason or "")
    if match is None:
        return ()
    lon, lat = float(match.group(1)), float(match.group(2))
    message = f"feature {feature}: geometry crosses itself at longitude {lon:.6f}, latitude "
    message += f"{lat:.6f} (WGS 84, as in the file); redraw it so no edges cross"
    problem = Problem(
        code="self_intersecting_geometry", message=message, feature=feature, field="geometry"
    )
    return (problem,)


_CROSSING = re.compile(r"(?:Ring )?Self-intersection\[(\S+) (\S+)\]")


def _flat_in_degrees(geometry: shapely.Geometry) -> bool:
    """A polygon whose points lie on one line in degrees (three points along one latitude)
    has area only from the projection's curvature: a 7 km "ring" became a 0.6 m wide sliver of
    0.4 ha. Measured on the repaired outline, so a crossing ring's halves do not cancel."""
    if not isinstance(geometry, Polygon | MultiPolygon) or geometry.is_empty:
        return False  # the validator names what it is
    try:
        outline = shapely.make_valid(geometry)
    except shapely.errors.GEOSException:
        return False  # the validator reports it
    return outline.area == 0 or degenerate(outline.area, outline.length, 0.0, _MIN_WIDTH_DEGREES)


def _wgs84_to_bng(xy: NDArray[np.float64]) -> NDArray[np.float64]:
    x, y = _transformer().transform(xy[:, 0], xy[:, 1])
    return np.column_stack([x, y])


_local = threading.local()


def _transformer() -> Transformer:
    # pyproj transformers must not be shared between threads; one per thread is cheap enough.
    if not hasattr(_local, "transformer"):
        _local.transformer = Transformer.from_crs(WGS84, BNG, always_xy=True)
    transformer: Transformer = _local.transformer
    return transformer


def _short(value: object) -> str:
    # reprlib caps strings and containers as it goes: a 45 MB member is never copied whole.
    text = reprlib.repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def bng_to_wgs84(geometry: shapely.Geometry) -> shapely.Geometry:
    """A British National Grid geometry in WGS 84 longitude and latitude (for a web map)."""
    if not hasattr(_local, "inverse"):
        _local.inverse = Transformer.from_crs(BNG, WGS84, always_xy=True)
    inverse: Transformer = _local.inverse

    def move(xy: NDArray[np.float64]) -> NDArray[np.float64]:
        x, y = inverse.transform(xy[:, 0], xy[:, 1])
        return np.column_stack([x, y])

    return shapely.transform(geometry, move)
