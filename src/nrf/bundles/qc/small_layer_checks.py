"""Rules over the four small layers (read whole): geometry, keys, one id per catchment name.

A finding names each column as delivered (`N2K_Site_N`, or the manifest's name for it). An OID
names one N2K site. Without labels an N2K site is one catchment, so it has one OID; with them
(Defra's `Label`) each labelled catchment may carry its own, so one site may have several.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from typing import Any

import shapely
from attrs import frozen

from nrf.adapters.boundary_data import geopackage_cells
from nrf.adapters.boundary_data.geopackage_schema import TableSchema, q
from nrf.bundles.qc.delivered_column import column_names
from nrf.bundles.qc.delivered_file import delivered_file, in_file
from nrf.bundles.qc.geometry import check_geometries, decode
from nrf.bundles.qc.report import QcReport

KEYS = {
    "nn_catchments": ("n2k_site_name", "edp_id"),
    "wwtw_catchments": ("wwtw_id",),
    "lpa_boundaries": ("name",),
    "subcatchments": ("opcat_name",),
}


@frozen
class SmallLayers:
    """What the table rules need: catchments (unioned per name), their ids, works ids."""

    catchments: dict[str, shapely.Geometry]
    edp_by_name: dict[str, str]
    works_ids: set[int]


def _rows(
    db: sqlite3.Connection, t: TableSchema, layer: str
) -> tuple[list[str], list[Any], list[dict]]:
    columns = {
        str(r[1]).casefold(): str(r[1]) for r in db.execute(f"PRAGMA table_info({q(t.name)})")
    }
    source = f", {q(columns['source_fid'])}" if "source_fid" in columns else ""
    wanted = ", ".join(q(c) for c in t.columns.values())
    sql = (
        f"SELECT {q(t.key)}, {q(t.geometry_column or '')}, {wanted}{source} "
        f"FROM {q(t.name)} ORDER BY {q(t.key)}"
    )
    rows = db.execute(sql).fetchall()
    values = [dict(zip(t.columns, r[2:], strict=False)) for r in rows]
    keys = [
        named(f"source fid {r[-1]}" if source else f"fid {r[0]}", v.get(KEYS[layer][0]))
        for r, v in zip(rows, values, strict=True)
    ]
    return keys, [r[1] for r in rows], values


def named(key: str, name: object) -> str:
    """A feature's key with its own name, so a data manager finds it: "source fid 0 (Alpha SAC)"."""
    text = geopackage_cells.text_or_none(name)
    return key if text is None else f"{key} ({text})"


def check_small_layers(
    db: sqlite3.Connection, schema: dict[str, TableSchema], report: QcReport
) -> SmallLayers:
    parts: dict[str, list[shapely.Geometry]] = defaultdict(list)
    edp_by_name: dict[str, str] = {}
    name_by_edp: dict[str, str] = {}
    works: set[int] = set()
    for layer, key_columns in KEYS.items():
        keys, blobs, values = _rows(db, schema[layer], layer)
        source = delivered_file(db, layer)
        where = in_file(source)
        named = column_names(db, layer)
        geoms = decode(layer, keys, blobs, report, source=source)
        good = check_geometries(layer, keys, geoms, report, source=source)
        for key, geom, ok, row in zip(keys, geoms, good, values, strict=True):
            if layer == "nn_catchments":
                name, edp = (
                    geopackage_cells.text_or_none(row["n2k_site_name"]),
                    geopackage_cells.edp_key(row["edp_id"]),
                )
                if name is None or edp is None:
                    site, oid = named("n2k_site_name", "N2K_Site_N"), named("edp_id", "OID")
                    report.add("key_missing", layer, key, f"{where}{site} {name!r} / {oid} {edp!r}")
                    continue
                labelled = geopackage_cells.text_or_none(row.get("label")) is not None
                if edp_by_name.setdefault(name, edp) != edp and not labelled:
                    report.add(
                        "key_conflict",
                        layer,
                        key,
                        f"{where}'{name}' has {named('edp_id', 'OID')} {edp_by_name[name]} and "
                        f"{edp}",
                    )
                if name_by_edp.setdefault(edp, name) != name:
                    report.add(
                        "key_conflict",
                        layer,
                        key,
                        f"{where}{named('edp_id', 'OID')} {edp} names '{name_by_edp[edp]}' and "
                        f"'{name}'",
                    )
                if ok:
                    parts[name].append(geom)
            elif layer == "wwtw_catchments":
                wid = geopackage_cells.whole_number(row["wwtw_id"])
                if wid is None:
                    column = named("wwtw_id", "WwTw_ID")
                    report.add("key_missing", layer, key, f"{where}{column} {row['wwtw_id']!r}")
                else:
                    works.add(wid)
            elif geopackage_cells.text_or_none(row[key_columns[0]]) is None:
                report.add("key_missing", layer, key, f"{where}no {named(key_columns[0])}")
    for name, polys in parts.items():
        if len(polys) > 1:
            report.add("key_repeated", "nn_catchments", name, f"{len(polys)} polygons")
    catchments = {n: shapely.union_all(p) for n, p in parts.items()}
    return SmallLayers(catchments, edp_by_name, works)
