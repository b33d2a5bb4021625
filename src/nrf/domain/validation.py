"""Strict validation of red-line boundaries: every problem of every feature, in one error.

The attributes are read by ``feature_properties``; the geometry checks are all here, so the
list of what is refused is one read.
"""

# Long: every geometry rule in one place, so the list of what is refused is one read.

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

import attrs
import numpy as np
import shapely
from attrs import field, frozen
from shapely.geometry import MultiPolygon, Polygon

from nrf.domain.bng import BNG
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.feature_properties import (
    ABSENT,
    COLUMNS,
    DEFAULTS,
    MISSING_COLUMN_FIX,
    columns_named,
    dwellings_of,
    lookup,
    missing_column_hint,
    required_text,
)
from nrf.domain.model import Development

MIB = 1024 * 1024
# The extent of British National Grid; a site outside it is in the wrong CRS or not in GB.
GB_BOUNDS = (0.0, 0.0, 700_000.0, 1_300_000.0)


@frozen(kw_only=True)
class InputLimits:
    """Ceilings that keep one hostile or mistaken file from exhausting the service."""

    max_file_bytes: int = 50 * MIB
    max_features: int = 10_000
    # Real red-line boundaries have hundreds of vertices (the BnW maximum is 894); overlay cost
    # grows faster than linearly, so a 100k-vertex site already takes ~12 s.
    max_vertices_per_feature: int = 100_000
    max_total_vertices: int = 1_000_000
    max_site_area_ha: float = 10_000
    max_decompressed_bytes: int = 200 * MIB
    max_zip_entries: int = 100
    # A GeoPackage is a database: its reads are interrupted after this long (a real boundary
    # layer reads in well under a second; a recursive view would run for ever).
    max_read_seconds: float = 20.0
    # GDAL reads a file in a child allowed this much memory beyond its size at the fork; the
    # costliest file within the other limits (a KML of 1,000,000 vertices) needs about 200 MiB.
    max_read_memory_bytes: int = 512 * MIB


DEFAULT_LIMITS = InputLimits()


@frozen(kw_only=True)
class RawFeature:
    """One feature as read, geometry already in EPSG:27700.

    ``crs`` is the CRS the coordinates were declared in (before reprojection); ``problems``
    are those the reader already found (e.g. an unreadable ring), which stop geometry checks.
    """

    index: int
    properties: Mapping[str, object]
    geometry: object = field(eq=False)
    crs: str = BNG
    problems: tuple[Problem, ...] = ()


def validate_features(
    features: Sequence[RawFeature],
    limits: InputLimits = DEFAULT_LIMITS,
    progress: Callable[[int, int], None] | None = None,
) -> list[Development]:
    """Turn raw features into developments, or raise InvalidInput listing every problem.

    ``progress`` is told (done, total) after each feature.
    """
    check_count(len(features), limits)
    columns = file_columns(key_sets(features))
    return list(validated(features, len(features), columns, limits, progress))


def check_count(count: int, limits: InputLimits) -> None:
    """A file with no features, or more than the limit, is refused before any is checked."""
    if not count:
        raise InvalidInput([Problem(code="empty_file", message="the file has no features")])
    if count > limits.max_features:
        message = f"the file has {count:,} features; at most {limits.max_features:,}"
        raise InvalidInput([Problem(code="too_many_features", message=message + " are allowed")])


KeySet = tuple[str, ...]


@frozen
class FileColumns:
    """A file's columns: the required ones no feature has, and every name (first met first)."""

    absent: tuple[str, ...]
    names: tuple[str, ...]


def key_sets(features: Iterable[RawFeature]) -> list[KeySet]:
    """The features' distinct lists of property names, first met first: all that the
    whole-file column checks need (a shapefile has one; a GeoJSON usually a few)."""
    return list(dict.fromkeys(tuple(f.properties) for f in features))


def file_columns(keys: Iterable[KeySet]) -> FileColumns:
    """The absent required columns and the file's own names, from its ``key_sets``."""
    keys = list(keys)
    present = [dict.fromkeys(k) for k in keys]
    absent = tuple(c for c in COLUMNS if all(lookup(p, c) is ABSENT for p in present))
    names = tuple(dict.fromkeys(str(k) for ks in keys for k in ks))
    return FileColumns(absent=absent, names=names)


# Long: each input rule checked in the order its problem is reported, one generator over features.
def validated(
    features: Iterable[RawFeature],
    total: int,
    columns: FileColumns,
    limits: InputLimits = DEFAULT_LIMITS,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[Development]:
    """Each feature's development as it is checked, while no problem has been found; at the
    end, InvalidInput listing every problem. So a file read as it goes is checked in one pass
    that keeps nothing but its problems, and assessed in a second (``total``: for progress)."""
    absent = columns.absent
    own = columns_named(list(columns.names))
    problems = [
        Problem(
            code="missing_column",
            message=f"the file has no {c} column{missing_column_hint(c)}; {own}"
            + (f"; {MISSING_COLUMN_FIX[c]}" if c in MISSING_COLUMN_FIX else ""),
            feature=None,
            field=c,
        )
        for c in absent
        if c not in DEFAULTS
    ]
    # "no polygon" is known at the end, and goes right after the missing columns.
    after_columns = len(problems)
    polygon_seen = read_problems = False
    total_vertices = 0
    for position, feature in enumerate(features, start=1):
        found: list[Problem] = []
        texts = {
            c: required_text(feature.properties, feature.index, c, found)
            if c not in absent
            else (str(feature.index) if c == "id" else DEFAULTS[c])
            for c in COLUMNS
            if c != "dwellings"
        }
        dwellings = (
            dwellings_of(feature.properties, feature.index, found)
            if "dwellings" not in absent
            else 0
        )
        found += feature.problems
        geometry = feature.geometry
        polygon_seen = polygon_seen or isinstance(geometry, Polygon | MultiPolygon)
        read_problems = read_problems or bool(feature.problems)
        # A reader's geometry problem stops the checks, but for a crossing it located in the
        # file's own degrees (boundary_crs.py): the checks run, less their own crossing.
        stopped = [p for p in feature.problems if p.field == "geometry"]
        if all(p.code == CROSSING for p in stopped):
            checks = geometry_problems(geometry, limits, feature=feature.index, crs=feature.crs)
            found += [p for p in checks if not (stopped and p.code == CROSSING)]
        if isinstance(geometry, Polygon | MultiPolygon):
            total_vertices += int(shapely.get_num_coordinates(geometry))
        site_id = texts.get("id")
        problems += [attrs.evolve(p, site_id=site_id) for p in found] if site_id else found
        if not problems:
            assert isinstance(geometry, Polygon | MultiPolygon)
            yield Development(
                rlb_id=position,
                id=texts["id"],
                name=texts["name"],
                dwelling_category=texts["dwelling_category"],
                source=texts["source"],
                dwellings=dwellings,
                boundary=shapely.force_2d(geometry),
            )
        if progress is not None:
            progress(position, total)
    if not polygon_seen and not read_problems:
        message = "the file holds no polygon: a red-line boundary is a Polygon or MultiPolygon"
        problem = Problem(code="no_polygon_found", message=message, field="geometry")
        problems.insert(after_columns, problem)
    if total_vertices > limits.max_total_vertices:
        message = f"the file has {total_vertices:,} vertices in all; at most "
        message += f"{limits.max_total_vertices:,} are allowed"
        problems.append(
            Problem(code="too_many_vertices", message=message, feature=None, field="geometry")
        )
    if problems:
        raise InvalidInput(problems)


def geometry_problems(
    geometry: object, limits: InputLimits, *, feature: int | None = None, crs: str = BNG
) -> list[Problem]:
    """Every problem of one geometry; checks that make later ones meaningless stop early."""
    # Absurd coordinates make GEOS warn about overflow; the checks below report them instead.
    with np.errstate(all="ignore"):
        return _geometry_problems(geometry, limits, feature, crs)


def _geometry_problems(
    geometry: object, limits: InputLimits, feature: int | None, crs: str
) -> list[Problem]:

    def problem(code: str, text: str) -> Problem:
        where = f"feature {feature}: " if feature is not None else ""
        return Problem(code=code, message=f"{where}{text}", feature=feature, field="geometry")

    if geometry is None:
        return [problem("null_geometry", "geometry is missing; every site needs a boundary")]
    if not isinstance(geometry, Polygon | MultiPolygon):
        kind = getattr(geometry, "geom_type", type(geometry).__name__)
        text = f"geometry is a {kind}; only Polygon and MultiPolygon boundaries can be assessed"
        return [problem("unsupported_geometry_type", text)]
    if geometry.is_empty:
        return [problem("empty_geometry", f"geometry is an empty {geometry.geom_type}")]
    if not np.isfinite(shapely.get_coordinates(geometry)).all():
        return [problem("non_finite_coordinates", "geometry has NaN or infinite coordinates")]
    vertices = int(shapely.get_num_coordinates(geometry))
    if vertices > limits.max_vertices_per_feature:
        text = f"geometry has {vertices:,} vertices; at most {limits.max_vertices_per_feature:,}"
        return [problem("too_many_vertices", text + " are allowed")]
    minx, miny, maxx, maxy = geometry.bounds
    if crs == BNG and _within((minx, miny, maxx, maxy), (-180, -90, 180, 90)):
        text = "coordinates all lie within ±180, ±90 so they look like longitude/latitude "
        text += "degrees, but the CRS is EPSG:27700 (metres); declare EPSG:4326 or use metres"
        return [problem("coordinates_look_like_degrees", text)]
    found = []
    if not _within((minx, miny, maxx, maxy), GB_BOUNDS):
        text = f"geometry (bounds {minx:.0f}, {miny:.0f}, {maxx:.0f}, {maxy:.0f}) lies outside "
        text += "Great Britain (British National Grid x 0 to 700000, y 0 to 1300000)"
        found.append(problem("outside_great_britain", text))
    try:
        reason = shapely.is_valid_reason(geometry)
        # A crossing ring's own area is meaningless (a bow-tie's halves cancel): measure the repair.
        repaired = geometry if reason == "Valid Geometry" else shapely.make_valid(geometry)
    except shapely.errors.GEOSException as error:  # absurd coordinates defeat GEOS itself
        reason, repaired = str(error), None
    if repaired is None or ("Self-intersection" not in reason and reason != "Valid Geometry"):
        found.append(problem("invalid_geometry", f"geometry is not a valid polygon ({reason})"))
        return found
    area = repaired.area
    if area == 0:
        found.append(problem("zero_area", "geometry has zero area"))
    elif degenerate(area, repaired.length, MIN_AREA_M2, MIN_MEAN_WIDTH_M):
        text = f"geometry has almost no area ({area:.3g} m², {2 * area / repaired.length:.2g} m "
        text += "wide on average): its points lie on or near one line; draw the site's boundary"
        found.append(problem("zero_area", text))
    elif reason != "Valid Geometry":
        found.append(problem(CROSSING, _crossing_words(reason)))
    if area / 10_000 > limits.max_site_area_ha:
        text = f"site area is {area / 10_000:,.1f} ha; at most {limits.max_site_area_ha:,} ha "
        found.append(problem("site_too_large", text + "is allowed"))
    return found


# A boundary under a square metre, or on average under a centimetre wide, is a line drawn as
# a ring (three points along one latitude become such a sliver once reprojected), not a site:
# priced, it was quoted at 0.0 ha and the full wastewater levy.
MIN_AREA_M2 = 1.0
MIN_MEAN_WIDTH_M = 0.01


def degenerate(area: float, perimeter: float, min_area: float, min_width: float) -> bool:
    """An outline with under ``min_area`` of area or under ``min_width`` of mean width (twice
    the area over the perimeter: a rectangle's width when it is long), in its own units."""
    return area < min_area or (perimeter > 0 and 2 * area / perimeter < min_width)


CROSSING = "self_intersecting_geometry"
_AT = re.compile(r"(?:Ring )?Self-intersection\[(\S+) (\S+)\]")


def _crossing_words(reason: str) -> str:
    """Where the ring crosses itself, in British National Grid metres (the file's own
    coordinates: a file in degrees has its crossing located by its reader)."""
    at = _AT.fullmatch(reason)
    if at is None:
        return f"geometry crosses itself ({reason}); redraw it so no edges cross"
    x, y = float(at.group(1)), float(at.group(2))
    return (
        f"geometry crosses itself at x {x:.2f}, y {y:.2f} (British National Grid metres); "
        "redraw it so no edges cross"
    )


def _within(bounds: tuple[float, ...], box: tuple[float, ...]) -> bool:
    return (
        box[0] <= bounds[0] and bounds[2] <= box[2] and box[1] <= bounds[1] and bounds[3] <= box[3]
    )
