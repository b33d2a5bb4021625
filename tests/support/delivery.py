"""Make a small Defra ``iat_input/`` delivery in exactly the shipped layout, dirt included.

``fixture_data()`` returns plain, mutable rows; a test breaks them the way it wants and calls
``write_delivery``. The layout: shapefiles for the catchments, works, LPAs and WFD catchments,
a GDAL-written GeoPackage coefficient layer, and ``Interim_coeffs.sqlite`` with the lookups.

The area is 3 km x 2 km of Norfolk-ish grid: Alpha SAC (OID 1) west of x = 601,500, Beta SAC
(OID 2) east of it; works 11307 serve x < 601,000, works 1065 (two polygons) 601,000-602,500,
and nothing serves 602,500-603,000 (sites there fall back to works 141). Works 10416 and 10261
lie east of the catchments. Coefficients: 100 m squares over the catchments.

Defra's current levy inputs: one EDP, "Yare EDP" (EDP_Id 1), made of two polygons that are the
two catchments; an excluded area "Gamma Fen SSSI" (x 2,000-2,200, y 1,500-1,700); a charging
schedule of two windows (2026-04-01..2027-03-31 at £2,675.0000 a unit, then to 2028-03-31 at
£2,750.0000, whole pounds as Defra publishes) and an index of 2026 (1.0000) and 2027
(392.43 / 381 = 1.0300).
"""

from __future__ import annotations

import sqlite3
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import geopandas as gpd
import pyogrio
import shapely
from attrs import define, field
from shapely.geometry import box

X0, Y0 = 600_000.0, 300_000.0
COLS, ROWS, CELL = 30, 20, 100.0
SHP = {
    "nn": "nutrients/Catchments/NN_Catchments_03_2024.shp",
    "wwtw": "nutrients/wwtw files/WwTW_all_features.shp",
    "lpa": "nutrients/LPA/LPA_National.shp",
    "wfd": "nutrients/Catchments/WFD_Surface_Water_Operational_Catchments_Cycle_2.shp",
    "edp": "nutrients/EDP/EDP_Boundaries.shp",
    "excluded": "nutrients/EDP/EDP_Excluded_Areas.shp",
}
COEFF_PATH = "nutrients/NMSCoefficientLayerTEST.gpkg"
LOOKUPS_PATH = "nutrients/SQL_Lookups/Interim_coeffs.sqlite"
PERMIT_COLUMNS = (
    "WwTW_code",
    "WwTW_name",
    "Subcatchment_name",
    "Nitrogen_2025_2030",
    "Nitrogen_2030_onwards",
    "Phosphorus_2025_2030",
    "Phosphorus_2030_onwards",
)
CHARGES_HEADER = (
    "edp_id,edp_name,edp_start_date,charge_valid_from,charge_valid_to,base_charge_per_unit"
)
INDEX_HEADER = "charging_year,cil_index,index_factor"


def _b(x0: float, y0: float, x1: float, y1: float) -> shapely.Geometry:
    return box(X0 + x0, Y0 + y0, X0 + x1, Y0 + y1)


def coefficient_value(col: int, row: int) -> tuple[object, object, object, object]:
    """LU_CurrNcoeff (text), LU_CurrPcoeff, N_ResiCoeff, P_ResiCoeff of one 100 m cell."""
    n = f"{5 + col:.1f}"  # 5.0 .. 34.0, stored as text
    if (col, row) == (3, 4):
        n = "n/a"  # stray text: read as NULL
    p = None if (col, row) == (25, 5) else round(0.1 + 0.05 * row, 2)  # NULL concentration
    return n, p, 10.0 + (row % 5), 0.5 + 0.1 * (col % 4)


@define
class FixtureData:
    """Every row of the delivery; geometry first, then the columns in source order."""

    nn: list[tuple[Any, ...]] = field(
        factory=lambda: [
            (_b(0, 0, 1500, 2000), "Alpha SAC", 1),
            (_b(1500, 0, 3000, 2000), "Beta SAC", 2),
        ]
    )
    # An older delivery's columns; Defra's current one adds `Label` (one value more per row).
    nn_columns: list[str] = field(factory=lambda: ["N2K_Site_N", "OID"])
    wwtw: list[tuple[Any, ...]] = field(
        factory=lambda: [
            (_b(0, 0, 1000, 2000), 11307, "Alpha WwTW"),
            (_b(1000, 0, 2500, 1000), 1065, "Beta WwTW"),
            (_b(1000, 1000, 2500, 2000), 1065, "Beta WwTW"),
            (_b(3000, 0, 3500, 1000), 10416, "East WwTW"),
            (_b(3000, 1000, 3500, 2000), 10261, "North WwTW"),
        ]
    )
    lpa: list[tuple[Any, ...]] = field(
        factory=lambda: [
            (_b(-500, -500, 1800, 2500), "Alpha District"),
            (_b(1800, -500, 4000, 2500), "Beta District"),
        ]
    )
    wfd: list[tuple[Any, ...]] = field(
        factory=lambda: [
            (_b(-500, -500, 1500, 2500), "Upper Yare"),
            (_b(1500, -500, 4000, 2500), "Lower Yare"),
        ]
    )
    coefficients: list[tuple[Any, ...]] = field(
        factory=lambda: [
            (
                _b(c * CELL, r * CELL, (c + 1) * CELL, (r + 1) * CELL),
                f"CR{r:02d}{c:02d}",
                "Arable",
                "Alpha SAC" if c < 15 else "Beta SAC",
                "Upper Yare" if c < 15 else "Lower Yare",
                *coefficient_value(c, r),
            )
            for r in range(ROWS)
            for c in range(COLS)
        ]
    )
    permits: list[tuple[Any, ...]] = field(
        factory=lambda: [
            ("\t11307", "Alpha WwTW ", "Upper Yare", "27", "10", "1", "1"),
            ("1065.0", "Beta WwTW", "Lower Yare", None, "10", "0.25", None),
            (None, "Package Treatment Plant default", None, "25", "25", "4.5", "4.5"),
            ("141", "Package Treatment Plant default", None, "25", "25", "4.5", "4.5"),
            ("10416", "East WwTW", "Lower Yare", "27", "27", "5", "5"),
            ("10416", "East WwTW", "Lower Yare", "27", "27", "5", "5"),
            ("10261", "North WwTW ", "Lower Yare", "27", "10", "1", "1"),
            ("10261", "North WwTW (old)", "Lower Yare", "99", "99", "9", "9"),
            (None, "Package Treatment Plant default", None, "25", "25", "4.5", "4.5"),
        ]
    )
    rates: list[tuple[Any, ...]] = field(
        factory=lambda: [
            ("Alpha SAC", 2.4, 120.0),
            ("Beta SAC ", 2.3, 110.0),
            ("Hotel", 1.0, 240.0),
            ("Student Accommodation", 1.0, 120.0),
        ]
    )
    edps: list[tuple[Any, ...]] = field(
        factory=lambda: [
            (_b(0, 0, 1500, 2000), 1, "Yare EDP"),
            (_b(1500, 0, 3000, 2000), 1, "Yare EDP"),
        ]
    )
    excluded: list[tuple[Any, ...]] = field(
        factory=lambda: [(_b(2000, 1500, 2200, 1700), "Gamma Fen SSSI")]
    )
    excluded_name_column: str = "site_name"  # Defra's loader reads the name from site_name
    charges: list[str] = field(
        factory=lambda: [
            "1,Yare EDP,2026-04-01,2026-04-01,2027-03-31,2675.0000",
            "1,Yare EDP,2026-04-01,2027-04-01,2028-03-31,2750.0000",
        ]
    )
    index: list[str] = field(factory=lambda: ["2026,381,1.0000", "2027,392.43,1.0300"])
    crs: dict[str, str | None] = field(factory=dict)  # shapefile key -> CRS (default 27700)
    manifest: str = '[options]\nduplicate_works = "first_wins"\n'


def _shapefile(path: Path, rows: list[tuple[Any, ...]], names: list[str], crs: str | None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = {n: [r[k + 1] for r in rows] for k, n in enumerate(names)}
    frame = gpd.GeoDataFrame(columns, geometry=[r[0] for r in rows], crs=crs)
    with warnings.catch_warnings():  # a layer without a CRS is what some tests want
        warnings.simplefilter("ignore", UserWarning)
        pyogrio.write_dataframe(frame, path)


def write_delivery(root: Path, data: FixtureData) -> dict[str, Path]:
    """Write the delivery under ``root``; returns the two levy CSVs' and manifest's paths."""
    crs = {k: data.crs.get(k, "EPSG:27700") for k in SHP}
    _shapefile(root / SHP["nn"], data.nn, data.nn_columns, crs["nn"])
    _shapefile(root / SHP["wwtw"], data.wwtw, ["WwTw_ID", "WwTW"], crs["wwtw"])
    _shapefile(root / SHP["lpa"], data.lpa, ["NAME"], crs["lpa"])
    _shapefile(root / SHP["wfd"], data.wfd, ["OPCAT_NAME"], crs["wfd"])
    _shapefile(root / SHP["edp"], data.edps, ["EDP_Id", "EDP_Name"], crs["edp"])
    _shapefile(root / SHP["excluded"], data.excluded, [data.excluded_name_column], crs["excluded"])
    names = [
        "cromeid",
        "Land_use_cat",
        "NN_Catchment",
        "SubCatchment",
        "LU_CurrNcoeff",
        "LU_CurrPcoeff",
        "N_ResiCoeff",
        "P_ResiCoeff",
    ]
    frame = gpd.GeoDataFrame(
        {n: [r[k + 1] for r in data.coefficients] for k, n in enumerate(names)},
        geometry=[r[0] for r in data.coefficients],
        crs="EPSG:27700",
    )
    pyogrio.write_dataframe(frame, root / COEFF_PATH, layer="NMSCoefficientLayer")
    lookups = root / LOOKUPS_PATH
    lookups.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(lookups) as db:
        db.execute(f"CREATE TABLE WwTw_lookup ({', '.join(f'{c} TEXT' for c in PERMIT_COLUMNS)})")
        db.executemany(f"INSERT INTO WwTw_lookup VALUES ({','.join('?' * 7)})", data.permits)
        db.execute(
            "CREATE TABLE rates_lookup (NN_Catchment TEXT, Occ_Rate REAL, Water_Usage_L_Day REAL)"
        )
        db.executemany("INSERT INTO rates_lookup VALUES (?, ?, ?)", data.rates)
    db.close()
    charges = root.parent / f"{root.name}-levy-charges.csv"
    charges.write_text("\n".join([CHARGES_HEADER, *data.charges]) + "\n")
    index = root.parent / f"{root.name}-inflation-index.csv"
    index.write_text("\n".join([INDEX_HEADER, *data.index]) + "\n")
    manifest = root.parent / f"{root.name}-sources.toml"
    manifest.write_text(data.manifest)
    return {"charges": charges, "index": index, "manifest": manifest}


def build_command(
    root: Path,
    paths: Mapping[str, Path],
    output: Path,
    version: str,
    *,
    manifest: bool = True,
    defaults: bool = True,
) -> list[str]:
    """The arguments of `nrf bundle build` for the delivery ``root``, as the tests run it."""
    args = ["bundle", "build", str(root), "--output", str(output), "--version", version]
    args += ["--levy-charges", str(paths["charges"]), "--inflation-index", str(paths["index"])]
    if manifest:
        args += ["--manifest", str(paths["manifest"])]
    if defaults:
        args += ["--default-occupancy", "2.4", "--default-water-usage", "120"]
    return args
