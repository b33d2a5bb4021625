"""Benchmark `nrf bundle build` on a synthetic delivery of N coefficient polygons (not a test).

The delivery is laid out as Defra ships it: the Norfolk design's catchments, works, LPAs and
WFD catchments as shapefiles, permits and rates in ``Interim_coeffs.sqlite`` (with the real
exports' dirt), and N field-parcel-like coefficient polygons from ``synthetic_parcels`` in
``NMSCoefficientLayerTEST.gpkg``; the demo's EDP and excluded area as shapefiles, and its
charging schedule and index as Defra's CSVs. The build runs as a child process so its peak RSS
is its own.
N parcels of ~2.4 ha tile a rectangle centred on Norfolk; below about 250,000 that rectangle
is smaller than the design's extent, so square blocks of ``FRAME_SIDE`` fill the rest of the
extent (``frame_blocks``) and the NN catchments are wholly covered: the gate passes (no
`coverage_gap`) and the bundle is written, as a real delivery's would be. The blocks are
counted in the reported ``polygons``.

    scripts/bench-build --polygons 1000000 [--work DIR] [--keep]
"""

from __future__ import annotations

import argparse
import csv
import json
import resource
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyogrio
import shapely

from nrf.bundles import synthetic_norfolk as norfolk
from nrf.bundles.geopackage_writer import GeoPackageWriter, Table
from nrf.bundles.synthetic_bundle import DEFAULT_SEED, plan_grid
from nrf.bundles.synthetic_parcels import ParcelGrid, coefficients, parcel_rows

# bundle layer -> (where Defra ships it, bundle column -> Defra's column)
SHAPEFILES = {
    "nn_catchments": (
        "nutrients/Catchments/NN_Catchments_03_2024.shp",
        {"n2k_site_name": "N2K_Site_N", "edp_id": "OID"},
    ),
    "wwtw_catchments": ("nutrients/wwtw files/WwTW_all_features.shp", {"wwtw_id": "WwTw_ID"}),
    "lpa_boundaries": ("nutrients/LPA/LPA_National.shp", {"name": "NAME"}),
    "subcatchments": (
        "nutrients/Catchments/WFD_Surface_Water_Operational_Catchments_Cycle_2.shp",
        {"opcat_name": "OPCAT_NAME"},
    ),
    "edp_boundaries": (
        "nutrients/EDP/EDP_Boundaries.shp",
        {"edp_id": "EDP_Id", "edp_name": "EDP_Name"},
    ),
    "excluded_areas": ("nutrients/EDP/EDP_Excluded_Areas.shp", {"name": "site_name"}),
}
COEFF_SOURCE = ("LU_CurrNcoeff", "LU_CurrPcoeff", "N_ResiCoeff", "P_ResiCoeff")
FRAME_SIDE = 2_000.0  # m: a 65.5 km x 70.3 km extent takes at most 33 x 36 = 1,188 blocks
# Mid-range coefficients (kg/ha/yr) for the frame: inside every gate range, like the parcels'.
FRAME_COEFFICIENTS = (20.0, 1.0, 12.0, 0.8)


def frame_blocks(grid: ParcelGrid) -> list[shapely.Geometry]:
    """Blocks tiling the Norfolk extent (and the grid's) outside the grid's rectangle.

    The grid's outer edge is its rectangle exactly (its outer corners only slide along it), so
    blocks cut by that rectangle meet the parcels edge to edge: no gap, no overlap.
    """
    inner = shapely.box(*grid.extent)
    ex = norfolk.NORFOLK_EXTENT
    x0, y0 = min(ex[0], grid.extent[0]), min(ex[1], grid.extent[1])
    x1, y1 = max(ex[2], grid.extent[2]), max(ex[3], grid.extent[3])
    xs = np.append(np.arange(x0, x1, FRAME_SIDE), x1)
    ys = np.append(np.arange(y0, y1, FRAME_SIDE), y1)
    blocks = [
        shapely.box(xs[i], ys[j], xs[i + 1], ys[j + 1])
        for j in range(len(ys) - 1)
        for i in range(len(xs) - 1)
        if xs[i + 1] > xs[i] and ys[j + 1] > ys[j]
    ]
    parts = shapely.get_parts(shapely.difference(blocks, inner))
    return [p for p in parts if p.geom_type == "Polygon" and p.area > 0]


def write_small(root: Path) -> None:
    layers = {layer.name: layer for layer in norfolk.small_layers()}
    for key, (path, columns) in SHAPEFILES.items():
        layer = layers[key]
        values = {source: list(layer.attributes[ours]) for ours, source in columns.items()}
        if key == "wwtw_catchments":
            values["WwTW"] = [f"Works {wid}" for wid in values["WwTw_ID"]]
        write_shapefile(root / path, values, list(layer.geometries))


def write_shapefile(
    path: Path, values: dict[str, list[Any]], shapes: list[shapely.Geometry]
) -> None:
    """A British National Grid shapefile through pyogrio's arrays (no geopandas: writing a
    delivery needs only what nrf installs; geopandas is the benchmark extra's)."""
    kinds = set(shapely.get_type_id(shapes).tolist())
    multi = shapely.GeometryType.MULTIPOLYGON in kinds
    path.parent.mkdir(parents=True, exist_ok=True)
    pyogrio.raw.write(
        path,
        shapely.to_wkb(shapes),
        [np.asarray(column, dtype=_dtype(column)) for column in values.values()],
        list(values),
        geometry_type="MultiPolygon" if multi else "Polygon",
        crs="EPSG:27700",
    )


def _dtype(column: list[Any]) -> type:
    """Whole numbers as integers (a shapefile's numeric field), anything else as text."""
    return np.int64 if all(isinstance(v, int) for v in column) else object


def write_csv(path: Path, table: Table) -> None:
    """A levy table as Defra's CSV: its column names, then its rows."""
    with path.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow([name for name, _ in table.columns])
        out.writerows(table.rows)


def write_lookups(root: Path) -> None:
    path = root / "nutrients/SQL_Lookups/Interim_coeffs.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE WwTw_lookup (WwTW_code TEXT, WwTW_name TEXT, Subcatchment_name "
            "TEXT, Nitrogen_2025_2030 TEXT, Nitrogen_2030_onwards TEXT, "
            "Phosphorus_2025_2030 TEXT, Phosphorus_2030_onwards TEXT)"
        )
        db.executemany(
            "INSERT INTO WwTw_lookup VALUES (?,?,?,?,?,?,?)", norfolk.permits_table().rows
        )
        db.execute(
            "CREATE TABLE rates_lookup (NN_Catchment TEXT, Occ_Rate REAL, Water_Usage_L_Day REAL)"
        )
        rows = [(c or k, o, w) for c, k, o, w in norfolk.occupancy_table().rows if c != "default"]
        db.executemany("INSERT INTO rates_lookup VALUES (?,?,?)", rows)
    db.close()


def write_coefficients(root: Path, polygons: int) -> int:
    grid = plan_grid(polygons, DEFAULT_SEED)
    path = root / "nutrients/NMSCoefficientLayerTEST.gpkg"
    columns = [
        ("cromeid", "TEXT"),
        ("Land_use_cat", "TEXT"),
        ("NN_Catchment", "TEXT"),
        ("SubCatchment", "TEXT"),
        *[(c, "REAL") for c in COEFF_SOURCE],
    ]
    done = 0
    with GeoPackageWriter(path) as writer:
        writer.create_layer("NMSCoefficientLayer", columns)
        per_chunk = max(1, 200_000 // len(grid.widths))
        for first, polys in parcel_rows(grid, per_chunk):
            values = coefficients(grid, first, first + len(polys) // len(grid.widths))
            attrs: dict[str, object] = {c: values[:, k] for k, c in enumerate(COEFF_SOURCE)}
            attrs["cromeid"] = [f"CR{done + i:08d}" for i in range(len(polys))]
            attrs["Land_use_cat"] = ["Arable"] * len(polys)
            writer.append_features("NMSCoefficientLayer", polys, attrs)  # type: ignore[arg-type]
            done += len(polys)
            print(f"\rdelivery: {done:,}/{grid.count:,} polygons", end="", file=sys.stderr)
        frame = frame_blocks(grid)
        if frame:
            blocks: dict[str, object] = {
                c: [v] * len(frame) for c, v in zip(COEFF_SOURCE, FRAME_COEFFICIENTS, strict=True)
            }
            blocks["cromeid"] = [f"FR{i:08d}" for i in range(len(frame))]
            blocks["Land_use_cat"] = ["Arable"] * len(frame)
            writer.append_features("NMSCoefficientLayer", frame, blocks)  # type: ignore[arg-type]
            done += len(frame)
    print(file=sys.stderr)
    return done


def make_delivery(work: Path, polygons: int) -> tuple[Path, int]:
    root = work / "iat_input"
    write_small(root)
    write_lookups(root)
    count = write_coefficients(root, polygons)
    write_csv(root / "levy_charges.csv", norfolk.levy_charges_table())
    write_csv(root / "inflation_index.csv", norfolk.inflation_index_table())
    (work / "sources.toml").write_text('[options]\nduplicate_works = "first_wins"\n')
    return root, count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--polygons", type=int, default=1_000_000)
    parser.add_argument("--work", type=Path, default=Path("out/bench-build"))
    parser.add_argument("--keep", action="store_true", help="keep the delivery and bundle")
    args = parser.parse_args(argv)
    work = args.work / str(args.polygons)
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    root, count = make_delivery(work, args.polygons)
    print(f"delivery written in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    command = [
        sys.executable,
        "-m",
        "nrf.entrypoints.cli",
        "bundle",
        "build",
        str(root),
        "--output",
        str(work / "bundle.gpkg"),
        "--version",
        "bench",
        "--default-occupancy",
        "2.4",
        "--default-water-usage",
        "120",
        "--manifest",
        str(work / "sources.toml"),
    ]
    started = time.perf_counter()
    code = subprocess.call(command)
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    result = {
        "polygons": count,
        "exit_code": code,
        "build_seconds": round(seconds, 1),
        "peak_rss_mb": round(peak_mb),
        "bundle_bytes": (work / "bundle.gpkg").stat().st_size
        if (work / "bundle.gpkg").exists()
        else None,
    }
    print(json.dumps(result, indent=1))
    if not args.keep:
        for path in sorted(work.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
    return code


if __name__ == "__main__":
    raise SystemExit(main())
