"""Write a GeoPackage with plain sqlite3: fast bulk layers, R-tree indexes, atomic publish.

Over 200 lines: the GeoPackage tables, R-tree triggers and atomic publish belong to one writer.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

import numpy as np
import pyproj
import shapely
from attrs import field, frozen

from nrf.adapters.boundary_data.geopackage_blob import encode_geometries

APPLICATION_ID = 0x47504B47  # "GPKG"
USER_VERSION = 10300  # GeoPackage 1.3
CACHE_KIB = 256 * 1024
RTREE_EXTENSION = "gpkg_rtree_index"
RTREE_DEFINITION = "http://www.geopackage.org/spec120/#extension_rtree"

Columns = Sequence[tuple[str, str]]  # (name, SQLite type) pairs


def _q(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


_CORE_DDL = """
CREATE TABLE gpkg_spatial_ref_sys (
  srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL,
  organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
CREATE TABLE gpkg_contents (
  table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
  description TEXT DEFAULT '', last_change DATETIME NOT NULL
    DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,
  CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
CREATE TABLE gpkg_geometry_columns (
  table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
  srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
  CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
  CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
  CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
CREATE TABLE gpkg_extensions (
  table_name TEXT, column_name TEXT, extension_name TEXT NOT NULL, definition TEXT NOT NULL,
  scope TEXT NOT NULL,
  CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name));
"""


class GeoPackageWriter:
    """Streams layers and tables into a new GeoPackage; nothing appears at ``path`` until close.

    The R-tree is filled directly rather than through the spec's triggers: a bundle is a
    read-only artefact, and triggers would need GDAL's ST_* SQL functions to edit it later.
    """

    def __init__(
        self, path: str | Path, *, epsg: int = 27700, timestamp: str | None = None
    ) -> None:
        self.path = Path(path)
        self.epsg = epsg
        self._stamp = timestamp or _now()  # fixed by callers that want reproducible files
        self._tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        self._tmp.unlink(missing_ok=True)
        self._db = sqlite3.connect(self._tmp, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=OFF")
        self._db.execute("PRAGMA synchronous=OFF")
        # A 5 M-entry R-tree is ~200 MB; with SQLite's default 2 MB cache every insert
        # re-reads its nodes from the OS. Memory, not disk, is what a big build can spare.
        self._db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        self._db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        self._db.execute(f"PRAGMA user_version={USER_VERSION}")
        self._db.executescript(_CORE_DDL)
        self._db.execute("BEGIN")
        self._insert_srs()
        self._layers: dict[str, _LayerState] = {}

    def _insert_srs(self) -> None:
        crs = pyproj.CRS.from_epsg(self.epsg)
        rows: list[tuple[str, int, str, int, str, str | None]] = [
            ("Undefined cartesian SRS", -1, "NONE", -1, "undefined", "undefined cartesian"),
            ("Undefined geographic SRS", 0, "NONE", 0, "undefined", "undefined geographic"),
            (
                "WGS 84 geodetic",
                4326,
                "EPSG",
                4326,
                pyproj.CRS.from_epsg(4326).to_wkt("WKT1_GDAL"),
                "longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid",
            ),
        ]
        if self.epsg not in (-1, 0, 4326):
            rows.append((crs.name, self.epsg, "EPSG", self.epsg, crs.to_wkt("WKT1_GDAL"), None))
        self._db.executemany("INSERT INTO gpkg_spatial_ref_sys VALUES (?,?,?,?,?,?)", rows)

    def create_layer(
        self,
        name: str,
        columns: Columns,
        *,
        geometry_type: str = "POLYGON",
        geometry_column: str = "geom",
    ) -> None:
        """Declare a feature layer with its attribute ``columns``."""
        cols = "".join(f", {_q(c)} {t}" for c, t in columns)
        self._db.execute(
            f"CREATE TABLE {_q(name)} (fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "
            f"{_q(geometry_column)} {geometry_type}{cols})"
        )
        rtree = f"rtree_{name}_{geometry_column}"
        self._db.execute(
            f"CREATE VIRTUAL TABLE {_q(rtree)} USING rtree(id, minx, maxx, miny, maxy)"
        )
        self._db.execute(
            "INSERT INTO gpkg_contents (table_name, data_type, identifier, last_change, srs_id)"
            " VALUES (?, 'features', ?, ?, ?)",
            (name, name, self._stamp, self.epsg),
        )
        self._db.execute(
            "INSERT INTO gpkg_geometry_columns VALUES (?, ?, ?, ?, 0, 0)",
            (name, geometry_column, geometry_type, self.epsg),
        )
        self._db.execute(
            "INSERT INTO gpkg_extensions VALUES (?, ?, ?, ?, 'write-only')",
            (name, geometry_column, RTREE_EXTENSION, RTREE_DEFINITION),
        )
        self._layers[name] = _LayerState(
            [c for c, _ in columns], geometry_column, rtree, next_fid=1
        )

    def append_features(
        self,
        layer: str,
        geometries: Sequence[object] | np.ndarray,
        attributes: Mapping[str, Sequence[object] | np.ndarray] | None = None,
    ) -> None:
        """Add features: one geometry per row and one sequence per attribute column."""
        state = self._layers[layer]
        geoms = np.asarray(geometries, dtype=object)
        n = len(geoms)
        attributes = attributes or {}
        unknown = set(attributes) - set(state.columns)
        if unknown:
            raise ValueError(f"layer {layer!r} has no columns {sorted(unknown)}")
        values = [_as_python(attributes.get(c), n) for c in state.columns]
        fids = range(state.next_fid, state.next_fid + n)
        state.next_fid += n
        blobs = encode_geometries(geoms, self.epsg)
        placeholders = ", ".join("?" * (len(state.columns) + 2))
        names = ", ".join(_q(c) for c in ["fid", state.geometry_column, *state.columns])
        self._db.executemany(
            f"INSERT INTO {_q(layer)} ({names}) VALUES ({placeholders})",
            zip(fids, blobs, *values, strict=True),
        )
        bounds = shapely.bounds(geoms)
        keep = ~np.isnan(bounds[:, 0]) if n else np.zeros(0, dtype=bool)
        if keep.any():
            kept = bounds[keep]
            fid_arr = np.arange(fids.start, fids.stop)[keep]
            self._db.executemany(
                f"INSERT INTO {_q(state.rtree)} VALUES (?, ?, ?, ?, ?)",
                zip(
                    fid_arr.tolist(),
                    kept[:, 0].tolist(),
                    kept[:, 2].tolist(),
                    kept[:, 1].tolist(),
                    kept[:, 3].tolist(),
                    strict=True,
                ),
            )
            state.extend(kept.min(axis=0), kept.max(axis=0))

    @property
    def connection(self) -> sqlite3.Connection:
        """The connection to the unpublished file, so it can be checked before ``close``."""
        return self._db

    def flush(self) -> None:
        """Commit what is written so far, still in the hidden file, so other connections
        (quality-gate workers) can read it before ``close`` publishes it."""
        self._db.execute("COMMIT")
        self._db.execute("BEGIN")

    def create_table(self, name: str, columns: Columns, rows: Iterable[Sequence[object]]) -> None:
        """Write an attribute (non-spatial) table in one go."""
        cols = "".join(f", {_q(c)} {t}" for c, t in columns)
        self._db.execute(
            f"CREATE TABLE {_q(name)} (fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL{cols})"
        )
        self._db.execute(
            "INSERT INTO gpkg_contents (table_name, data_type, identifier, last_change)"
            " VALUES (?, 'attributes', ?, ?)",
            (name, name, self._stamp),
        )
        names = ", ".join(_q(c) for c, _ in columns)
        self._db.executemany(
            f"INSERT INTO {_q(name)} ({names}) VALUES ({', '.join('?' * len(columns))})",
            (tuple(r) for r in rows),
        )

    def close(self) -> Path:
        """Record layer extents, commit, and move the file into place."""
        for name, state in self._layers.items():
            if state.lo is not None and state.hi is not None:
                self._db.execute(
                    "UPDATE gpkg_contents SET min_x=?, min_y=?, max_x=?, max_y=? "
                    "WHERE table_name=?",
                    (
                        float(state.lo[0]),
                        float(state.lo[1]),
                        float(state.hi[2]),
                        float(state.hi[3]),
                        name,
                    ),
                )
        self._db.execute("COMMIT")
        self._db.close()
        os.replace(self._tmp, self.path)
        return self.path

    def abort(self) -> None:
        """Drop the half-written file."""
        with contextlib.suppress(sqlite3.Error):
            self._db.close()
        self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> GeoPackageWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


class _LayerState:
    def __init__(self, columns: list[str], geometry_column: str, rtree: str, next_fid: int):
        self.columns = columns
        self.geometry_column = geometry_column
        self.rtree = rtree
        self.next_fid = next_fid
        self.lo: np.ndarray | None = None
        self.hi: np.ndarray | None = None

    def extend(self, lo: np.ndarray, hi: np.ndarray) -> None:
        self.lo = lo if self.lo is None else np.minimum(self.lo, lo)
        self.hi = hi if self.hi is None else np.maximum(self.hi, hi)


@frozen(kw_only=True)
class Layer:
    """A feature layer held in memory: geometries plus one sequence per attribute column."""

    name: str
    columns: Columns
    geometries: Sequence[object] = field(repr=False)
    attributes: Mapping[str, Sequence[object]] = field(factory=dict, repr=False)
    geometry_type: str = "POLYGON"


@frozen
class Table:
    """An attribute table: its rows held in memory, or produced as they are written (once)."""

    name: str
    columns: Columns
    rows: Iterable[Sequence[object]] = field(repr=False)


def _as_python(column: Sequence[object] | np.ndarray | None, n: int) -> list[object]:
    """sqlite3 only binds Python scalars, so numpy columns become lists (NaN -> NULL)."""
    if column is None:
        return [None] * n
    if isinstance(column, np.ndarray):
        if column.dtype.kind == "f":
            return [None if v != v else v for v in column.tolist()]
        return list(column.tolist())
    values = list(column)
    if len(values) != n:
        raise ValueError(f"attribute column has {len(values)} values for {n} geometries")
    return values
