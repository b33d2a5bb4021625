"""What a bundle GeoPackage must contain, and a check that names every part that is missing."""

from __future__ import annotations

import sqlite3

from attrs import frozen

from nrf.domain.bng import BNG_EPSG

COEFFICIENT_LAYER = "land_use_coefficients"
COEFFICIENT_COLUMNS = ("lu_curr_n_coeff", "lu_curr_p_coeff", "n_resi_coeff", "p_resi_coeff")
LAYERS: dict[str, tuple[str, ...]] = {
    "nn_catchments": ("n2k_site_name", "edp_id"),
    "wwtw_catchments": ("wwtw_id",),
    "lpa_boundaries": ("name",),
    "subcatchments": ("opcat_name",),
    COEFFICIENT_LAYER: COEFFICIENT_COLUMNS,
    "edp_boundaries": ("edp_id", "edp_name"),
    "excluded_areas": ("name",),
}
# Columns read when present: a bundle built before nrf read a catchment's `Label` has none, and
# its catchments are then listed by N2K site (``NnCatchment.catchment_label``).
OPTIONAL_COLUMNS: dict[str, tuple[str, ...]] = {"nn_catchments": ("label",)}
TABLES: dict[str, tuple[str, ...]] = {
    "wwtw_permits": (
        "wwtw_id",
        "wwtw_name",
        "wwtw_subcatchment",
        "n_conc_2025_2030",
        "n_conc_2030_on",
        "p_conc_2025_2030",
        "p_conc_2030_on",
    ),
    "occupancy_rates": (
        "nn_catchment",
        "dwelling_category",
        "occupancy_rate",
        "water_usage_l_per_person_day",
    ),
    "levy_charges": (
        "edp_id",
        "edp_name",
        "edp_start_date",
        "charge_valid_from",
        "charge_valid_to",
        "base_charge_per_unit",
    ),
    "levy_inflation_index": ("charging_year", "cil_index", "index_factor"),
    "levy_settings": ("key", "value"),
    "bundle_info": ("name", "version", "created", "description"),
}
POLYGON_TYPES = frozenset({"POLYGON", "MULTIPOLYGON"})
_GPKG_CORE = ("gpkg_contents", "gpkg_geometry_columns", "gpkg_spatial_ref_sys")


def q(identifier: str) -> str:
    """Quote an SQL identifier."""
    return '"' + identifier.replace('"', '""') + '"'


@frozen(kw_only=True)
class TableSchema:
    """Real (case-preserved) names of a table, its columns and, for layers, geometry details."""

    name: str
    columns: dict[str, str]  # wanted lower-case name -> stored name
    key: str  # the integer primary key column ("rowid" if none)
    geometry_column: str | None = None
    rtree: str | None = None


# Long: one check per required layer and table, in the order a data manager reads them.
def check_schema(db: sqlite3.Connection) -> tuple[dict[str, TableSchema], list[str]]:
    """The schema of every required (and present optional) layer and table, and what is wrong."""
    names = {
        n.casefold(): n
        for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
    }
    if any(core not in names for core in _GPKG_CORE):
        return {}, ["not a GeoPackage (no gpkg_contents / gpkg_geometry_columns tables)"]
    geometry = {
        str(t).casefold(): (str(c), str(gt).upper(), org, org_id)
        for t, c, gt, org, org_id in db.execute(
            "SELECT g.table_name, g.column_name, g.geometry_type_name, s.organization, "
            "s.organization_coordsys_id FROM gpkg_geometry_columns g "
            "LEFT JOIN gpkg_spatial_ref_sys s ON s.srs_id = g.srs_id"
        )
    }
    found: dict[str, TableSchema] = {}
    problems: list[str] = []
    for wanted, columns in (LAYERS | TABLES).items():
        is_layer = wanted in LAYERS
        kind = "layer" if is_layer else "table"
        stored = names.get(wanted)
        if stored is None:
            problems.append(f"missing {kind} '{wanted}'")
            continue
        info = db.execute(f"PRAGMA table_info({q(stored)})").fetchall()
        have = {str(r[1]).casefold(): str(r[1]) for r in info}
        key = next(
            (str(r[1]) for r in info if r[5] == 1 and str(r[2]).upper() == "INTEGER"), "rowid"
        )
        missing = [c for c in columns if c not in have]
        problems += [f"{kind} '{wanted}' has no column '{c}'" for c in missing]
        if not is_layer:
            found[wanted] = TableSchema(
                name=stored, columns={c: have[c] for c in columns if c in have}, key=key
            )
            continue
        if wanted not in geometry:
            problems.append(
                f"layer '{wanted}' is not a spatial layer (not in gpkg_geometry_columns)"
            )
            continue
        geom_col, geom_type, org, org_id = geometry[wanted]
        if str(org).upper() != "EPSG" or org_id != BNG_EPSG:
            problems.append(f"layer '{wanted}' is in {org}:{org_id}, not EPSG:{BNG_EPSG}")
        if geom_type not in POLYGON_TYPES:
            problems.append(f"layer '{wanted}' holds {geom_type} geometries, not polygons")
        rtree = names.get(f"rtree_{stored}_{geom_col}".casefold())
        if rtree is None:
            problems.append(
                f"layer '{wanted}' has no R-tree spatial index (rtree_{stored}_{geom_col})"
            )
        found[wanted] = TableSchema(
            name=stored,
            columns={
                c: have[c] for c in (*columns, *OPTIONAL_COLUMNS.get(wanted, ())) if c in have
            },
            key=key,
            geometry_column=geom_col,
            rtree=rtree,
        )
    return found, problems
