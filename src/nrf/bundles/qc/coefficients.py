"""Rules over the big coefficient layer that SQL can answer at C speed, whatever its size.

Keys present and unique, value ranges, and features without a geometry are single scans;
the rules that need the polygons themselves run tile by tile in ``qc.tiles``. Each finding
names the delivered GeoPackage, its layer and the column as delivered (`LU_CurrPcoeff`, not the
bundle's `lu_curr_p_coeff`), where the data manager mends the feature.
"""

from __future__ import annotations

import sqlite3

from nrf.adapters.boundary_data.geopackage_schema import TableSchema, q
from nrf.bundles.qc.delivered_column import column_names
from nrf.bundles.qc.delivered_file import delivered_file, in_file
from nrf.bundles.qc.geometry import GB_EXTENT, LONLAT_BOX
from nrf.bundles.qc.report import QcReport

LAYER = "land_use_coefficients"
RANGES = {
    "lu_curr_n_coeff": 50.0,
    "n_resi_coeff": 50.0,
    "lu_curr_p_coeff": 5.0,
    "p_resi_coeff": 5.0,
}


def check_values(db: sqlite3.Connection, t: TableSchema, report: QcReport) -> None:
    """Source keys present and unique; coefficients numbers in range; every row has a geometry."""
    key = key_sql(db, t)
    table, fid = q(t.name), q(t.key)
    where = in_file(delivered_file(db, LAYER))
    named = column_names(db, LAYER)
    cromeid = named("cromeid")
    if key == fid:
        report.add(
            "no_source_key", LAYER, "-", f"{where}no {cromeid} column: rows are named by fid"
        )
    else:
        sql = f"SELECT {fid} FROM {table} WHERE {key} IS NULL OR trim({key}) = ''"
        for (row,) in db.execute(sql):
            report.add("key_missing", LAYER, f"fid {row}", f"{where}no {cromeid}")
        sql = (
            f"SELECT {key}, count(*), group_concat({fid}) FROM {table} WHERE {key} IS NOT NULL "
            f"AND trim({key}) != '' GROUP BY {key} HAVING count(*) > 1"
        )
        for value, count, fids in db.execute(sql):
            report.add(
                "key_duplicate", LAYER, value, f"{where}{cromeid} on {count} rows (fids {fids})"
            )
    for wanted, top in RANGES.items():
        col = q(t.columns[wanted])
        sql = (
            f"SELECT {key}, {col} FROM {table} WHERE {col} IS NOT NULL AND "
            f"(typeof({col}) NOT IN ('integer', 'real') OR {col} < 0 OR {col} > {top})"
        )
        for name, value in db.execute(sql):
            report.add(
                "coefficient_range",
                LAYER,
                name,
                f"{where}{named(wanted)} = {value!r}, not in [0, {top}]",
            )
    rtree = q(t.rtree or "")
    sql = f"SELECT t.{fid}, {key} FROM {table} t LEFT JOIN {rtree} r ON r.id = t.{fid} "
    for _, name in db.execute(sql + "WHERE r.id IS NULL"):
        report.add("geometry_missing", LAYER, name, f"{where}no geometry (NULL or empty)")
    check_extent(db, t, key, report)


def check_extent(db: sqlite3.Connection, t: TableSchema, key: str, report: QcReport) -> None:
    """Features outside GB, or in degrees, found from the R-tree's boxes in one scan each.

    R-tree boxes are single-precision, rounded outwards, which moves an edge by centimetres
    at most: nothing on land is near either limit."""
    table, fid, rtree = q(t.name), q(t.key), q(t.rtree or "")
    place = in_file(delivered_file(db, LAYER))
    x0, y0, x1, y1 = GB_EXTENT
    lx0, ly0, lx1, ly1 = LONLAT_BOX
    rules = {
        "outside_gb": f"r.minx < {x0} OR r.miny < {y0} OR r.maxx > {x1} OR r.maxy > {y1}",
        "lonlat_coordinates": (
            f"r.minx >= {lx0} AND r.miny >= {ly0} AND r.maxx <= {lx1} AND r.maxy <= {ly1}"
        ),
    }
    for code, where in rules.items():
        sql = (
            f"SELECT {key}, r.minx, r.miny, r.maxx, r.maxy FROM {rtree} r "
            f"JOIN {table} t ON t.{fid} = r.id WHERE {where} ORDER BY r.id"
        )
        for name, *box in db.execute(sql):
            shown = tuple(float(f"{b:.6g}") for b in box)
            report.add(
                code,
                LAYER,
                name,
                f"{place}bounds {shown}" + ("" if code == "outside_gb" else ": degrees?"),
            )


def key_sql(db: sqlite3.Connection, t: TableSchema) -> str:
    columns = {
        str(r[1]).casefold(): str(r[1]) for r in db.execute(f"PRAGMA table_info({q(t.name)})")
    }
    return q(columns["cromeid"]) if "cromeid" in columns else q(t.key)
