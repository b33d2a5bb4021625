"""BoundaryDataRepository over a bundle GeoPackage: small layers in memory, the rest by R-tree.

Over 200 lines: opening, checking and querying the bundle share one connection's state.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import shapely

from nrf.adapters.boundary_data import geopackage_cells, geopackage_lookups
from nrf.adapters.boundary_data.bundle_digest import file_sha256, unchanged_digest
from nrf.adapters.boundary_data.geopackage_schema import (
    COEFFICIENT_COLUMNS,
    COEFFICIENT_LAYER,
    TableSchema,
    check_schema,
    q,
)
from nrf.adapters.boundary_data.shared_outlines import SharedOutlines
from nrf.adapters.boundary_data.small_layers import (
    SMALL_LAYERS,
    EagerLayer,
    LazyLayer,
    decode_checked,
    select_rows,
)
from nrf.adapters.boundary_data.validation_record import record_valid, trusted_layers
from nrf.domain.errors import BrokenBundle
from nrf.domain.model import (
    Boundary,
    BundleInfo,
    CoefficientParcels,
    Coefficients,
    LookupTables,
    SiteReferenceData,
)

_INFO_COLUMNS = ("name", "version", "created", "description")
_STORED_NUMBER = {float, type(None)}
BOXES_PER_QUERY = 180  # five parameters a box: under SQLite's oldest limit of 999 a statement


def _coefficient(value: object) -> float | None:
    # Real coefficient layers hold stray text; like the source loader, it counts as NULL.
    try:
        return geopackage_cells.number(value)
    except ValueError:
        return None


def coefficient_values(rows: list[Any]) -> list[Coefficients]:
    """Each row's four coefficients (columns 2-5), a value that is no finite number as None.

    The common case, every value a stored finite REAL or NULL, is checked once for all the
    rows, which then keep their own tuples; one stray value sends them through ``_coefficient``.
    """
    values: list[Coefficients] = [row[2:6] for row in rows]
    flat = list(itertools.chain.from_iterable(values))
    if set(map(type, flat)) <= _STORED_NUMBER:
        unset = np.flatnonzero(~np.isfinite(np.array(flat, dtype=float)))  # None is NaN here
        if all(flat[i] is None for i in unset.tolist()):
            return values
    c = _coefficient
    return [(c(a), c(b), c(n), c(p)) for a, b, n, p in values]


class GeoPackageBoundaryData:
    """Reads one bundle: validated at construction, then one R-tree query per site."""

    def __init__(self, path: str | Path, verified: str | None = None) -> None:
        """``verified``: the digest the worker's start-up step verified or computed, stamped
        with the file's size and mtime (``bundle_digest.stamped_digest``); used while they match,
        so no process of the worker hashes the bundle again."""
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
        # A bundle checked before (same digest) opens lazily; any other is checked in full.
        trusted = trusted_layers(self.path)
        self._outlines = SharedOutlines()  # an EDP drawn on catchment outlines: one object
        self._small = {name: self._small_layer(name, trusted) for name in SMALL_LAYERS}
        if not trusted.issuperset(SMALL_LAYERS):
            record_valid(self.path, SMALL_LAYERS)
        self._check_coefficients = COEFFICIENT_LAYER not in trusted
        self._lookups, self._info = self._load_tables()
        self._sha256 = unchanged_digest(self.path, verified) if verified else None
        coeff = schema[COEFFICIENT_LAYER]
        cols = ", ".join(f"t.{q(coeff.columns[c])}" for c in COEFFICIENT_COLUMNS)
        self._coefficient_sql = (
            f"SELECT t.{q(coeff.key)}, t.{q(coeff.geometry_column or '')}, {cols} "
            f"FROM {q(coeff.rtree or '')} r JOIN {q(coeff.name)} t ON t.{q(coeff.key)} = r.id "
            "WHERE r.minx <= ? AND r.maxx >= ? AND r.miny <= ? AND r.maxy >= ?"
        )
        # The same per box for many boxes; CROSS JOIN keeps the boxes the outer loop.
        self._window_sql = (
            "WITH boxes(site, minx, maxx, miny, maxy) AS (VALUES {values}) "  # filled per chunk
            f"SELECT t.{q(coeff.key)}, t.{q(coeff.geometry_column or '')}, {cols}, boxes.site "
            f"FROM boxes CROSS JOIN {q(coeff.rtree or '')} r "
            f"JOIN {q(coeff.name)} t ON t.{q(coeff.key)} = r.id "
            "WHERE r.minx <= boxes.maxx AND r.maxx >= boxes.minx "
            "AND r.miny <= boxes.maxy AND r.maxy >= boxes.miny"
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
        # One dict per row straight from the tuple (the national permit table has ~4,000).
        keys = ("_key", *wanted)
        return [dict(zip(keys, r, strict=True)) for r in cursor]

    def _small_layer(self, name: str, trusted: frozenset[str]) -> EagerLayer | LazyLayer:
        table = self._schema[name]
        if name in trusted:
            return LazyLayer(name, table, self._connection, self._outlines)
        sql, names = select_rows(table)
        cursor = self._connection().execute(f"{sql} ORDER BY {q(table.key)}")
        rows = [dict(zip(names, r, strict=True)) for r in cursor]
        return EagerLayer(name, rows, True, self._outlines)

    def _load_tables(self) -> tuple[LookupTables, list[str]]:
        problems: list[str] = []
        s = self._schema
        permits = geopackage_lookups.permits(self._rows(s["wwtw_permits"]), problems)
        rates = geopackage_lookups.rates(self._rows(s["occupancy_rates"]), problems)
        charges = geopackage_lookups.levy_charges(self._rows(s["levy_charges"]), problems)
        index = geopackage_lookups.inflation_index(self._rows(s["levy_inflation_index"]), problems)
        settings = self._rows(s["levy_settings"])
        vat = geopackage_lookups.vat_rate(settings, problems)
        rounding = geopackage_lookups.levy_rounding(settings, problems)
        edps = geopackage_lookups.edp_names(self._rows(s["edp_boundaries"]), problems)
        info_rows = self._rows(s["bundle_info"])
        if len(info_rows) != 1:
            problems.append(
                f"table 'bundle_info' must have exactly one row; it has {len(info_rows)}"
            )
        if problems or rates is None or vat is None:
            raise BrokenBundle(f"{self.path.name}: " + "; ".join(problems))
        info = [geopackage_cells.text_or_none(info_rows[0][c]) or "" for c in _INFO_COLUMNS]
        lookups = LookupTables(
            permits=permits,
            rates=rates,
            levy_charges=charges,
            inflation_index=index,
            vat_rate=vat,
            levy_rounding=rounding,
            edps=edps,
        )
        return lookups, info

    def info(self) -> BundleInfo:
        if self._sha256 is None:
            self._sha256 = file_sha256(self.path)
        name, version, created, description = self._info
        return BundleInfo(
            name=name,
            version=version,
            created=created,
            description=description,
            sha256=self._sha256,
        )

    def lookups(self) -> LookupTables:
        return self._lookups

    def reference_for(self, boundary: Boundary) -> SiteReferenceData:
        """One site's data: the scalar path, cheaper than a batch of one (a quote, a job)."""
        minx, miny, maxx, maxy = boundary.bounds
        envelope = shapely.box(minx, miny, maxx, maxy)
        rows = (
            self._connection().execute(self._coefficient_sql, (maxx, minx, maxy, miny)).fetchall()
        )
        return SiteReferenceData(
            nn_catchments=self._small["nn_catchments"].near(envelope),
            wwtw_catchments=self._small["wwtw_catchments"].near(envelope),
            lpa_boundaries=self._small["lpa_boundaries"].near(envelope),
            subcatchments=self._small["subcatchments"].near(envelope),
            coefficients=self._parcels(rows),
            edps=self._small["edp_boundaries"].near(envelope),
            excluded_areas=self._small["excluded_areas"].near(envelope),
        )

    def _parcels(self, rows: list[Any]) -> CoefficientParcels:
        """The coefficient polygons of rows read by ``_coefficient_sql``, decoded in one call."""
        geoms = decode_checked(
            COEFFICIENT_LAYER, [r[0] for r in rows], [r[1] for r in rows], self._check_coefficients
        )
        return CoefficientParcels(geometries=geoms, values=coefficient_values(rows))

    def _window_rows(self, boxes: list[list[float]]) -> tuple[list[Any], list[int]]:
        """The rows of every site's box, site by site, and how many each: one statement per
        ``BOXES_PER_QUERY`` sites (the R-tree asked once per box, as ``_coefficient_sql`` does,
        in the same order), not one per site."""
        db = self._connection()
        rows: list[Any] = []
        counts: list[int] = []
        for start in range(0, len(boxes), BOXES_PER_QUERY):
            chunk = boxes[start : start + BOXES_PER_QUERY]
            values = ", ".join(["(?, ?, ?, ?, ?)"] * len(chunk))
            found = db.execute(
                self._window_sql.replace("{values}", values),
                [v for i, (x0, y0, x1, y1) in enumerate(chunk) for v in (i, x0, x1, y0, y1)],
            ).fetchall()
            sites = np.array([row[-1] for row in found], dtype=np.intp)
            if (np.diff(sites) < 0).any():  # never seen: each box's rows are asked in turn
                raise BrokenBundle(f"{self.path.name}: the R-tree answered boxes out of turn")
            counts += np.bincount(sites, minlength=len(chunk)).tolist()
            rows += found
        return rows, counts

    def references_for(self, boundaries: Sequence[Boundary]) -> list[SiteReferenceData]:
        """Every site's reference data in one pass: the parcels decoded in one call, each
        small layer asked once for all the sites' boxes (per-site calls were ~20 % of a
        245-site batch's reading, issue 32). One site takes the scalar path."""
        if len(boundaries) <= 1:
            return [self.reference_for(b) for b in boundaries]
        bounds = shapely.bounds(np.asarray(boundaries, dtype=object))
        envelopes = shapely.box(bounds[:, 0], bounds[:, 1], bounds[:, 2], bounds[:, 3])
        rows, counts = self._window_rows(bounds.tolist())
        parcels = self._parcels(rows)
        near = {name: layer.near_each(envelopes) for name, layer in self._small.items()}
        ends = itertools.accumulate(counts)
        return [
            SiteReferenceData(
                nn_catchments=near["nn_catchments"][i],
                wwtw_catchments=near["wwtw_catchments"][i],
                lpa_boundaries=near["lpa_boundaries"][i],
                subcatchments=near["subcatchments"][i],
                coefficients=CoefficientParcels(
                    geometries=parcels.geometries[end - count : end],
                    values=parcels.values[end - count : end],
                ),
                edps=near["edp_boundaries"][i],
                excluded_areas=near["excluded_areas"][i],
            )
            for i, (count, end) in enumerate(zip(counts, ends, strict=True))
        ]
