"""Boundary files written as a GIS would save them: ``n`` squares with every column."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pyogrio.raw
from shapely.geometry import box

from support.reference import STRIP_ORIGIN

X, Y = STRIP_ORIGIN


def write_sites(path: Path, n: int) -> Path:
    """``n`` 100 m squares 200 m apart, in EPSG:27700; a .gpkg or a .shp by the suffix."""
    squares = [box(X + 200 * i, Y, X + 200 * i + 100, Y + 100).wkb for i in range(n)]
    columns = {
        "id": [f"S{i}" for i in range(1, n + 1)],
        "name": ["site"] * n,
        "dwelling_category": ["housing"] * n,
        "source": ["t"] * n,
        "dwellings": [10] * n,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a .dbf launders long column names
        pyogrio.raw.write(
            path,
            np.array(squares, dtype=object),
            [np.array(v) for v in columns.values()],
            fields=list(columns),
            geometry_type="Polygon",
            crs="EPSG:27700",
            driver="GPKG" if path.suffix == ".gpkg" else "ESRI Shapefile",
        )
    return path
