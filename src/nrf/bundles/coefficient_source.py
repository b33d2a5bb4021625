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

from nrf.bundles.manifest import Source
from nrf.bundles.qc.report import QcReport
from nrf.bundles.source_checks import matched_columns
from nrf.bundles.source_reader import check_crs, source_path
from nrf.bundles.source_text import ENCODING, StoredText, bad_utf8

KEY = "land_use_coefficients"


@frozen
class CoefficientChunk:
    """Source fids, GeoPackage geometry blobs and one list per column role."""

    fids: list[int]
    blobs: list[bytes | None]
    columns: dict[str, list[Any]]


class SourceUnreadable(Exception):
    """The layer broke while it was streamed (a corrupt page, text that is not UTF-8)."""

    def __init__(self, code: str, key: str, detail: str) -> None:
        super().__init__(detail)
        self.code, self.key, self.detail = code, key, detail


class CoefficientSource:
    """An open coefficient layer; ``chunks`` streams it."""

    def __init__(
        self,
        db: sqlite3.Connection,
        sql: str,
        count: int,
        roles: list[str],
        *,
        path: str,
        columns: list[str],
    ) -> None:
        self._db = db
        self._columns = columns  # as stored, to name them in a finding
        self._sql = sql
        self.count = count
        self._roles = roles
        self._path = path

    @property
    def names(self) -> dict[str, str]:
        """Each role's column as the file spells it."""
        return dict(zip(self._roles, self._columns, strict=True))

    def chunks(self, size: int) -> Iterator[CoefficientChunk]:
        """Chunks in fid order; SourceUnreadable if the file turns out broken part-way."""
        last: object = None
        try:
            cursor = self._db.execute(self._sql)
            while rows := cursor.fetchmany(size):
                columns = {role: [r[2 + k] for r in rows] for k, role in enumerate(self._roles)}
                last = rows[-1][0]
                yield CoefficientChunk([r[0] for r in rows], [r[1] for r in rows], columns)
        except sqlite3.DatabaseError as exc:
            raise self._broken(exc, last) from None

    def _broken(self, exc: sqlite3.DatabaseError, last: object) -> SourceUnreadable:
        if "decode" not in str(exc):
            return SourceUnreadable("source_corrupt", self._path, f"unreadable part-way: {exc}")
        # Find the row and column whose text is not UTF-8, reading the bytes as stored.
        self._db.text_factory = StoredText
        after = "" if last is None else f" fid after {last}"
        for row in self._db.execute(self._sql):
            if last is not None and row[0] <= last:
                continue
            for column, value in zip(self._columns, row[2:], strict=True):
                problem = bad_utf8(value) if isinstance(value, StoredText) else None
                if problem is not None:
                    detail = f"source fid {row[0]}: {column} {value!r}: {problem}"
                    return SourceUnreadable(ENCODING, self._path, detail)
        return SourceUnreadable(ENCODING, self._path, f"text that is not UTF-8{after}")

    def close(self) -> None:
        self._db.close()


def open_coefficients(root: Path, source: Source, report: QcReport) -> CoefficientSource | None:
    """The layer ready to stream, or None with findings naming what is missing."""
    path = source_path(root, source)
    if not path.exists():
        report.add("source_missing", KEY, source.path, "file not found")
        return None
    if not path.is_file():
        report.add("source_corrupt", KEY, source.path, "not a file (a folder?)")
        return None
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        opened = _open(db, source, report)
    except sqlite3.DatabaseError as exc:
        report.add("source_corrupt", KEY, source.path, f"not a readable GeoPackage ({exc})")
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
    wanted = matched_columns(KEY, source, have, report, place=f"{source.layer}.")
    if wanted is None or not crs_ok:
        return None
    names = ", ".join(f'"{c}"' for c in wanted)
    sql = f'SELECT "{key}", "{geom}", {names} FROM "{table}" ORDER BY "{key}"'
    count = int(db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])
    return CoefficientSource(db, sql, count, list(source.columns), path=source.path, columns=wanted)
