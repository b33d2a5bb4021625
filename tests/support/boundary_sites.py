"""Boundary files written as a GIS would save them: ``n`` squares with every column."""

from __future__ import annotations

import sqlite3
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pyogrio.raw
from shapely.geometry import box

from support.reference import STRIP_ORIGIN

X, Y = STRIP_ORIGIN


def write_sites(path: Path, n: int) -> Path:
    """``n`` 100 m squares 200 m apart, rows of 500 going north, in EPSG:27700; a .gpkg or a
    .shp by the suffix."""
    corners = [(X + 200 * (i % 500), Y + 200 * (i // 500)) for i in range(n)]
    squares = [box(x, y, x + 100, y + 100).wkb for x, y in corners]
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


def stale_geopackage(rows: int, claimed: int | None) -> bytes:
    """A GeoPackage of ``rows`` sites whose gpkg_ogr_contents says ``claimed``."""
    with tempfile.TemporaryDirectory() as folder:
        path = write_sites(Path(folder) / "sites.gpkg", rows)
        with sqlite3.connect(path) as db:
            db.execute("UPDATE gpkg_ogr_contents SET feature_count = ?", (claimed,))
        db.close()
        return path.read_bytes()


RECURSIVE = (
    "WITH RECURSIVE n(fid) AS (SELECT 1 UNION ALL SELECT fid + 1 FROM n) "
    "SELECT n.fid AS fid, s.geom AS geom, s.id AS id FROM n, real_sites AS s"
)


def with_view(path: Path, view_sql: str) -> Path:
    """The file's one layer replaced by a view of the same name, registered as GDAL expects."""
    write_sites(path, 1)
    with sqlite3.connect(path) as db:
        [(layer,)] = db.execute("SELECT table_name FROM gpkg_contents").fetchall()
        db.execute(f'ALTER TABLE "{layer}" RENAME TO real_sites')
        db.execute(f'CREATE VIEW "{layer}" AS {view_sql}')
    db.close()
    return path


def recursive_view_geopackage() -> bytes:
    """A GeoPackage whose layer is a view that never ends (a 98 kB file burnt a core)."""
    with tempfile.TemporaryDirectory() as folder:
        return with_view(Path(folder) / "sites.gpkg", RECURSIVE).read_bytes()


def long_rows_geopackage(path: Path, rows: int = 700, characters: int = 64_000) -> Path:
    """A GeoPackage of ``rows`` sites whose ``name`` is ``characters`` long: each value within
    the longest any column may hold (64 KiB), 45 MB in all, for GDAL to hold and copy into
    Python (one 45 MB value is refused before GDAL reads it)."""
    corners = [(X + 200 * (i % 500), Y + 200 * (i // 500)) for i in range(rows)]
    columns = {
        "id": [f"S{i}" for i in range(1, rows + 1)],
        "name": ["x" * characters] * rows,
        "dwellings": [10] * rows,
    }
    pyogrio.raw.write(
        path,
        np.array([box(x, y, x + 100, y + 100).wkb for x, y in corners], dtype=object),
        [np.array(v, dtype=object if k != "dwellings" else None) for k, v in columns.items()],
        fields=list(columns),
        geometry_type="Polygon",
        crs="EPSG:27700",
        driver="GPKG",
    )
    return path
