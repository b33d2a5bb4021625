"""The in-memory floor: every coefficient polygon decoded once into a shapely STRtree."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import shapely

from benchmarks import figures
from benchmarks.timing import log, median, repeat_ms, repeat_ms_cpu, timed
from benchmarks.workload import Workload
from nrf.adapters.boundary_data.geopackage_blob import decode_blobs
from nrf.domain.land_use import piece_areas
from nrf.domain.model import Development
from nrf.domain.rules import RuleSet

COLUMNS = "lu_curr_n_coeff, lu_curr_p_coeff, n_resi_coeff, p_resi_coeff"


def load_layer(bundle: Path, chunk: int = 500_000) -> tuple[np.ndarray, np.ndarray]:
    """(geometries, coefficients as an n x 4 float array with NaN for NULL), in fid order."""
    db = sqlite3.connect(f"{bundle.resolve().as_uri()}?mode=ro", uri=True)
    geoms: list[np.ndarray] = []
    values: list[np.ndarray] = []
    cursor = db.execute(f"SELECT geom, {COLUMNS} FROM land_use_coefficients ORDER BY fid")
    while rows := cursor.fetchmany(chunk):
        geoms.append(decode_blobs([r[0] for r in rows]))
        values.append(np.array([r[1:] for r in rows], dtype=float))
        log(f"floor: decoded {sum(len(g) for g in geoms):,} polygons")
    db.close()
    return np.concatenate(geoms), np.concatenate(values)


def _coef(v: float) -> float | None:
    return None if np.isnan(v) else float(v)


class Floor:
    """Land-use pieces straight from memory: STRtree query, then the same two overlays."""

    def __init__(self, bundle: Path) -> None:
        self.geoms, self.values = load_layer(bundle)
        self.tree = shapely.STRtree(self.geoms)
        db = sqlite3.connect(f"{bundle.resolve().as_uri()}?mode=ro", uri=True)
        blobs = [r[0] for r in db.execute("SELECT geom FROM nn_catchments ORDER BY fid")]
        db.close()
        self.nn = decode_blobs(blobs)
        shapely.prepare(self.nn)

    def rows(self, boundary: Any) -> list[figures.PieceRow]:
        hits = np.sort(self.tree.query(boundary, predicate="intersects"))
        nn = self.nn[shapely.intersects(self.nn, boundary)]
        if hits.size == 0 or nn.size == 0:
            return []
        parts = shapely.intersection(boundary, self.geoms[hits])
        # The same inside-the-catchment shortcut as nrf (bit-identical; the floor's point is
        # the least work that gives the exact figures).
        areas = piece_areas(parts, nn)
        out: list[figures.PieceRow] = []
        for i, j in zip(*np.nonzero(areas > 0.0), strict=True):
            v = self.values[hits[i]]
            out.append((float(areas[i, j]), *(_coef(x) for x in v)))  # type: ignore[arg-type]
        return out


def run(bundle: Path, workload: Workload, rules: RuleSet, repeats: int) -> dict[str, Any]:
    setup_ms, floor = timed(lambda: Floor(bundle))

    def assess(devs: list[Development]) -> dict[int, figures.Figures]:
        return {d.rlb_id: figures.from_pieces(d, floor.rows(d.boundary), rules) for d in devs}

    return measure(setup_ms, assess, workload, repeats)


def measure(
    setup_ms: float,
    assess: Callable[[list[Development]], dict[int, figures.Figures]],
    workload: Workload,
    repeats: int,
    small_repeats: int | None = None,
    n_random: int | None = None,
    server_pids: tuple[int, ...] = (),
) -> dict[str, Any]:
    """The shared scenarios for methods that compute land-use figures per site."""
    small_ms, small = repeat_ms(lambda: assess(workload.small), small_repeats or repeats * 10)
    bnw_ms, bnw_cpu, bnw = repeat_ms_cpu(lambda: assess(workload.bnw), repeats, server_pids)
    randoms = workload.random[: n_random or len(workload.random)]
    out = {f"small:{k}": v for k, v in small.items()} | {f"bnw:{k}": v for k, v in bnw.items()}
    per_site = []
    started = time.perf_counter()
    for dev in randoms:
        ms, got = timed(lambda d=dev: assess([d]))  # type: ignore[misc]
        per_site.append(round(ms, 3))
        out[f"random:{dev.rlb_id}"] = got[dev.rlb_id]
    total_s = time.perf_counter() - started
    return {
        "setup_ms": round(setup_ms, 3),
        "small_ms": small_ms,
        "small_median_ms": median(small_ms),
        "bnw_ms": bnw_ms,
        "bnw_median_ms": median(bnw_ms),
        "bnw_cpu_ms": bnw_cpu,
        "bnw_cpu_median_ms": median(bnw_cpu),
        "random_n": len(randoms),
        "random_seconds": round(total_s, 3),
        "random_jobs_per_s": round(len(randoms) / total_s, 1) if total_s else None,
        "random_median_ms": median(per_site),
        "figures": out,
    }
