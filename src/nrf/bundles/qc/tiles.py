"""Geometry validity, overlaps and NN-catchment coverage of the coefficient layer, tile by tile.

The polygons are read through the layer's R-tree one tile at a time; a tile is split in four
until it holds at most ``TILE_FEATURES`` polygons, so memory stays bounded whatever the layer's
size or density. Tiles are independent, so they are shared out over ``processes`` forked
workers (each with its own read-only connection); their findings are merged in tile order, so
the report is the same whatever the number of processes.
"""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import numpy as np
import shapely
from attrs import frozen

from nrf.adapters.boundary_data.geopackage_schema import TableSchema, q
from nrf.bundles.qc.coefficients import LAYER, key_sql
from nrf.bundles.qc.delivered_file import DeliveredFile, delivered_file, in_file
from nrf.bundles.qc.geometry import POLYGONAL, check_geometries, decode
from nrf.bundles.qc.overlaps import Tile, overlapping_pairs
from nrf.bundles.qc.report import QcReport
from nrf.domain.errors import NrfError

TILE_FEATURES = 100_000
Progress = Callable[[int, int], None]
_OWNED = "minx >= ? AND minx < ? AND miny >= ? AND miny < ?"
_MEETS = "r.minx < ? AND r.maxx >= ? AND r.miny < ? AND r.maxy >= ?"


@frozen(kw_only=True)
class _Job:
    """What a tile worker needs: the file, the query, the catchments to measure cover of, and
    the delivered file its findings name."""

    path: str
    sql: str
    zones: Any  # ndarray of catchment geometries, in name order
    source: DeliveredFile | None


_job: _Job | None = None
_db: sqlite3.Connection | None = None


def _start(job: _Job) -> None:
    global _job, _db
    _job, _db = job, sqlite3.connect(f"file:{job.path}?mode=ro", uri=True)
    shapely.prepare(job.zones)


def tiles(db: sqlite3.Connection, rtree: str, tile: Tile, count: int) -> Iterator[Tile]:
    """``tile`` split in four, recursively, until each part owns at most TILE_FEATURES."""
    if count <= TILE_FEATURES or tile.x1 - tile.x0 < 1.0:
        yield tile
        return
    for part in tile.quarters():
        args = (part.x0, part.x1, part.y0, part.y1)
        n = db.execute(f"SELECT count(*) FROM {rtree} WHERE {_OWNED}", args).fetchone()[0]
        if n:
            yield from tiles(db, rtree, part, n)


def _check(tile: Tile) -> tuple[QcReport, np.ndarray, int]:
    """One tile's findings, the area of its polygons inside each catchment, and its count."""
    assert _job is not None and _db is not None
    report = QcReport()
    rows = _db.execute(_job.sql, (tile.x1, tile.x0, tile.y1, tile.y0)).fetchall()
    names = [r[1] for r in rows]
    source = _job.source
    geoms = decode(LAYER, names, [r[2] for r in rows], report, source=source)
    owned = tile.holds(np.array([r[3] for r in rows]), np.array([r[4] for r in rows]))
    own = np.flatnonzero(owned)
    good_own = check_geometries(
        LAYER, [names[i] for i in own], geoms[own], report, extent=False, source=source
    )
    good = np.zeros(len(rows), dtype=bool)
    others = geoms[~owned]
    good[~owned] = shapely.is_valid(others) & np.isin(shapely.get_type_id(others), POLYGONAL)
    good[own] = good_own
    kept = np.flatnonzero(good)
    for i, j, area in overlapping_pairs(geoms[kept], tile):
        a, b = names[kept[i]], names[kept[j]]
        what = f"{in_file(source)}{a} and {b} overlap by {area:.2f} m2"
        report.add("overlap", LAYER, f"{a} / {b}", what)
    return report, _cover(geoms[own[good_own]], _job.zones), len(own)


def _cover(polys: np.ndarray, zones: np.ndarray) -> np.ndarray:
    """Area of ``polys`` inside each catchment: whole when properly inside, else clipped."""
    areas = np.zeros(len(zones))
    if not len(polys) or not len(zones):
        return areas
    z, p = shapely.STRtree(polys).query(zones)
    inside = shapely.contains_properly(zones[z], polys[p])
    np.add.at(areas, z[inside], shapely.area(polys[p[inside]]))
    edge = ~inside & shapely.intersects(zones[z], polys[p])
    if edge.any():
        # Cut against the catchments clipped to these polygons' extent: far fewer vertices.
        near = shapely.buffer(shapely.box(*shapely.total_bounds(polys[p[edge]])), 1.0)
        clipped = shapely.intersection(zones, near)
        np.add.at(
            areas, z[edge], shapely.area(shapely.intersection(polys[p[edge]], clipped[z[edge]]))
        )
    return areas


class GateWorkerDied(NrfError):
    """A process checking tiles died: the gate cannot say the bundle is sound."""

    def __init__(self) -> None:
        super().__init__(
            "gate_worker_died",
            "a quality-gate worker process died (killed for memory, or crashed); "
            "nothing was written",
        )


def check_tiles(
    db: sqlite3.Connection,
    t: TableSchema,
    catchments: Mapping[str, shapely.Geometry],
    report: QcReport,
    progress: Progress | None = None,
    processes: int | None = None,
) -> None:
    """Validity, overlaps and each NN catchment's covered share (a gap is an error)."""
    rtree, key = q(t.rtree or ""), key_sql(db, t)
    extent = db.execute(f"SELECT min(minx), min(miny), max(maxx), max(maxy), count(*) FROM {rtree}")
    x0, y0, x1, y1, total = extent.fetchone()
    names = list(catchments)
    zones = np.asarray([catchments[n] for n in names], dtype=object)
    path = next(f for _, name, f in db.execute("PRAGMA database_list") if name == "main")
    sql = (
        f"SELECT t.{q(t.key)}, {key.replace(q(t.key), 't.' + q(t.key))}, "
        f"t.{q(t.geometry_column or '')}, r.minx, r.miny FROM {rtree} r "
        f"JOIN {q(t.name)} t ON t.{q(t.key)} = r.id WHERE {_MEETS}"
    )
    source = delivered_file(db, LAYER)
    job = _Job(path=path, sql=sql, zones=zones, source=source)
    plan = (
        list(tiles(db, rtree, Tile(x0=x0, y0=y0, x1=x1 + 1.0, y1=y1 + 1.0), total)) if total else []
    )
    workers = min(processes or os.cpu_count() or 1, len(plan))
    covered, done = np.zeros(len(names)), 0
    if workers > 1:
        # An executor, not a Pool: a worker that dies (the OOM killer, a crash in GEOS) breaks
        # it with an error, where a Pool would wait for the lost tile for ever.
        context = multiprocessing.get_context("fork")
        pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_start, initargs=(job,))
        try:
            results: Iterator[Any] = pool.map(_check, plan)
            for found, areas, count in results:
                covered, done = _merge(report, found, covered, areas, done, count, total, progress)
        except BrokenProcessPool:
            raise GateWorkerDied() from None
        finally:  # on Ctrl-C or SIGTERM too: drop the tiles not started, wait only for the rest
            pool.shutdown(wait=True, cancel_futures=True)
    else:
        _start(job)
        for tile in plan:
            found, areas, count = _check(tile)
            covered, done = _merge(report, found, covered, areas, done, count, total, progress)
    _report_coverage(names, zones, covered, report, in_file(source))


def _merge(
    report: QcReport,
    found: QcReport,
    covered: np.ndarray,
    areas: np.ndarray,
    done: int,
    count: int,
    total: int,
    progress: Progress | None,
) -> tuple[np.ndarray, int]:
    report.merge(found)
    if progress is not None:
        progress(done + count, total)
    return covered + areas, done + count


def _report_coverage(
    names: list[str], zones: np.ndarray, covered: np.ndarray, report: QcReport, where: str
) -> None:
    shares: dict[str, float] = {}
    for name, zone, area in zip(names, zones, covered, strict=True):
        share = float(area / zone.area) if zone.area else 0.0
        shares[name] = round(share, 6)
        if share < 0.9999:
            gap_ha = (zone.area - area) / 10_000
            report.add(
                "coverage_gap",
                LAYER,
                name,
                f"{where}coefficient polygons cover {share:.2%} of the catchment: {gap_ha:,.2f} ha "
                "has none, so a site there would lose its land-use figures; deliver the "
                "missing polygons",
            )
    report.figures["nn_catchment_coverage"] = shares
