"""Per-feature geometry rules shared by every layer: present, polygonal, valid, inside GB."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray

from nrf.adapters.boundary_data.geopackage_blob import BlobError, decode_blobs
from nrf.bundles.qc.report import QcReport

# British National Grid's defined extent (EPSG:27700 area of use, rounded out to the grid).
GB_EXTENT = (0.0, 0.0, 700_000.0, 1_300_000.0)
# A feature wholly inside this box is in degrees: 27700 puts no land within 180 m x 90 m of
# the grid's origin, which is in the sea south-west of the Isles of Scilly.
LONLAT_BOX = (-180.0, -90.0, 180.0, 90.0)
UNREADABLE = (BlobError, shapely.errors.GEOSException, TypeError, IndexError, ValueError)
POLYGONAL = (int(shapely.GeometryType.POLYGON), int(shapely.GeometryType.MULTIPOLYGON))


def decode(
    layer: str, keys: Sequence[object], blobs: Sequence[bytes | None], report: QcReport
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
                report.add("geometry_invalid", layer, key, f"unreadable geometry blob ({exc})")
                out[i] = None
        return out


def check_geometries(
    layer: str,
    keys: Sequence[Any] | NDArray[Any],
    geoms: NDArray[np.object_],
    report: QcReport,
    *,
    extent: bool = True,
) -> NDArray[np.bool_]:
    """Report every bad feature; True where the geometry is a valid polygon(al) feature."""
    keys = np.asarray(keys, dtype=object)
    missing = shapely.is_missing(geoms) | shapely.is_empty(geoms)
    types = shapely.get_type_id(geoms)
    polygonal = np.isin(types, POLYGONAL) & ~missing
    valid = np.zeros(len(geoms), dtype=bool)
    valid[polygonal] = shapely.is_valid(geoms[polygonal])
    for i in np.flatnonzero(missing):
        report.add("geometry_missing", layer, keys[i], "no geometry")
    for i in np.flatnonzero(~missing & ~polygonal):
        report.add("geometry_type", layer, keys[i], f"a {geoms[i].geom_type}, not a polygon")
    for i in np.flatnonzero(polygonal & ~valid):
        report.add("geometry_invalid", layer, keys[i], str(shapely.is_valid_reason(geoms[i])))
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
                report.add("lonlat_coordinates", layer, keys[i], f"bounds {shown}: degrees?")
            if outside[k]:
                report.add("outside_gb", layer, keys[i], f"bounds {shown}")
    return polygonal & valid
