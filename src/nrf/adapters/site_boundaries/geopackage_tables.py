"""What a GeoPackage really holds, asked of SQLite itself, within a deadline, before GDAL reads it.

A GeoPackage is a database, so a small file can hold endless work: a recursive view, a view
or computed column over ``zeroblob``, a stale ``gpkg_ogr_contents`` count that makes GDAL stop
after the counted rows (3 sites quoted as 1) or wave 200,000 rows past the feature limit.
So the file may hold only plain tables without computed columns, its rows are counted with
``count(*)`` and must agree with the stored count, each geometry's vertices are counted
from its bytes (a geometry that cannot be counted is refused) and no value may be longer than
``MAX_VALUE_BYTES``; every statement runs read-only under a progress handler that interrupts it
at the deadline. GDAL then reads a table whose size is known.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from nrf.adapters.site_boundaries.ogr_rows import MAX_VALUE_BYTES
from nrf.adapters.site_boundaries.unreadable_file import unreadable_message
from nrf.adapters.site_boundaries.wkb_vertices import gpkg_vertices
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.validation import InputLimits

_VIRTUAL_COLUMN = 2  # PRAGMA table_xinfo's "hidden" for a column computed on every read


def _refuse(code: str, message: str) -> InvalidInput:
    return InvalidInput([Problem(code=code, message=message)])


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _short(name: str) -> str:
    return repr(name) if len(name) <= 60 else repr(name[:57] + "...")


@contextmanager
def opened(
    path: Path, limits: InputLimits, clock: Callable[[], float] = time.monotonic
) -> Iterator[sqlite3.Connection]:
    """The file opened read-only; a statement still running at the deadline is interrupted."""
    deadline = clock() + limits.max_read_seconds
    uri = path.resolve().as_uri() + "?mode=ro&immutable=1"
    try:
        connection = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as error:
        raise _refuse("unreadable_file", unreadable_message(error, ".gpkg")) from None
    try:
        connection.set_progress_handler(lambda: int(clock() > deadline), 1_000)
        # Found by fuzzing: a name stored as bytes that are not UTF-8 raised UnicodeDecodeError.
        connection.text_factory = lambda raw: raw.decode("utf-8", "replace")
        # No value (a blob, a text) may be larger than a whole upload may expand to.
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, limits.max_decompressed_bytes)
        yield connection
    except sqlite3.OperationalError as error:
        if "interrupted" in str(error):
            message = f"reading the GeoPackage took over {limits.max_read_seconds:g} s; a "
            message += "boundary layer is a plain table and reads in well under a second"
            raise _refuse("read_timed_out", message) from None
        raise _refuse("unreadable_file", unreadable_message(error, ".gpkg")) from None
    except (sqlite3.Error, UnicodeDecodeError) as error:  # found by fuzzing: SQLite's message
        # about a damaged schema can hold bytes that are not UTF-8
        raise _refuse("unreadable_file", unreadable_message(error, ".gpkg")) from None
    finally:
        connection.close()


def check_plain_tables(path: Path, limits: InputLimits) -> None:
    """The GeoPackage holds only plain tables: no view, no virtual table but GDAL's spatial
    index (rtree), no column computed on read; each of those can cost without bound to read."""
    with opened(path, limits) as db:
        schema = db.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'view')"
        ).fetchall()
        for kind, name, sql in schema:
            text = " ".join(str(sql or "").upper().split())
            if kind == "view":
                message = f"the GeoPackage holds a view ({_short(str(name))}); a boundary layer "
                raise _refuse("layer_not_a_table", message + "is a table: save it as one")
            if text.startswith("CREATE VIRTUAL TABLE"):
                if " USING RTREE" not in text:
                    message = f"the GeoPackage holds a virtual table ({_short(str(name))}); a "
                    raise _refuse("layer_not_a_table", message + "boundary layer is a table")
                continue
            columns = db.execute(f"PRAGMA table_xinfo({_quoted(str(name))})").fetchall()
            if any(column[6] == _VIRTUAL_COLUMN for column in columns):
                message = f"the GeoPackage table {_short(str(name))} has columns computed on "
                raise _refuse("layer_not_a_table", message + "every read; save it as plain data")


def check_layer_rows(path: Path, layer: str, limits: InputLimits) -> int:
    """The layer's real row count, after refusing a stale stored count, too many rows, or
    geometries with more vertices than ``limits`` allow."""
    with opened(path, limits) as db:
        rows = int(db.execute(f"SELECT count(*) FROM {_quoted(layer)}").fetchone()[0])
        stored = _stored_count(db, layer)
        if stored is not None and stored != rows:
            plural = "" if stored == 1 else "s"
            message = (
                f"the GeoPackage says its layer {_short(layer)} holds {stored:,} feature{plural} "
            )
            message += f"(gpkg_ogr_contents) but the table has {rows:,} rows, so sites would "
            message += "be lost; save the layer again from your GIS"
            raise _refuse("source_corrupt", message)
        if rows > limits.max_features:
            message = f"the file has {rows:,} features; at most {limits.max_features:,} are allowed"
            raise _refuse("too_many_features", message)
        geometry = _check_vertices(db, layer, limits)
        _check_values(db, layer, geometry)
    return rows


def _uncountable(feature: int) -> InvalidInput:
    """A geometry whose vertices cannot be counted from its bytes (SpatiaLite's encoding, a
    GeoPackage "extended" type) would be built by GDAL unchecked: 318 kB zipped cost 370 MB."""
    message = f"feature {feature}: the geometry is not stored as standard GeoPackage WKB "
    message += "(it may be SpatiaLite's encoding or an extended type), so it cannot be checked "
    message += "before it is read; save the layer again as a standard GeoPackage"
    problem = Problem(code="invalid_geometry", message=message, feature=feature, field="geometry")
    return InvalidInput([problem])


def _check_values(db: sqlite3.Connection, layer: str, geometry: str | None) -> None:
    """No attribute value is longer than ``MAX_VALUE_BYTES``: a site's text is at most 500
    characters, and an unused 100 MB column would otherwise be read, and copied from the
    reading child, in full (it cost 199 MB)."""
    names = [
        str(column[1])
        for column in db.execute(f"PRAGMA table_info({_quoted(layer)})").fetchall()
        if geometry is None or str(column[1]).lower() != geometry.lower()
    ]
    if not names:
        return
    lengths = ", ".join(f"max(length(CAST({_quoted(name)} AS BLOB)))" for name in names)
    found = db.execute(f"SELECT {lengths} FROM {_quoted(layer)}").fetchone()
    for name, longest in zip(names, found, strict=True):
        if longest is not None and longest > MAX_VALUE_BYTES:
            message = f"the column {_short(name)} holds a value of {longest:,} bytes; at most "
            message += f"{MAX_VALUE_BYTES:,} are allowed in any column (a site's text is at "
            message += "most 500 characters)"
            raise _refuse("invalid_text", message)


def _stored_count(db: sqlite3.Connection, layer: str) -> int | None:
    try:
        row = db.execute(
            "SELECT feature_count FROM gpkg_ogr_contents WHERE lower(table_name) = lower(?)",
            (layer,),
        ).fetchone()
    except sqlite3.OperationalError as error:
        if "interrupted" in str(error):
            raise
        return None  # no such table: GDAL counts the rows itself
    return None if row is None or row[0] is None else int(row[0])


def _check_vertices(db: sqlite3.Connection, layer: str, limits: InputLimits) -> str | None:
    """Refuse too many vertices, counted from the geometry bytes; the geometry column."""
    found = db.execute(
        "SELECT column_name FROM gpkg_geometry_columns WHERE lower(table_name) = lower(?)",
        (layer,),
    ).fetchone()
    if found is None:
        return None
    total = 0
    cap = limits.max_vertices_per_feature
    query = f"SELECT {_quoted(str(found[0]))} FROM {_quoted(layer)}"
    for feature, (blob,) in enumerate(db.execute(query), start=1):
        vertices = gpkg_vertices(blob, cap) if isinstance(blob, bytes) else None
        if vertices is None and blob is not None:
            raise _uncountable(feature)
        if vertices is not None and vertices > cap:
            message = f"feature {feature}: geometry has over {cap:,} vertices; at most "
            message += f"{cap:,} are allowed"
            raise InvalidInput(
                [
                    Problem(
                        code="too_many_vertices", message=message, feature=feature, field="geometry"
                    )
                ]
            )
        total += vertices or 0
        if total > limits.max_total_vertices:
            message = f"the file has over {limits.max_total_vertices:,} vertices in all; at "
            message += f"most {limits.max_total_vertices:,} are allowed"
            raise _refuse("too_many_vertices", message)
    return str(found[0])
