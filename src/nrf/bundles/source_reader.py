"""Read Defra's ``iat_input/`` delivery as it ships: shapefiles by pyogrio, SQLite by sqlite3.

Nothing is cleaned here: values come back as stored, so the cleaning (and its report) happens
in one place. A missing file, layer, table or column, or a layer with no CRS, becomes a
finding rather than an exception, so one run names every gap in a delivery.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyogrio
import pyproj
from attrs import field, frozen
from numpy.typing import NDArray
from pyogrio.raw import read as raw_read

from nrf.bundles.manifest import Source
from nrf.bundles.qc.report import QcReport
from nrf.bundles.source_checks import (
    UNREADABLE,
    matched_columns,
    one_line,
    part,
    shapefile_parts_present,
    undeclared_text,
)
from nrf.bundles.source_text import StoredText, decoded_row
from nrf.bundles.zip_member import shapefile_member
from nrf.domain.bng import BNG, BNG_EPSG

Row = dict[str, Any]


@frozen(kw_only=True)
class VectorLayer:
    """A small layer read whole: geometries as WKB, source fids, and one list per column role;
    ``names`` is each role's column as the file spells it (its case, or an alternative name)."""

    fids: NDArray[np.int64]
    wkb: list[bytes | None]
    columns: dict[str, list[Any]]
    names: dict[str, str] = field(factory=dict)


def source_path(root: Path, source: Source) -> Path:
    return root / source.path


def _opened(path: Path, source: Source) -> tuple[str | Path, str | None]:
    """What GDAL opens, and the layer to ask it for: a zipped shapefile by its member, since
    GDAL does not look into a folder inside the zip (an export tool's usual shape)."""
    member = shapefile_member(path, source.layer) if path.suffix.casefold() == ".zip" else None
    if member is None:
        return path, source.layer
    return f"/vsizip/{path.resolve().as_posix()}/{member}", None


def _epsg(crs_text: str | None) -> int | None:
    if not crs_text:
        return None
    try:
        return pyproj.CRS.from_user_input(crs_text).to_epsg(min_confidence=70)
    except pyproj.exceptions.CRSError:
        return None


def check_crs(key: str, found: int | None, source: Source, report: QcReport) -> bool:
    """A layer must be in EPSG:27700; one without a CRS needs the manifest to say it is."""
    epsg = found if found is not None else source.crs
    if epsg is None:
        report.add(
            "source_crs",
            key,
            source.path,
            "no CRS; give one with crs = 27700 in the "
            f"manifest's [sources.{key}] if the layer really is British National Grid",
        )
        return False
    if epsg != BNG_EPSG:
        report.add("source_crs", key, source.path, f"in EPSG:{epsg}, not {BNG}")
        return False
    return True


def read_vector(root: Path, key: str, source: Source, report: QcReport) -> VectorLayer | None:
    """The whole layer, or None (with findings) when it is missing or unusable."""
    path = source_path(root, source)
    if not path.exists():
        if not source.optional:
            report.add("source_missing", key, source.path, "file not found")
        return None
    if not path.is_file():
        report.add("source_corrupt", key, source.path, "not a file (a folder?)")
        return None
    if not shapefile_parts_present(key, path, source, report):
        return None
    opened, layer = _opened(path, source)
    try:
        info = pyogrio.read_info(opened, layer=layer)
    except UNREADABLE as exc:
        report.add("source_corrupt", key, source.path, f"unreadable: {one_line(exc)}")
        return None
    stored = {str(name).casefold(): str(name) for name in info["fields"]}
    if not stored and path.suffix.casefold() == ".shp":
        dbf = part(path, ".dbf")
        report.add("source_corrupt", key, dbf.name, "the .dbf holds no columns (empty or damaged)")
        return None
    wanted = matched_columns(key, source, stored, report)
    prj = part(path, ".prj")
    if info["crs"] is None and source.crs is None and prj.is_file():
        report.add("source_corrupt", key, prj.name, "the .prj holds no CRS pyproj can read")
        return None
    crs_ok = check_crs(key, _epsg(info["crs"]), source, report)
    if wanted is None or not crs_ok:
        return None
    # Two roles may read one column (a catchment's label falls back on its N2K site), and the
    # reader returns each column once: read each once, then hand it to every role that asked.
    distinct = list(dict.fromkeys(wanted))
    try:
        _, fids, wkb, values = raw_read(opened, layer=layer, columns=distinct, return_fids=True)
    except UNREADABLE as exc:  # a truncated .dbf or .shp fails only when its rows are read
        report.add("source_corrupt", key, source.path, f"unreadable: {one_line(exc)}")
        return None
    columns = {
        role: [None if _is_nan(v) else v for v in values[distinct.index(stored)].tolist()]
        for role, stored in zip(source.columns, wanted, strict=True)
    }
    stored_columns = dict(zip(wanted, columns.values(), strict=True))
    if undeclared_text(key, path, [int(f) for f in fids], stored_columns, report):
        return None
    names = dict(zip(source.columns, wanted, strict=True))
    return VectorLayer(
        fids=np.asarray(fids, dtype=np.int64), wkb=list(wkb), columns=columns, names=names
    )


def _is_nan(value: object) -> bool:
    return isinstance(value, float) and value != value


@contextlib.contextmanager
def _sqlite(path: Path) -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        yield db
    finally:
        db.close()


def _columns(db: sqlite3.Connection, table: str) -> dict[str, str]:
    return {str(r[1]).casefold(): str(r[1]) for r in db.execute(f'PRAGMA table_info("{table}")')}


def read_table(root: Path, key: str, source: Source, report: QcReport) -> list[Row] | None:
    """Rows of a lookup table as {role: stored value, "_row": rowid}, or None with findings."""
    path = source_path(root, source)
    if not path.exists():
        report.add("source_missing", key, source.path, "file not found")
        return None
    if not path.is_file():
        report.add("source_corrupt", key, source.path, "not a file (a folder?)")
        return None
    try:
        with _sqlite(path) as db:
            return _read_rows(db, key, source, report)
    except sqlite3.DatabaseError as exc:
        report.add("source_corrupt", key, source.path, f"not a readable SQLite file: {exc}")
        return None


def _read_rows(
    db: sqlite3.Connection, key: str, source: Source, report: QcReport
) -> list[Row] | None:
    tables = {
        str(n).casefold(): str(n)
        for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table','view')")
    }
    table = tables.get(str(source.layer).casefold())
    if table is None:
        report.add("source_missing", key, f"{source.path}:{source.layer}", "no such table")
        return None
    wanted = matched_columns(key, source, _columns(db, table), report, place=f"{table}.")
    if wanted is None:
        return None
    names = ", ".join(f'"{c}"' for c in wanted)
    db.text_factory = StoredText  # decoded here, so a non-UTF-8 value names its row, column
    cursor = db.execute(f'SELECT rowid, {names} FROM "{table}" ORDER BY rowid')
    rows: list[Row] = []
    for rowid, *values in cursor:
        decoded = decoded_row(values, wanted, f"row {rowid}", key, report)
        if all(v is None or (isinstance(v, str) and not v.strip()) for v in decoded):
            report.add("cleaned", key, f"row {rowid}", "blank row (every column empty): dropped")
            continue
        rows.append({"_row": rowid, **dict(zip(source.columns, decoded, strict=True))})
    return rows
