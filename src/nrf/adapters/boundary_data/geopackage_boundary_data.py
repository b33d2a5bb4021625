"""BoundaryDataRepository over a bundle GeoPackage: small layers in memory, the rest by R-tree.

Over 200 lines: opening, checking and querying the bundle share one connection's state.
"""

from __future__ import annotations

import math
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray

from nrf.adapters.boundary_data import geopackage_lookups as clean
from nrf.adapters.boundary_data.bundle_digest import file_sha256
from nrf.adapters.boundary_data.geopackage_blob import BlobError, decode_blobs
from nrf.adapters.boundary_data.geopackage_schema import (
    COEFFICIENT_COLUMNS,
    COEFFICIENT_LAYER,
    TableSchema,
    check_schema,
    q,
)
from nrf.domain.errors import BrokenBundle
from nrf.domain.model import (
    Boundary,
    BundleInfo,
    CoefficientPolygon,
    LookupTables,
    NnCatchment,
    SiteReferenceData,
    Zone,
)

_ZONE_COLUMN = {
    "wwtw_catchments": "wwtw_id",
    "lpa_boundaries": "name",
    "subcatchments": "opcat_name",
}
_INFO_COLUMNS = ("name", "version", "created", "description")
_POLYGON = int(shapely.GeometryType.POLYGON)
_MULTIPOLYGON = int(shapely.GeometryType.MULTIPOLYGON)
_POLYGONAL = (_POLYGON, _MULTIPOLYGON)


class _SmallLayer:
    """A whole small layer with an STRtree over its envelopes."""

    def __init__(self, features: list[Any], geometries: NDArray[np.object_]) -> None:
        self.features = features
        self.tree = shapely.STRtree(geometries)

    def near(self, envelope: shapely.Geometry) -> tuple[Any, ...]:
        return tuple(self.features[i] for i in sorted(self.tree.query(envelope)))


def _geometries(layer: str, keys: list[Any], blobs: list[bytes | None]) -> NDArray[np.object_]:
    """Decode blobs; BrokenBundle naming each feature that is missing, not polygonal or invalid."""
    try:
        geoms = decode_blobs(blobs)
    except (BlobError, shapely.errors.GEOSException) as exc:
        raise BrokenBundle(f"layer '{layer}' has an unreadable geometry: {exc}") from None
    # One vectorised type check; the per-feature loop runs only to name what is wrong.
    types = shapely.get_type_id(geoms)
    # Two comparisons, not np.isin: this runs for every site and isin costs ~0.1 ms.
    if not ((types == _POLYGON) | (types == _MULTIPOLYGON)).all():
        problems: list[str] = []
        for key, geom in zip(keys, geoms, strict=True):
            if geom is None:
                problems.append(f"layer '{layer}' fid {key} has no geometry")
            elif shapely.get_type_id(geom) not in _POLYGONAL:
                problems.append(f"layer '{layer}' fid {key} is a {geom.geom_type}, not a polygon")
        raise BrokenBundle("; ".join(problems))
    invalid = np.flatnonzero(~shapely.is_valid(geoms))
    if len(invalid):
        raise BrokenBundle(
            "; ".join(
                f"layer '{layer}' fid {keys[i]} has an invalid geometry "
                f"({shapely.is_valid_reason(geoms[i])})"
                for i in invalid
            )
        )
    return geoms


def _coefficient(value: object) -> float | None:
    # The common case (a stored finite REAL) first: this runs four times per polygon read.
    if type(value) is float and math.isfinite(value):
        return value
    # Real coefficient layers hold stray text; like the source loader, it counts as NULL.
    try:
        return clean.number(value)
    except ValueError:
        return None


class GeoPackageBoundaryData:
    """Reads one bundle: validated at construction, then one R-tree query per site."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise BrokenBundle(f"bundle file not found: {self.path}")
        self._local = threading.local()
        try:
            schema, problems = check_schema(self._connection())
        except sqlite3.DatabaseError as exc:
            raise BrokenBundle(f"{self.path} is not a GeoPackage ({exc})") from None
        if problems:
            raise BrokenBundle(f"{self.path.name}: " + "; ".join(problems))
        self._schema = schema
        self._small = {name: self._load_small(name) for name in ("nn_catchments", *_ZONE_COLUMN)}
        self._lookups, self._info = self._load_tables()
        self._sha256: str | None = None
        coeff = schema[COEFFICIENT_LAYER]
        cols = ", ".join(f"t.{q(coeff.columns[c])}" for c in COEFFICIENT_COLUMNS)
        self._coefficient_sql = (
            f"SELECT t.{q(coeff.key)}, t.{q(coeff.geometry_column or '')}, {cols} "
            f"FROM {q(coeff.rtree or '')} r JOIN {q(coeff.name)} t ON t.{q(coeff.key)} = r.id "
            "WHERE r.minx <= ? AND r.maxx >= ? AND r.miny <= ? AND r.maxy >= ?"
        )

    def _connection(self) -> sqlite3.Connection:
        # One handle per thread (a handle must not be shared between threads) and per
        # process (a forked child must not use its parent's handle).
        local = self._local
        if getattr(local, "pid", None) != os.getpid():
            uri = f"{self.path.resolve().as_uri()}?mode=ro"
            local.db = sqlite3.connect(uri, uri=True)
            local.pid = os.getpid()
        db: sqlite3.Connection = local.db
        return db

    def _rows(
        self, table: TableSchema, extra: dict[str, str] | None = None
    ) -> list[dict[str, Any]]:
        """Every row as {wanted column: value}, plus "_key" and any ``extra`` stored columns."""
        wanted = {**table.columns, **(extra or {})}
        names = ", ".join(q(stored) for stored in wanted.values())
        cursor = self._connection().execute(
            f"SELECT {q(table.key)}, {names} FROM {q(table.name)} ORDER BY {q(table.key)}"
        )
        return [{"_key": r[0], **dict(zip(wanted, r[1:], strict=True))} for r in cursor]

    def _load_small(self, name: str) -> _SmallLayer:
        table = self._schema[name]
        rows = self._rows(table, {"_geom": table.geometry_column or ""})
        keys = [r["_key"] for r in rows]
        geoms = _geometries(name, keys, [r["_geom"] for r in rows])
        features: list[Any] = []
        problems: list[str] = []
        for row, geom in zip(rows, geoms, strict=True):
            if name == "nn_catchments":
                site, edp = clean.text_or_none(row["n2k_site_name"]), clean.edp_key(row["edp_id"])
                if site is None or edp is None:
                    problems.append(f"layer '{name}' fid {row['_key']} has no n2k_site_name/edp_id")
                    continue
                features.append(NnCatchment(geom, site, edp))
                continue
            column = _ZONE_COLUMN[name]
            value: str | int | None = (
                clean.whole_number(row[column])
                if name == "wwtw_catchments"
                else clean.text_or_none(row[column])
            )
            if value is None:
                problems.append(f"layer '{name}' fid {row['_key']} has no usable {column}")
                continue
            features.append(Zone(geom, value))
        if problems:
            raise BrokenBundle("; ".join(problems))
        return _SmallLayer(features, geoms)

    def _load_tables(self) -> tuple[LookupTables, list[str]]:
        problems: list[str] = []
        s = self._schema
        permits = clean.permits(self._rows(s["wwtw_permits"]), problems)
        rates = clean.rates(self._rows(s["occupancy_rates"]), problems)
        levies = clean.levy_rates(self._rows(s["levy_rates"]), problems)
        info_rows = self._rows(s["bundle_info"])
        if len(info_rows) != 1:
            problems.append(
                f"table 'bundle_info' must have exactly one row; it has {len(info_rows)}"
            )
        if problems or rates is None:
            raise BrokenBundle(f"{self.path.name}: " + "; ".join(problems))
        info = [clean.text_or_none(info_rows[0][c]) or "" for c in _INFO_COLUMNS]
        return LookupTables(permits, rates, levies), info

    def info(self) -> BundleInfo:
        if self._sha256 is None:
            self._sha256 = file_sha256(self.path)
        name, version, created, description = self._info
        return BundleInfo(name, version, created, description, self._sha256)

    def lookups(self) -> LookupTables:
        return self._lookups

    def reference_for(self, boundary: Boundary) -> SiteReferenceData:
        minx, miny, maxx, maxy = boundary.bounds
        envelope = shapely.box(minx, miny, maxx, maxy)
        rows = (
            self._connection().execute(self._coefficient_sql, (maxx, minx, maxy, miny)).fetchall()
        )
        geoms = _geometries(COEFFICIENT_LAYER, [r[0] for r in rows], [r[1] for r in rows])
        coefficients = tuple(
            CoefficientPolygon(geom, *(_coefficient(v) for v in row[2:]))
            for row, geom in zip(rows, geoms, strict=True)
        )
        return SiteReferenceData(
            nn_catchments=self._small["nn_catchments"].near(envelope),
            wwtw_catchments=self._small["wwtw_catchments"].near(envelope),
            lpa_boundaries=self._small["lpa_boundaries"].near(envelope),
            subcatchments=self._small["subcatchments"].near(envelope),
            coefficients=coefficients,
        )
