"""Stream the delivered coefficient GeoPackage in fid order, a chunk at a time, with sqlite3.

The production layer has 5.46 M polygons: it is never held whole. A GeoPackage is SQLite, so a
cursor over its table hands out bounded chunks at C speed, and its CRS is read from
``gpkg_geometry_columns``; no GDAL round trip is needed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from attrs import frozen

from nrf.bundles.delivery import check_crs, source_path
from nrf.bundles.manifest import Source
from nrf.bundles.qc.report import QcReport

KEY = "land_use_coefficients"


@frozen
class CoefficientChunk:
    """Source fids, GeoPackage geometry blobs and one list per column role."""

    fids: list[int]
    blobs: list[bytes | None]
    columns: dict[str, list[Any]]


class CoefficientSource:
    """An open coefficient layer; ``chunks`` streams it."""

    def __init__(self, db: sqlite3.Connection, sql: str, count: int, roles: list[str]) -> None:
        self._db = db
        self._sql = sql
        self.count = count
        self._roles = roles

    def chunks(self, size: int) -> Iterator[CoefficientChunk]:
        cursor = self._db.execute(self._sql)
        while rows := cursor.fetchmany(size):
            columns = {role: [r[2 + k] for r in rows] for k, role in enumerate(self._roles)}
            yield CoefficientChunk([r[0] for r in rows], [r[1] for r in rows], columns)

    def close(self) -> None:
        self._db.close()


def open_coefficients(root: Path, source: Source, report: QcReport) -> CoefficientSource | None:
    """The layer ready to stream, or None with findings naming what is missing."""
    path = source_path(root, source)
    if not path.exists():
        report.add("source_missing", KEY, source.path, "file not found")
        return None
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        opened = _open(db, source, report)
    except sqlite3.DatabaseError as exc:
        report.add("source_missing", KEY, source.path, f"not a GeoPackage ({exc})")
        opened = None
    if opened is None:
        db.close()
    return opened


def _open(db: sqlite3.Connection, source: Source, report: QcReport) -> CoefficientSource | None:
    layer = str(source.layer).casefold()
    found = db.execute(
        "SELECT g.table_name, g.column_name, s.organization, s.organization_coordsys_id "
        "FROM gpkg_geometry_columns g LEFT JOIN gpkg_spatial_ref_sys s ON s.srs_id = g.srs_id "
        "WHERE lower(g.table_name) = ?",
        (layer,),
    ).fetchone()
    if found is None:
        report.add("source_missing", KEY, f"{source.path}:{source.layer}", "no such layer")
        return None
    table, geom, org, org_id = found
    epsg = int(org_id) if str(org).upper() == "EPSG" and org_id is not None else None
    crs_ok = check_crs(KEY, epsg if epsg not in (0, -1) else None, source, report)
    info = db.execute(f'PRAGMA table_info("{table}")').fetchall()
    have = {str(r[1]).casefold(): str(r[1]) for r in info}
    key = next((str(r[1]) for r in info if r[5] == 1), "rowid")
    missing = [c for c in source.columns.values() if c.casefold() not in have]
    for column in missing:
        report.add("source_missing", KEY, f"{source.layer}.{column}", f"no column '{column}'")
    if missing or not crs_ok:
        return None
    names = ", ".join(f'"{have[c.casefold()]}"' for c in source.columns.values())
    sql = f'SELECT "{key}", "{geom}", {names} FROM "{table}" ORDER BY "{key}"'
    count = int(db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])
    return CoefficientSource(db, sql, count, list(source.columns))
