"""Ways a real Defra delivery arrives broken, each applied to the small fixture delivery.

A breakage changes the rows before they are written (``FixtureData``), the files after, or
both: ``Breakage.before`` and ``Breakage.after`` (which gets the delivery root and the paths
``write_delivery`` returned). Files are damaged the way downloads and exports damage them:
cut short, emptied, replaced by a proxy's HTML error page, saved in another encoding.
"""

from __future__ import annotations

import sqlite3
import struct
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import geopandas as gpd
import pyogrio
import shapely
from attrs import frozen

from support.delivery import COEFF_PATH, LOOKUPS_PATH, SHP, X0, Y0, FixtureData

Paths = dict[str, Path]
HTML = b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body></body></html>\n"


@frozen
class Breakage:
    before: Callable[[FixtureData], None] | None = None
    after: Callable[[Path, Paths], None] | None = None


def cell(data: FixtureData, cromeid: str) -> int:
    return next(i for i, r in enumerate(data.coefficients) if r[1] == cromeid)


def set_cell(data: FixtureData, cromeid: str, position: int, value: object) -> None:
    """Column ``position`` of coefficient row ``cromeid`` (0 geometry, 5 LU_CurrNcoeff, ...)."""
    i = cell(data, cromeid)
    row = list(data.coefficients[i])
    row[position] = value
    data.coefficients[i] = tuple(row)


def cut_short(path: Path, keep: float = 0.5) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])


def lookups_sql(root: Path, statement: str) -> None:
    with closing(sqlite3.connect(root / LOOKUPS_PATH)) as db, db:
        db.executescript(statement)


def coefficients_sql(root: Path, statement: str, *args: object) -> None:
    """Change the coefficient GeoPackage; GDAL's triggers need its SQL functions, so drop them."""
    with closing(sqlite3.connect(root / COEFF_PATH)) as db, db:
        triggers = db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall()
        for (name,) in triggers:
            db.execute(f'DROP TRIGGER "{name}"')
        db.execute(statement, args)


def gpkg_blob(wkb: bytes) -> bytes:
    """A GeoPackage geometry blob (no envelope, little-endian, EPSG:27700) around ``wkb``."""
    return b"GP" + struct.pack("<BBi", 0, 1, 27700) + wkb


def rewrite_shapefile(root: Path, key: str, change: Callable[[gpd.GeoDataFrame], object]) -> None:
    path = root / SHP[key]
    frame = gpd.read_file(path)
    frame = change(frame)
    for suffix in (".shp", ".shx", ".dbf", ".prj", ".cpg"):
        path.with_suffix(suffix).unlink(missing_ok=True)
    pyogrio.write_dataframe(frame, path)


def sidecar(key: str, suffix: str) -> Callable[[Path, Paths], Path]:
    return lambda root, _: (root / SHP[key]).with_suffix(suffix)


def polygon_z(x0: float, y0: float, x1: float, y1: float) -> shapely.Geometry:
    return shapely.force_3d(shapely.box(X0 + x0, Y0 + y0, X0 + x1, Y0 + y1), 12.5)
