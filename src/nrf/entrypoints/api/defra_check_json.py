"""The answer of `POST /check-boundary` in Defra's exact shape, names, rounding and statuses.

Always the same six keys, in Defra's order: ``boundaryGeometryOriginal`` (the first polygon in
British National Grid, with that CRS named as Defra names it), ``boundaryGeometryWgs84``,
``intersectingEdps`` (``label``; ``overlap_area_ha`` 4 dp, ``overlap_area_sqm`` and
``overlap_percentage`` 2 dp, Python's ``round`` as Defra's; ``catchments``),
``intersectingExcludedAreas``, ``boundaryMetadata`` (area in hectares and acres, perimeter in
kilometres and miles, 4 dp; the WGS 84 bounding box's centre and corners, 6 dp) and ``error``
(Defra's code, or null). A refused geometry is still previewed (a FeatureCollection in WGS 84
and its metadata) so the map can show what was wrong.
"""

from __future__ import annotations

from typing import Any

import shapely
from shapely.geometry import mapping

from nrf.adapters.site_boundaries.boundary_crs import bng_to_wgs84
from nrf.service_layer.defra_boundary_check import DefraBoundaryCheck

BNG_URN = "urn:ogc:def:crs:EPSG::27700"
M2_PER_HA, M2_PER_ACRE, M_PER_MILE = 10_000, 4_046.856, 1_609.344
TOO_LARGE = frozenset({"file_size_too_large", "zip_entry_too_large", "zip_total_too_large"})
NO_CRS = frozenset({"unsupported_crs", "missing_crs", "upload_file_missing"})


def status_of(error: str | None, *, too_large: bool = False) -> int:
    """200, 413 for a size limit, 422 for a CRS (or no file, as Defra's framework) else 400."""
    if error is None:
        return 200
    if too_large or error in TOO_LARGE:
        return 413
    return 422 if error in NO_CRS else 400


def _geojson(geometry: shapely.Geometry) -> dict[str, Any]:
    return dict(mapping(geometry))


def metadata(projected: shapely.Geometry, wgs84: shapely.Geometry) -> dict[str, Any]:
    """Area and perimeter measured in British National Grid; centre and bounds in WGS 84."""
    area, perimeter = float(projected.area), float(projected.length)
    minx, miny, maxx, maxy = (float(v) for v in wgs84.bounds)
    return {
        "area": {
            "hectares": round(area / M2_PER_HA, 4),
            "acres": round(area / M2_PER_ACRE, 4),
        },
        "perimeter": {
            "kilometres": round(perimeter / 1_000, 4),
            "miles": round(perimeter / M_PER_MILE, 4),
        },
        "centre": [round((minx + maxx) / 2, 6), round((miny + maxy) / 2, 6)],
        "bounds": {
            "topLeft": [round(minx, 6), round(maxy, 6)],
            "topRight": [round(maxx, 6), round(maxy, 6)],
            "bottomRight": [round(maxx, 6), round(miny, 6)],
            "bottomLeft": [round(minx, 6), round(miny, 6)],
        },
    }


def defra_answer(
    *,
    original: dict[str, Any] | None = None,
    wgs84: dict[str, Any] | None = None,
    edps: list[dict[str, Any]] | None = None,
    excluded: list[str] | None = None,
    meta: dict[str, Any] | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    return {
        "boundaryGeometryOriginal": original,
        "boundaryGeometryWgs84": wgs84,
        "intersectingEdps": edps or [],
        "intersectingExcludedAreas": excluded or [],
        "boundaryMetadata": meta,
        "error": error,
    }


def _preview(check: DefraBoundaryCheck) -> dict[str, Any]:
    """A refused geometry as Defra shows it: every feature in WGS 84, the first one measured."""
    features, first = [], None
    for index, geometry in enumerate(check.geometries):
        moved = bng_to_wgs84(geometry) if isinstance(geometry, shapely.Geometry) else None
        if index == 0 and moved is not None and not moved.is_empty:
            first = (geometry, moved)
        features.append(
            {
                "id": str(index),
                "type": "Feature",
                "properties": {},
                "geometry": None if moved is None else _geojson(moved),
            }
        )
    return defra_answer(
        wgs84={"type": "FeatureCollection", "features": features} if features else None,
        meta=None if first is None else metadata(*first),
        error=check.error,
    )


def check_document(check: DefraBoundaryCheck) -> dict[str, Any]:
    """The whole answer of one check."""
    if check.error is not None or check.polygon is None:
        return _preview(check)
    polygon = check.polygon
    wgs84 = bng_to_wgs84(polygon)
    catchments = [
        {
            "label": c.label,
            "catchmentOverlapPercentage": round(c.overlap_percentage, 2),
            "catchmentId": c.catchment_id,
        }
        for c in check.catchments
    ]
    edps = [
        {
            "label": e.label,
            "overlap_area_ha": round(e.overlap_m2 / M2_PER_HA, 4),
            "overlap_area_sqm": round(e.overlap_m2, 2),
            "overlap_percentage": round(e.overlap_percentage, 2),
            "catchments": catchments,
        }
        for e in check.edps
    ]
    original = _geojson(polygon)
    original["crs"] = {"type": "name", "properties": {"name": BNG_URN}}
    return defra_answer(
        original=original,
        wgs84=_geojson(wgs84),
        edps=edps,
        excluded=list(check.excluded_areas),
        meta=metadata(polygon, wgs84),
    )
