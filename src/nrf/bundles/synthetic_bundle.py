"""Generate synthetic reference-data bundles: tiled field parcels plus the Norfolk design."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from attrs import frozen

from nrf.bundles import synthetic_norfolk as norfolk
from nrf.bundles.detailed_parcels import parcel_rows_detailed
from nrf.bundles.geopackage_writer import GeoPackageWriter
from nrf.bundles.realistic_layers import Design, national_layers
from nrf.bundles.synthetic_parcels import (
    ParcelGrid,
    coefficients,
    fitted_sides,
    parcel_rows,
    side_lengths,
)

DEFAULT_SEED = 20261101
DEFAULT_VERSION = "2026.11.1"
DEFAULT_CREATED = "2026-11-01T00:00:00Z"
SYNTHETIC_NOTE = "SYNTHETIC DEMONSTRATION DATA - not real reference data; "
# Where England roughly lies in EPSG:27700; big default bundles are placed inside it.
ENGLAND_BOX = (130_000.0, 10_000.0, 655_000.0, 660_000.0)
DEFAULT_PARCEL_HA = 2.4  # 5.46 M parcels then cover ~130,000 km2, about England's area
NORFOLK_DEMO_PARCELS = 31_000
COEFFICIENT_COLUMNS = ("lu_curr_n_coeff", "lu_curr_p_coeff", "n_resi_coeff", "p_resi_coeff")
_CHUNK_PARCELS = 200_000

Progress = Callable[[int, int], None]
Extent = tuple[float, float, float, float]


@frozen
class GeneratedBundle:
    """What was written: the file, the number of coefficient polygons, and their extent."""

    path: Path
    coefficient_count: int
    extent: Extent


def _divisor_near(n: int, target: float) -> int | None:
    """The divisor of ``n`` closest to ``target`` within 25 %, so the grid holds exactly n."""
    lo, hi = max(1, math.floor(target * 0.75)), math.ceil(target * 1.25)
    found = [d for d in range(lo, hi + 1) if n % d == 0]
    return min(found, key=lambda d: abs(d - target)) if found else None


def _place(length: float, centre: float, lo: float, hi: float) -> float:
    """Start of a span of ``length`` centred on ``centre`` but kept inside [lo, hi] if it fits."""
    if length >= hi - lo:
        return lo
    return min(max(centre - length / 2, lo), hi - length)


def plan_grid(n: int, seed: int, extent: Extent | None = None) -> ParcelGrid:
    """Column widths and row heights for about ``n`` parcels (exactly n when n factorises)."""
    if n < 1:
        raise ValueError("n_coefficients must be at least 1")
    rng = np.random.default_rng([seed, 0])
    if extent is not None:
        minx, miny, maxx, maxy = extent
        side = math.sqrt((maxx - minx) * (maxy - miny) / n)
        widths = fitted_sides(rng, maxx - minx, side)
        heights = fitted_sides(rng, maxy - miny, side)
        return ParcelGrid(x0=minx, y0=miny, widths=widths, heights=heights, seed=seed)
    side = math.sqrt(DEFAULT_PARCEL_HA * 10_000)
    bx0, by0, bx1, by1 = ENGLAND_BOX
    target_cols = min(math.sqrt(n), (bx1 - bx0) / side)
    ncols = _divisor_near(n, target_cols) or max(1, round(target_cols))
    nrows = max(1, round(n / ncols))
    widths = side_lengths(rng, ncols, side)
    heights = side_lengths(rng, nrows, side)
    cx = (norfolk.NORFOLK_EXTENT[0] + norfolk.NORFOLK_EXTENT[2]) / 2
    cy = (norfolk.NORFOLK_EXTENT[1] + norfolk.NORFOLK_EXTENT[3]) / 2
    x0 = _place(float(widths.sum()), cx, bx0, bx1)
    y0 = _place(float(heights.sum()), cy, by0, by1)
    return ParcelGrid(x0=x0, y0=y0, widths=widths, heights=heights, seed=seed)


def generate_bundle(
    path: str | Path,
    n_coefficients: int,
    *,
    seed: int = DEFAULT_SEED,
    extent: Extent | None = None,
    progress: Progress | None = None,
    name: str = "nrf-synthetic",
    version: str = DEFAULT_VERSION,
    created: str = DEFAULT_CREATED,
    description: str | None = None,
    realistic: bool = False,
    design: Design | None = None,
) -> GeneratedBundle:
    """Write a synthetic bundle with about ``n_coefficients`` parcels tiling ``extent``.

    Without an extent the parcels (mean ~2.4 ha) cover a rectangle centred on Norfolk and
    kept inside England. The other layers and tables are the Norfolk design, or with
    ``realistic`` national layers at real-world detail around it (``realistic_layers``)
    and parcels of 5-30 vertices (``detailed_parcels``); ``design`` changes their detail.
    """
    grid = plan_grid(n_coefficients, seed, extent)
    total = grid.count
    text = description or (
        f"{SYNTHETIC_NOTE}{total:,} field-parcel-like coefficient polygons (seed {seed}) "
        "with made-up Norfolk catchments, works, permits and rates."
    )
    if realistic:
        layers, tables = national_layers(design or Design(), seed)
        rows = parcel_rows_detailed
    else:
        layers, tables, rows = norfolk.small_layers(), norfolk.tables(), parcel_rows
    with GeoPackageWriter(path, timestamp=created) as writer:
        for layer in layers:
            writer.create_layer(layer.name, layer.columns, geometry_type=layer.geometry_type)
            writer.append_features(layer.name, layer.geometries, layer.attributes)
        for table in tables:
            writer.create_table(table.name, table.columns, table.rows)
        writer.create_table(
            "bundle_info",
            [("name", "TEXT"), ("version", "TEXT"), ("created", "TEXT"), ("description", "TEXT")],
            [(name, version, created, text)],
        )
        writer.create_layer("land_use_coefficients", [(c, "REAL") for c in COEFFICIENT_COLUMNS])
        rows_per_chunk = max(1, _CHUNK_PARCELS // len(grid.widths))
        done = 0
        for first, polygons in rows(grid, rows_per_chunk):
            values = coefficients(grid, first, first + len(polygons) // len(grid.widths))
            columns = {c: values[:, k] for k, c in enumerate(COEFFICIENT_COLUMNS)}
            writer.append_features("land_use_coefficients", polygons, columns)
            done += len(polygons)
            if progress is not None:
                progress(done, total)
    return GeneratedBundle(Path(path), total, grid.extent)


def generate_norfolk_demo(
    path: str | Path, *, n_coefficients: int = NORFOLK_DEMO_PARCELS
) -> GeneratedBundle:
    """Write the bundled demo: parcels tiling the Broads & Wensum sample sites plus 3 km."""
    return generate_bundle(
        path,
        n_coefficients,
        extent=norfolk.NORFOLK_EXTENT,
        name="nrf-synthetic-norfolk",
        description=(
            f"{SYNTHETIC_NOTE}made-up catchments, treatment works, permits, rates, per-kg "
            "tariff, an excluded area and land-use coefficients laid out around the Defra "
            "Broads & Wensum sample sites, for demonstrations and tests only; the EDP takes "
            "Defra's Norfolk EDP id, name and charging schedule (2675.0000 a home) over the "
            "made-up catchments, with Defra's CIL index rows and a made-up 2027 row."
        ),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m nrf.bundles.synthetic_bundle OUT.gpkg [--parcels N] [--norfolk]``."""
    parser = argparse.ArgumentParser(description="Write a synthetic NRF reference bundle.")
    parser.add_argument("path", type=Path)
    parser.add_argument("--parcels", type=int, default=None)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--norfolk", action="store_true", help="the bundled Norfolk demo")
    parser.add_argument("--realistic", action="store_true", help="national layers, real detail")
    args = parser.parse_args(argv)

    def report(done: int, total: int) -> None:
        print(f"\r{done:,} / {total:,} parcels", end="", flush=True)

    if args.norfolk:
        out = generate_norfolk_demo(args.path, n_coefficients=args.parcels or NORFOLK_DEMO_PARCELS)
    else:
        out = generate_bundle(
            args.path,
            args.parcels or 100_000,
            seed=args.seed,
            progress=report,
            realistic=args.realistic,
        )
    print(f"\nwrote {out.path} with {out.coefficient_count:,} coefficient polygons")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
