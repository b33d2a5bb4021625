"""The naive method: read the whole coefficient layer with geopandas per job, then overlay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import geopandas as gpd
import pandas as pd
import pyogrio

from benchmarks import figures
from benchmarks.method_floor import measure
from benchmarks.timing import log
from benchmarks.workload import Workload
from nrf.domain.model import Development
from nrf.domain.rules import RuleSet

COEFFS = ["lu_curr_n_coeff", "lu_curr_p_coeff", "n_resi_coeff", "p_resi_coeff"]
# Beyond this the whole layer (about 0.8 KB per polygon in geopandas) and its overlay index
# would take minutes per job and several GB; the issue measured 51 s and 4.3 GB at 5.46 M.
MAX_POLYGONS = 1_100_000


def _coef(v: object) -> float | None:
    return None if pd.isna(v) else float(v)  # type: ignore[arg-type]


def assess(bundle: Path, devs: list[Development], rules: RuleSet) -> dict[int, figures.Figures]:
    """One job as the incumbent's first version ran it: everything read, then overlaid."""
    layer = pyogrio.read_dataframe(bundle, layer="land_use_coefficients", fid_as_index=True)
    layer = layer.reset_index(names="coef_fid")
    nn = pyogrio.read_dataframe(bundle, layer="nn_catchments")[["geometry"]]
    nn["nn_order"] = range(len(nn))
    sites = gpd.GeoDataFrame(
        {"rlb_id": [d.rlb_id for d in devs]}, geometry=[d.boundary for d in devs], crs=layer.crs
    )
    # Site first in each overlay, as nrf intersects: (site ∩ coefficient) ∩ catchment.
    parts = gpd.overlay(sites, layer, how="intersection", keep_geom_type=True)
    pieces = gpd.overlay(parts, nn, how="intersection", keep_geom_type=True)
    pieces["area_m2"] = pieces.geometry.area
    pieces = pieces.sort_values(["rlb_id", "coef_fid", "nn_order"])
    out: dict[int, figures.Figures] = {}
    by_site = {k: g for k, g in pieces.groupby("rlb_id")}
    for dev in devs:
        group = by_site.get(dev.rlb_id)
        rows = (
            []
            if group is None
            else [
                (float(r.area_m2), *(_coef(getattr(r, c)) for c in COEFFS))
                for r in group.itertuples()
            ]
        )
        out[dev.rlb_id] = figures.from_pieces(dev, rows, rules)  # type: ignore[arg-type]
    return out


def run(
    bundle: Path, workload: Workload, rules: RuleSet, repeats: int, polygons: int
) -> dict[str, Any]:
    if polygons > MAX_POLYGONS:
        return {
            "skipped": (
                f"not run at {polygons:,} polygons: reading the whole layer per job needs "
                f"~{polygons * 0.8 / 1e6:.1f} GB and minutes per job (limit "
                f"{MAX_POLYGONS:,}); the issue measured 51 s per site and 4.3 GB at 5.46 M"
            )
        }
    log(f"naive: every job reads all {polygons:,} polygons; a few jobs only")
    return measure(
        0.0,
        lambda devs: assess(bundle, devs, rules),
        workload,
        repeats=1,
        small_repeats=min(repeats, 2),
        n_random=3,
    )
