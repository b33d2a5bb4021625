"""The boundaries Defra's check accepts: polygons only, valid, without holes or a repeated vertex.

Defra's boundary check takes a plain Polygon, because its front end draws and edits one ring:
a MultiPolygon is ``unsupported_geometry_type``, a hole ``geometry_has_holes``, a vertex given
twice in a row ``duplicate_vertices``. The checks run in Defra's order and the first failure
is the answer, so a boundary gets the same code from nrf's drop-in route as from Defra's.
British National Grid coordinates outside 0-700,000 m are refused first, as Defra's are.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry import Polygon

BNG_RANGE = (0.0, 700_000.0)  # Defra's eastings and northings, all of England with margin
# nrf's account of each code, for the people reading nrf's logs and headers.
MEANING = {
    "coordinates_out_of_range": "a coordinate lies outside British National Grid 0-700,000 m",
    "invalid_geometry": "a feature has no geometry, or an empty one",
    "unsupported_geometry_type": "the check takes Polygons only (one ring; no MultiPolygon)",
    "self_intersecting_geometry": "a polygon is not valid: its edges cross or touch",
    "geometry_has_holes": "a polygon has a hole; the check takes a single ring",
    "duplicate_vertices": "a polygon gives one vertex twice in a row",
}


def coordinates_out_of_range(geometries: Sequence[object]) -> bool:
    """Whether any coordinate is not a number or lies outside ``BNG_RANGE`` (both axes)."""
    coords = [shapely.get_coordinates(g) for g in geometries if isinstance(g, shapely.Geometry)]
    if not coords:
        return False
    xy = np.concatenate(coords)
    low, high = BNG_RANGE
    return bool(not np.isfinite(xy).all() or (xy < low).any() or (xy > high).any())


def _repeats_a_vertex(polygon: Polygon) -> bool:
    ring = np.asarray(polygon.exterior.coords)
    return bool((np.diff(ring, axis=0) == 0).all(axis=1).any())


def defra_geometry_error(geometries: Sequence[object]) -> str | None:
    """Defra's code for the first rule a boundary's geometries break, or None."""
    if not geometries or any(g is None or getattr(g, "is_empty", True) for g in geometries):
        return "invalid_geometry"
    if any(not isinstance(g, Polygon) for g in geometries):
        return "unsupported_geometry_type"
    polygons = [g for g in geometries if isinstance(g, Polygon)]
    if not all(p.is_valid for p in polygons):
        return "self_intersecting_geometry"
    if any(len(p.interiors) for p in polygons):
        return "geometry_has_holes"
    if any(_repeats_a_vertex(p) for p in polygons):
        return "duplicate_vertices"
    return None
