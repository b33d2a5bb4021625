"""Rules over the EDP boundaries and the excluded areas: sound polygons, one id per EDP name.

Several polygons may make one EDP (Defra's layer has them), but they must then carry one
EDP_Id: a quote resolves the EDP named in Defra's message by name, so a name with two ids
(or an id with two names) would price a site by whichever polygon came first. Findings name
the columns as delivered (`EDP_Id`, `EDP_Name`, or the manifest's names for them).
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from nrf.adapters.boundary_data import geopackage_cells
from nrf.adapters.boundary_data.geopackage_schema import TableSchema, q
from nrf.bundles.qc.delivered_column import column_names
from nrf.bundles.qc.delivered_file import delivered_file, in_file
from nrf.bundles.qc.geometry import check_geometries, decode
from nrf.bundles.qc.report import QcReport
from nrf.bundles.qc.small_layer_checks import named

EDPS, EXCLUDED = "edp_boundaries", "excluded_areas"


def _features(db: sqlite3.Connection, t: TableSchema) -> tuple[list[str], list, list[dict]]:
    """Keys ("source fid N", or "fid N" for a bundle built elsewhere), blobs, column values."""
    have = {str(r[1]).casefold() for r in db.execute(f"PRAGMA table_info({q(t.name)})")}
    source = ", source_fid" if "source_fid" in have else ""
    wanted = "".join(f", {q(c)}" for c in t.columns.values())
    sql = f"SELECT {q(t.key)}, {q(t.geometry_column or '')}{wanted}{source} FROM {q(t.name)}"
    rows = db.execute(sql + f" ORDER BY {q(t.key)}").fetchall()
    values = [dict(zip(t.columns, r[2:], strict=False)) for r in rows]
    name = "edp_name" if "edp_name" in t.columns else "name"
    keys = [
        named(f"source fid {r[-1]}" if source else f"fid {r[0]}", v.get(name))
        for r, v in zip(rows, values, strict=True)
    ]
    return keys, [r[1] for r in rows], values


def check_excluded_areas(db: sqlite3.Connection, t: TableSchema, report: QcReport) -> None:
    """Sound polygons; a blank name is allowed (the area still excludes a site)."""
    keys, blobs, _ = _features(db, t)
    source = delivered_file(db, EXCLUDED)
    geoms = decode(EXCLUDED, keys, blobs, report, source=source)
    check_geometries(EXCLUDED, keys, geoms, report, source=source)


def check_edp_boundaries(
    db: sqlite3.Connection, t: TableSchema, report: QcReport
) -> dict[int, str]:
    """Sound polygons, each with an id and a name, one id per name; returns id -> name."""
    keys, blobs, values = _features(db, t)
    source = delivered_file(db, EDPS)
    where = in_file(source)
    named = column_names(db, EDPS)
    id_column, name_column = named("edp_id", "EDP_Id"), named("edp_name", "EDP_Name")
    check_geometries(
        EDPS, keys, decode(EDPS, keys, blobs, report, source=source), report, source=source
    )
    ids_of: dict[str, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    names_of: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for key, row in zip(keys, values, strict=True):
        edp = geopackage_cells.whole_number(row["edp_id"])
        name = geopackage_cells.text_or_none(row["edp_name"])
        if edp is None or name is None:
            report.add(
                "key_missing",
                EDPS,
                key,
                f"{where}{id_column} {row['edp_id']!r} / {name_column} {row['edp_name']!r}",
            )
            continue
        ids_of[name][edp].append(key)
        names_of[edp][name].append(key)
    for name, ids in sorted(ids_of.items()):
        if len(ids) > 1:
            shown = "; ".join(f"{id_column} {i} on {', '.join(k)}" for i, k in sorted(ids.items()))
            report.add(
                "edp_id_conflict",
                EDPS,
                name,
                f"{where}'{name}' has {len(ids)} ids ({shown}): give every polygon of one EDP "
                "its id",
            )
    for edp, names in sorted(names_of.items()):
        if len(names) > 1:
            shown = "; ".join(f"'{n}' on {', '.join(k)}" for n, k in sorted(names.items()))
            report.add(
                "edp_id_conflict",
                EDPS,
                f"{id_column} {edp}",
                f"{where}{id_column} {edp} names {len(names)} EDPs ({shown}): one id, one "
                f"{name_column}",
            )
    return {edp: min(names) for edp, names in names_of.items()}
