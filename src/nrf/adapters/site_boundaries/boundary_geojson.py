"""GeoJSON boundaries, parsed in Python so a declared CRS is checked and never silently replaced.

GDAL would fall back to WGS 84 for an unresolvable ``crs`` name and would guess column types
(a ``true`` among numbers becomes 1); parsing the JSON ourselves keeps both exactly as given.
Over 200 lines: the CRS, geometry and property rules of one format are read together.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator

import shapely
from shapely.geometry import MultiPolygon, Polygon

from nrf.adapters.safe_json import unique_members
from nrf.adapters.site_boundaries.boundary_crs import WGS84, geojson_crs, to_bng
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.validation import DEFAULT_LIMITS, InputLimits, RawFeature

_GEOMETRY_TYPES = {
    "Point",
    "MultiPoint",
    "LineString",
    "MultiLineString",
    "Polygon",
    "MultiPolygon",
    "GeometryCollection",
}


class _BadGeometry(Exception):
    """A GeoJSON geometry that cannot be built; ``code`` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def read_geojson_bytes(
    data: bytes,
    limits: InputLimits,
    *,
    default_crs: str = WGS84,
    progress: Callable[[int, int], None] | None = None,
) -> list[RawFeature]:
    """Features of a GeoJSON document given as bytes (UTF-8, or UTF-16/32 with a BOM)."""
    # Parsed JSON takes 5-20 times its size in memory: count the values it would make first.
    check_structure(data, limits)
    try:
        document = json.loads(data, object_pairs_hook=unique_members)
    except (ValueError, RecursionError) as error:
        message = f"the file is not valid JSON ({_first_line(error)})"
        raise InvalidInput([Problem(code="unreadable_file", message=message)]) from None
    return features_from_geojson(document, limits, default_crs=default_crs, progress=progress)


def json_budget(limits: InputLimits) -> int:
    """The most brackets, commas and colons a GeoJSON within ``limits`` can need.

    A 3-D position ``[x,y,z],`` has four; a feature's own members (type, properties,
    geometry) fewer than fifty.
    """
    return 4 * limits.max_total_vertices + 50 * limits.max_features + 1_000


# Object members a feature may need: its own (type, properties, geometry, coordinates) and
# some sixty properties. Parsed, a member costs more than a vertex (its name, its slot, the
# pair ``unique_members`` sees), but counted only as a colon and a comma it was half of one:
# 2,200,000 unused members in one site's properties, a 27 MB body, cost 275 MB and 7.5 s.
MEMBERS_PER_FEATURE = 64


def member_budget(limits: InputLimits) -> int:
    """The most object members (colons) a GeoJSON within ``limits`` can need."""
    return MEMBERS_PER_FEATURE * limits.max_features + 1_000


def structure_counts(text: bytes | str) -> tuple[int, int]:
    """(brackets, commas and colons; colons alone): what the two budgets limit."""
    if isinstance(text, str):  # a streamed file's chunk
        colons = text.count(":")
        return text.count("[") + text.count("{") + text.count(",") + colons, colons
    colons = text.count(b":")
    return text.count(b"[") + text.count(b"{") + text.count(b",") + colons, colons


def check_structure(
    text: bytes | str, limits: InputLimits, counted: tuple[int, int] = (0, 0)
) -> tuple[int, int]:
    """Refuse ``text`` (with ``counted`` before it) over either budget, as geojson_too_complex;
    else the counts so far."""
    marks, colons = structure_counts(text)
    marks, colons = marks + counted[0], colons + counted[1]
    budget, members = json_budget(limits), member_budget(limits)
    within = f"a file within the limits ({limits.max_total_vertices:,} vertices, "
    within += f"{limits.max_features:,} features) has at most"
    if marks > budget:
        message = f"the GeoJSON has {marks:,} brackets, commas and colons; {within} "
        message += f"{budget:,}, so it is refused before it is read"
        raise InvalidInput([Problem(code="geojson_too_complex", message=message)])
    if colons > members:
        message = f"the GeoJSON has {colons:,} object members (colons); {within} {members:,} "
        message += f"({MEMBERS_PER_FEATURE} a feature), so it is refused before it is read"
        raise InvalidInput([Problem(code="geojson_too_complex", message=message)])
    return marks, colons


def features_from_geojson(
    obj: object,
    limits: InputLimits = DEFAULT_LIMITS,
    *,
    default_crs: str = WGS84,
    progress: Callable[[int, int], None] | None = None,
) -> list[RawFeature]:
    """Features of a parsed GeoJSON geometry, Feature or FeatureCollection, in EPSG:27700.

    Without a ``crs`` member the coordinates are ``default_crs`` (WGS 84, as RFC 7946 says).
    A Feature's own ``id`` member stands in for an ``id`` property that is absent.
    """
    kind = obj.get("type") if isinstance(obj, dict) else None
    if not isinstance(obj, dict) or not isinstance(kind, str):
        raise InvalidInput(
            [Problem(code="unreadable_file", message="the JSON is not a GeoJSON object")]
        )
    crs = geojson_crs(obj, default_crs)
    if kind == "FeatureCollection":
        items = obj.get("features")
        if not isinstance(items, list):
            message = "the FeatureCollection has no features list"
            raise InvalidInput([Problem(code="unreadable_file", message=message)])
    elif kind == "Feature":
        items = [obj]
    elif kind in _GEOMETRY_TYPES:
        items = [{"type": "Feature", "properties": {}, "geometry": obj}]
    else:
        message = f"the JSON has type {kind!r}, not a GeoJSON geometry, Feature or collection"
        raise InvalidInput([Problem(code="unreadable_file", message=message)])
    if not items:
        raise InvalidInput([Problem(code="empty_file", message="the GeoJSON has no features")])
    if len(items) > limits.max_features:
        message = (
            f"the file has {len(items):,} features; at most {limits.max_features:,} are allowed"
        )
        raise InvalidInput([Problem(code="too_many_features", message=message)])
    return list(feature_stream(items, len(items), crs, progress))


def feature_stream(
    items: Iterable[object],
    total: int,
    crs: str,
    progress: Callable[[int, int], None] | None = None,
    *,
    geometry: bool = True,
) -> Iterator[RawFeature]:
    """Each item of a FeatureCollection as a RawFeature, as it is read; at the end,
    InvalidInput if any item was not a Feature. ``geometry=False`` skips building them."""
    problems = []
    for index, item in enumerate(items, start=1):
        if progress is not None:
            progress(index, total)
        if not isinstance(item, dict) or item.get("type") != "Feature":
            message = f"feature {index} is not a GeoJSON Feature object"
            problems.append(Problem(code="unreadable_file", message=message, feature=index))
            continue
        properties = item.get("properties") if item.get("properties") is not None else {}
        if not isinstance(properties, dict):
            message = f"feature {index}: properties is not a JSON object"
            problems.append(Problem(code="unreadable_file", message=message, feature=index))
            continue
        if "id" not in properties and item.get("id") is not None:
            properties = {**properties, "id": item["id"]}
        if not geometry:
            yield RawFeature(index=index, properties=properties, geometry=None, crs=crs)
            continue
        try:
            shape = _geometry(item.get("geometry"))
        except _BadGeometry as bad:
            message = f"feature {index}: {bad.message}"
            problem = Problem(code=bad.code, message=message, feature=index, field="geometry")
            yield RawFeature(
                index=index, properties=properties, geometry=None, crs=crs, problems=(problem,)
            )
            continue
        projected, found = to_bng(shape, crs, index)
        yield RawFeature(
            index=index, properties=properties, geometry=projected, crs=crs, problems=found
        )
    if problems:
        raise InvalidInput(problems)


def _geometry(obj: object) -> Polygon | MultiPolygon | None:
    if obj is None:
        return None
    kind = obj.get("type") if isinstance(obj, dict) else None
    if not isinstance(obj, dict) or not isinstance(kind, str):
        raise _BadGeometry("invalid_geometry", "geometry is not a GeoJSON geometry object")
    if kind not in ("Polygon", "MultiPolygon"):
        message = f"geometry is a {kind}; only Polygon and MultiPolygon boundaries can be assessed"
        raise _BadGeometry("unsupported_geometry_type", message)
    coordinates = obj.get("coordinates")
    try:
        if kind == "Polygon":
            return _polygon(coordinates)
        return MultiPolygon([_polygon(part) for part in _list(coordinates, "polygons")])
    except (ValueError, TypeError, shapely.errors.GEOSException) as error:
        raise _BadGeometry("invalid_geometry", f"geometry cannot be built ({error})") from None


def _polygon(coordinates: object) -> Polygon:
    rings = [_ring(ring, number) for number, ring in enumerate(_list(coordinates, "rings"), 1)]
    return Polygon(rings[0], rings[1:]) if rings else Polygon()


def _ring(obj: object, number: int) -> list[tuple[float, float]]:
    points = [_position(p) for p in _list(obj, "positions")]
    if not all(math.isfinite(c) for point in points for c in point):
        raise _BadGeometry("non_finite_coordinates", "geometry has NaN or infinite coordinates")
    if len(points) < 4:
        message = f"ring {number} has {len(points)} positions; a closed ring needs at least 4"
        raise _BadGeometry("invalid_geometry", message)
    if points[0] != points[-1]:
        message = f"ring {number} is not closed (its last position must repeat its first)"
        raise _BadGeometry("unclosed_ring", message)
    return points


def _position(obj: object) -> tuple[float, float]:
    values = _list(obj, "numbers")
    if len(values) < 2 or not all(_is_number(v) for v in values[:2]):
        message = f"{_first_line(obj)} is not a position (two numbers, x then y)"
        raise _BadGeometry("invalid_geometry", message)
    return _float(values[0]), _float(values[1])


def _list(obj: object, what: str) -> list[object]:
    if not isinstance(obj, list):
        message = f"coordinates are not nested as GeoJSON requires (expected a list of {what})"
        raise _BadGeometry("invalid_geometry", message)
    return obj


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _float(value: object) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except OverflowError:  # an integer literal too large for a float
        return math.inf


def _first_line(value: object) -> str:
    text = str(value).splitlines()[0] if str(value) else ""
    return text if len(text) <= 60 else text[:57] + "..."
