"""Per-feature geometry rules shared by every layer: present, polygonal, valid, inside GB.

Each finding names the delivered file when the caller knows it and ends with the fix, so a data
manager can open the file at the feature and mend it without reading this code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray

from nrf.adapters.boundary_data.geopackage_blob import BlobError, decode_blobs
from nrf.bundles.qc.delivered_file import in_file
from nrf.bundles.qc.report import QcReport

# British National Grid's defined extent (EPSG:27700 area of use, rounded out to the grid).
GB_EXTENT = (0.0, 0.0, 700_000.0, 1_300_000.0)
# A feature wholly inside this box is in degrees: 27700 puts no land within 180 m x 90 m of
# the grid's origin, which is in the sea south-west of the Isles of Scilly.
LONLAT_BOX = (-180.0, -90.0, 180.0, 90.0)
UNREADABLE = (BlobError, shapely.errors.GEOSException, TypeError, IndexError, ValueError)
POLYGONAL = (int(shapely.GeometryType.POLYGON), int(shapely.GeometryType.MULTIPOLYGON))
# code -> what to do about it, in the words of the GIS a data manager edits the layer with.
FIX = {
    "geometry_missing": "draw the feature's polygon, or delete the feature",
    "geometry_type": "draw it as a polygon, or delete the feature",
    "geometry_invalid": "repair the polygon (QGIS: Fix Geometries; PostGIS: ST_MakeValid) "
    "and export the layer again",
    "lonlat_coordinates": "reproject the layer from EPSG:4326 to EPSG:27700 and export it again",
    "outside_gb": "correct the feature's coordinates: British National Grid runs "
    "0-700,000 E, 0-1,300,000 N",
}


def _add(
    report: QcReport, code: str, layer: str, key: object, what: str, source: str | None
) -> None:
    report.add(code, layer, key, f"{in_file(source)}{what}: {FIX[code]}")


def decode(
    layer: str,
    keys: Sequence[object],
    blobs: Sequence[bytes | None],
    report: QcReport,
    *,
    source: str | None = None,
) -> NDArray[np.object_]:
    """Geometries of the blobs; one that cannot be read is reported and becomes None."""
    try:
        return decode_blobs(blobs)
    except UNREADABLE:
        out = np.empty(len(blobs), dtype=object)
        for i, (key, blob) in enumerate(zip(keys, blobs, strict=True)):
            try:
                if blob is not None and not isinstance(blob, bytes):
                    raise BlobError(f"stored as {type(blob).__name__}, not a geometry blob")
                out[i] = decode_blobs([blob])[0]
            except UNREADABLE as exc:
                what = f"unreadable geometry blob ({exc})"
                _add(report, "geometry_invalid", layer, key, what, source)
                out[i] = None
        return out


def check_geometries(
    layer: str,
    keys: Sequence[Any] | NDArray[Any],
    geoms: NDArray[np.object_],
    report: QcReport,
    *,
    extent: bool = True,
    source: str | None = None,
) -> NDArray[np.bool_]:
    """Report every bad feature; True where the geometry is a valid polygon(al) feature."""
    keys = np.asarray(keys, dtype=object)
    missing = shapely.is_missing(geoms) | shapely.is_empty(geoms)
    types = shapely.get_type_id(geoms)
    polygonal = np.isin(types, POLYGONAL) & ~missing
    valid = np.zeros(len(geoms), dtype=bool)
    valid[polygonal] = shapely.is_valid(geoms[polygonal])
    for i in np.flatnonzero(missing):
        _add(report, "geometry_missing", layer, keys[i], "no geometry", source)
    for i in np.flatnonzero(~missing & ~polygonal):
        what = f"a {geoms[i].geom_type}, not a polygon"
        _add(report, "geometry_type", layer, keys[i], what, source)
    for i in np.flatnonzero(polygonal & ~valid):
        what = str(shapely.is_valid_reason(geoms[i]))
        _add(report, "geometry_invalid", layer, keys[i], what, source)
    if extent and polygonal.any():
        bounds = shapely.bounds(geoms[polygonal])
        x0, y0, x1, y1 = GB_EXTENT
        outside = (bounds[:, 0] < x0) | (bounds[:, 1] < y0) | (bounds[:, 2] > x1)
        outside |= bounds[:, 3] > y1
        lx0, ly0, lx1, ly1 = LONLAT_BOX
        degrees = (bounds[:, 0] >= lx0) & (bounds[:, 1] >= ly0) & (bounds[:, 2] <= lx1)
        degrees &= bounds[:, 3] <= ly1
        for k, i in enumerate(np.flatnonzero(polygonal)):
            shown = tuple(float(b) for b in bounds[k].round(4))
            if degrees[k]:
                what = f"bounds {shown}: degrees?"
                _add(report, "lonlat_coordinates", layer, keys[i], what, source)
            if outside[k]:
                _add(report, "outside_gb", layer, keys[i], f"bounds {shown}", source)
    return polygonal & valid
