"""Rules over the big coefficient layer, in bounded memory: SQL where it can, tiles where not.

Keys, value ranges and missing geometries are single SQL scans at C speed. Geometry validity,
overlaps and NN-catchment coverage need the polygons, so they are read tile by tile through the
layer's R-tree; a tile is split until it holds at most ``TILE_FEATURES`` polygons, so memory
stays bounded whatever the layer's size or density.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Mapping

import numpy as np
import shapely

from nrf.adapters.boundary_data.geopackage_schema import TableSchema, q
from nrf.bundles.qc.geometry import check_geometries, decode
from nrf.bundles.qc.overlaps import Tile, overlapping_pairs
from nrf.bundles.qc.report import QcReport

LAYER = "land_use_coefficients"
TILE_FEATURES = 100_000
RANGES = {
    "lu_curr_n_coeff": 50.0,
    "n_resi_coeff": 50.0,
    "lu_curr_p_coeff": 5.0,
    "p_resi_coeff": 5.0,
}
Progress = Callable[[int, int], None]


def check_values(db: sqlite3.Connection, t: TableSchema, report: QcReport) -> None:
    """Source keys present and unique; coefficients numbers in range; every row has a geometry."""
    key = _key_sql(db, t)
    table, fid = q(t.name), q(t.key)
    if key == fid:
        report.add("no_source_key", LAYER, "-", "no cromeid column: rows are named by fid")
    else:
        sql = f"SELECT {fid} FROM {table} WHERE {key} IS NULL OR trim({key}) = ''"
        for (row,) in db.execute(sql):
            report.add("key_missing", LAYER, f"fid {row}", "no cromeid")
        sql = (
            f"SELECT {key}, count(*), group_concat({fid}) FROM {table} WHERE {key} IS NOT NULL "
            f"AND trim({key}) != '' GROUP BY {key} HAVING count(*) > 1"
        )
        for value, count, fids in db.execute(sql):
            report.add("key_duplicate", LAYER, value, f"cromeid on {count} rows (fids {fids})")
    for wanted, top in RANGES.items():
        col = q(t.columns[wanted])
        sql = (
            f"SELECT {key}, {col} FROM {table} WHERE {col} IS NOT NULL AND "
            f"(typeof({col}) NOT IN ('integer', 'real') OR {col} < 0 OR {col} > {top})"
        )
        for name, value in db.execute(sql):
            report.add("coefficient_range", LAYER, name, f"{wanted} = {value!r}, not in [0, {top}]")
    rtree = q(t.rtree or "")
    sql = f"SELECT t.{fid}, {key} FROM {table} t LEFT JOIN {rtree} r ON r.id = t.{fid} "
    for _, name in db.execute(sql + "WHERE r.id IS NULL"):
        report.add("geometry_missing", LAYER, name, "no geometry (NULL or empty)")


def _key_sql(db: sqlite3.Connection, t: TableSchema) -> str:
    columns = {
        str(r[1]).casefold(): str(r[1]) for r in db.execute(f"PRAGMA table_info({q(t.name)})")
    }
    return q(columns["cromeid"]) if "cromeid" in columns else q(t.key)


def _tiles(db: sqlite3.Connection, rtree: str, tile: Tile, count: int) -> Iterator[Tile]:
    if count <= TILE_FEATURES or tile.x1 - tile.x0 < 1.0:
        yield tile
        return
    for part in tile.quarters():
        n = db.execute(f"SELECT count(*) FROM {rtree} WHERE " + _OWNED, _args(part)).fetchone()[0]
        if n:
            yield from _tiles(db, rtree, part, n)


_OWNED = "minx >= ? AND minx < ? AND miny >= ? AND miny < ?"
_MEETS = "r.minx < ? AND r.maxx >= ? AND r.miny < ? AND r.maxy >= ?"


def _args(t: Tile) -> tuple[float, float, float, float]:
    return (t.x0, t.x1, t.y0, t.y1)


def check_tiles(
    db: sqlite3.Connection,
    t: TableSchema,
    catchments: Mapping[str, shapely.Geometry],
    report: QcReport,
    progress: Progress | None = None,
) -> None:
    """Validity, overlaps and coverage share of each NN catchment (gaps are warnings)."""
    rtree, key = q(t.rtree or ""), _key_sql(db, t)
    extent = db.execute(f"SELECT min(minx), min(miny), max(maxx), max(maxy), count(*) FROM {rtree}")
    x0, y0, x1, y1, total = extent.fetchone()
    names = list(catchments)
    areas = np.zeros(len(names))
    zones = np.asarray([catchments[n] for n in names], dtype=object)
    shapely.prepare(zones)
    zone_tree = shapely.STRtree(zones)
    sql = (
        f"SELECT t.{q(t.key)}, {key.replace(q(t.key), 't.' + q(t.key))}, "
        f"t.{q(t.geometry_column or '')}, r.minx, r.miny FROM {rtree} r "
        f"JOIN {q(t.name)} t ON t.{q(t.key)} = r.id WHERE {_MEETS}"
    )
    done = 0
    root = Tile(x0, y0, x1 + 1.0, y1 + 1.0) if total else Tile(0, 0, 0, 0)
    for tile in _tiles(db, rtree, root, total or 0) if total else ():
        rows = db.execute(sql, (tile.x1, tile.x0, tile.y1, tile.y0)).fetchall()
        names_of = [r[1] for r in rows]
        geoms = decode(LAYER, names_of, [r[2] for r in rows], report)
        owned = tile.holds(np.array([r[3] for r in rows]), np.array([r[4] for r in rows]))
        own_idx = np.flatnonzero(owned)
        good_own = check_geometries(
            LAYER, [names_of[i] for i in own_idx], geoms[own_idx], report, extent=False
        )
        good = np.zeros(len(rows), dtype=bool)
        good[~owned] = shapely.is_valid(geoms[~owned]) & shapely.get_type_id(geoms[~owned]) >= 3
        good[own_idx] = good_own
        g_idx = np.flatnonzero(good)
        for i, j, area in overlapping_pairs(geoms[g_idx], tile):
            a, b = names_of[g_idx[i]], names_of[g_idx[j]]
            report.add("overlap", LAYER, f"{a} / {b}", f"{a} and {b} overlap by {area:.2f} m2")
        _cover(geoms[own_idx[good_own]], zones, zone_tree, areas)
        done += len(own_idx)
        del rows, geoms
        if progress is not None:
            progress(done, total)
    _report_coverage(names, zones, areas, report)


def _cover(polys: np.ndarray, zones: np.ndarray, tree: shapely.STRtree, areas: np.ndarray) -> None:
    """Add to ``areas`` the part of each polygon inside each catchment."""
    if not len(polys):
        return
    p, z = tree.query(polys, predicate="intersects")
    inside = shapely.contains_properly(zones[z], polys[p])
    np.add.at(areas, z[inside], shapely.area(polys[p[inside]]))
    edge = ~inside
    if edge.any():
        cut = shapely.area(shapely.intersection(polys[p[edge]], zones[z[edge]]))
        np.add.at(areas, z[edge], cut)


def _report_coverage(
    names: list[str], zones: np.ndarray, covered: np.ndarray, report: QcReport
) -> None:
    shares: dict[str, float] = {}
    for name, zone, area in zip(names, zones, covered, strict=True):
        share = float(area / zone.area) if zone.area else 0.0
        shares[name] = round(share, 6)
        if share < 0.9999:
            report.add("coverage_gap", LAYER, name, f"coefficient polygons cover {share:.2%}")
    report.figures["nn_catchment_coverage"] = shares
