"""The small layers (catchments, works, LPAs, subcatchments, EDPs, exclusions): whole or as needed.

An unknown bundle is read whole when it is opened, so that any bad feature is refused before
a job starts. A bundle already vouched for (``validation_record``) is read lazily instead:
opening reads only the layers' R-tree boxes, and a site decodes just the features near it,
each once per process. Realistic layers hold millions of vertices, and decoding them all
would cost a fresh process far more than its first job. Both give the same features in the
same (fid) order; the R-tree's boxes are rounded outwards, so they may name a few more
candidates, which every caller tests for a real intersection anyway.
"""

from __future__ import annotations

import itertools
import sqlite3
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray

from nrf.adapters.boundary_data import geopackage_cells
from nrf.adapters.boundary_data.geopackage_blob import BlobError, decode_blobs
from nrf.adapters.boundary_data.geopackage_schema import TableSchema, q
from nrf.adapters.boundary_data.shared_outlines import SharedOutlines
from nrf.domain.errors import BrokenBundle
from nrf.domain.model import EdpPolygon, ExcludedArea, NnCatchment, Zone

ZONE_COLUMN = {
    "wwtw_catchments": "wwtw_id",
    "lpa_boundaries": "name",
    "subcatchments": "opcat_name",
}
SMALL_LAYERS = ("nn_catchments", *ZONE_COLUMN, "edp_boundaries", "excluded_areas")
_POLYGON = int(shapely.GeometryType.POLYGON)
_MULTIPOLYGON = int(shapely.GeometryType.MULTIPOLYGON)
_POLYGONAL = (_POLYGON, _MULTIPOLYGON)

_MAX_KEYS = 900  # host parameters a statement may bind: SQLite before 3.32 allows 999
Row = dict[str, Any]
Connect = Callable[[], sqlite3.Connection]


def decode_checked(
    layer: str, keys: list[Any], blobs: list[bytes | None], check_valid: bool = True
) -> NDArray[np.object_]:
    """Decode blobs; BrokenBundle naming each feature that is missing, not polygonal or invalid.

    ``check_valid`` False skips only the validity check, for layers already found valid in
    this very file (see ``validation_record``); missing and non-polygonal are always checked.
    """
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
    if not check_valid:
        return geoms
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


def prepared_features(
    name: str, rows: list[Row], check_valid: bool, shared: SharedOutlines | None = None
) -> list[Any]:
    """Decoded, checked and prepared features of ``rows`` (each with "_key" and "_geom");
    with ``shared``, an outline another layer already holds is that layer's object."""
    blobs = [r["_geom"] for r in rows]
    geoms = decode_checked(name, [r["_key"] for r in rows], blobs, check_valid)
    if shared is not None:
        shared.share(blobs, geoms)
    # Prepared once here (their indexes are built lazily, on first use), so every site's
    # intersects / contains_properly test against these outlines is an indexed one.
    shapely.prepare(geoms)
    out: list[Any] = []
    problems: list[str] = []
    for row, geom in zip(rows, geoms, strict=True):
        if name == "edp_boundaries":
            edp_id = geopackage_cells.whole_number(row["edp_id"])
            edp_name = geopackage_cells.text_or_none(row["edp_name"])
            if edp_id is None or edp_name is None:
                problems.append(
                    f"layer '{name}' fid {row['_key']} needs a whole-number edp_id and an "
                    f"edp_name; it has {row['edp_id']!r} and {row['edp_name']!r}"
                )
                continue
            out.append(EdpPolygon(geom, edp_id, edp_name))
            continue
        if name == "excluded_areas":
            # An unnamed excluded area is still excluded: a blank name is kept, not refused.
            out.append(ExcludedArea(geom, geopackage_cells.text_or_none(row["name"]) or ""))
            continue
        if name == "nn_catchments":
            site, edp = (
                geopackage_cells.text_or_none(row["n2k_site_name"]),
                geopackage_cells.edp_key(row["edp_id"]),
            )
            if site is None or edp is None:
                problems.append(f"layer '{name}' fid {row['_key']} has no n2k_site_name/edp_id")
                continue
            label = geopackage_cells.text_or_none(row.get("label")) or ""
            out.append(NnCatchment(geometry=geom, n2k_site_name=site, edp_id=edp, label=label))
            continue
        column = ZONE_COLUMN[name]
        value: str | int | None = (
            geopackage_cells.whole_number(row[column])
            if name == "wwtw_catchments"
            else geopackage_cells.text_or_none(row[column])
        )
        if value is None:
            problems.append(f"layer '{name}' fid {row['_key']} has no usable {column}")
            continue
        out.append(Zone(geom, value))
    if problems:
        raise BrokenBundle("; ".join(problems))
    return out


def select_rows(table: TableSchema) -> tuple[str, list[str]]:
    """SQL selecting a layer's key, wanted columns and geometry; the names in that order."""
    wanted = {**table.columns, "_geom": table.geometry_column or ""}
    names = ", ".join(q(stored) for stored in wanted.values())
    return f"SELECT {q(table.key)}, {names} FROM {q(table.name)}", ["_key", *wanted]


def per_envelope(
    tree: shapely.STRtree, envelopes: NDArray[np.object_], keys: NDArray[np.int64] | None = None
) -> list[list[int]]:
    """The tree's indices (or their ``keys``, ascending with them) each envelope's box meets,
    ascending: one array query for every envelope instead of one query each."""
    found, hit = tree.query(envelopes)
    order = np.lexsort((hit, found))
    found, hit = found[order], hit[order]
    edges = np.searchsorted(found, np.arange(len(envelopes) + 1)).tolist()
    hits = (hit if keys is None else keys[hit]).tolist()
    return [hits[a:b] for a, b in itertools.pairwise(edges)]


class EagerLayer:
    """A whole small layer with an STRtree over its envelopes."""

    def __init__(
        self, name: str, rows: list[Row], check_valid: bool, shared: SharedOutlines | None = None
    ) -> None:
        self.features = prepared_features(name, rows, check_valid, shared)
        self.tree = shapely.STRtree([f.geometry for f in self.features])

    def near(self, envelope: shapely.Geometry) -> tuple[Any, ...]:
        return tuple(self.features[i] for i in sorted(self.tree.query(envelope)))

    def near_each(self, envelopes: NDArray[np.object_]) -> list[tuple[Any, ...]]:
        """``near`` of every envelope, from one query of the tree."""
        features = self.features
        return [tuple(features[i] for i in hits) for hits in per_envelope(self.tree, envelopes)]


class LazyLayer:
    """A trusted small layer: features decoded on first need, found through the R-tree.

    The first few lookups ask SQLite's R-tree directly (tens of microseconds each), so a
    fresh process's first job does not wait for every box of the layer; after that the boxes
    are read once into an STRtree, which answers a batch's lookups faster. Both compare the
    same stored boxes inclusively, so they name the same features.
    """

    SQL_LOOKUPS = 16

    def __init__(
        self,
        name: str,
        table: TableSchema,
        connect: Connect,
        shared: SharedOutlines | None = None,
    ) -> None:
        self.name = name
        self._shared = shared
        self._connect = connect
        self._rtree = q(table.rtree or "")
        self._tree: tuple[NDArray[np.int64], shapely.STRtree] | None = None
        self._lookups = 0
        self._sql, self._names = select_rows(table)
        self._key = q(table.key)
        self._cache: dict[int, Any] = {}
        self._lock = threading.Lock()

    def _boxes(self) -> tuple[NDArray[np.int64], shapely.STRtree]:
        rows = self._connect().execute(f"SELECT id, minx, miny, maxx, maxy FROM {self._rtree}")
        boxes = np.array(rows.fetchall(), dtype=float).reshape(-1, 5)
        boxes = boxes[np.argsort(boxes[:, 0], kind="stable")]
        return boxes[:, 0].astype(np.int64), shapely.STRtree(shapely.box(*boxes[:, 1:].T))

    def _fids(self, envelope: shapely.Geometry) -> list[int]:
        if self._tree is None and self._lookups < self.SQL_LOOKUPS:
            self._lookups += 1
            minx, miny, maxx, maxy = shapely.bounds(envelope).tolist()
            found = self._connect().execute(
                f"SELECT id FROM {self._rtree} WHERE minx <= ? AND maxx >= ? "
                "AND miny <= ? AND maxy >= ? ORDER BY id",
                (maxx, minx, maxy, miny),
            )
            return [int(r[0]) for r in found]
        if self._tree is None:
            self._tree = self._boxes()
        ids, tree = self._tree
        # An array of one geometry: the same matches as a scalar query, without the ~1.5 µs
        # the scalar path spends reshaping its argument (six queries per site).
        return list(ids[np.sort(tree.query(np.array([envelope]))[1])].tolist())

    def near(self, envelope: shapely.Geometry) -> tuple[Any, ...]:
        fids = self._fids(envelope)
        missing = [f for f in fids if f not in self._cache]
        if missing:
            self._load(missing)
        return tuple(self._cache[f] for f in fids if f in self._cache)

    def near_each(self, envelopes: NDArray[np.object_]) -> list[tuple[Any, ...]]:
        """``near`` of every envelope; past the first few lookups, one query of the tree."""
        if self._tree is None and self._lookups + len(envelopes) <= self.SQL_LOOKUPS:
            return [self.near(e) for e in envelopes]
        if self._tree is None:
            self._tree = self._boxes()
        ids, tree = self._tree
        each = per_envelope(tree, envelopes, ids)
        cache = self._cache
        missing = sorted({f for fids in each for f in fids if f not in cache})
        if missing:
            self._load(missing)
        return [tuple(cache[f] for f in fids if f in cache) for fids in each]

    def _load(self, fids: list[int]) -> None:
        for start in range(0, len(fids), _MAX_KEYS):
            self._load_some(fids[start : start + _MAX_KEYS])

    def _load_some(self, fids: list[int]) -> None:
        marks = ", ".join("?" * len(fids))
        sql = f"{self._sql} WHERE {self._key} IN ({marks}) ORDER BY {self._key}"
        rows = [dict(zip(self._names, r, strict=True)) for r in self._connect().execute(sql, fids)]
        loaded = prepared_features(self.name, rows, check_valid=False, shared=self._shared)
        with self._lock:
            for row, feature in zip(rows, loaded, strict=True):
                self._cache.setdefault(int(row["_key"]), feature)
